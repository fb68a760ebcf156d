import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { type LaunchInputs, type LaunchPlan, PROBE_SCRIPT, chooseInterpreter, explainProbe, planLaunch } from '../src/python';
import { DEFAULTS } from '../src/settings';

function inputs(overrides: Partial<LaunchInputs> = {}): LaunchInputs {
  return {
    settings: { interpreter: [], importStrategy: 'useBundled', path: [] },
    trusted: true,
    bundledLibs: '/ext/bundled/libs',
    extensionPath: '/ext',
    workspaceFolder: '/ws',
    env: { PATH: '/usr/bin', PYTHONPATH: '/somewhere/else', UNSET: undefined },
    isExecutable: () => false,
    ...overrides,
  };
}

describe('chooseInterpreter', () => {
  it('prefers gradguard.interpreter, then the Python extension, then python3 on PATH', () => {
    const settings = { ...DEFAULTS, interpreter: ['/opt/py/bin/python', '-X', 'utf8'] };
    assert.deepEqual(chooseInterpreter({ settings, pythonExtension: ['/venv/bin/python'], trusted: true }), [
      ['/opt/py/bin/python', '-X', 'utf8'],
      'gradguard.interpreter',
    ]);
    assert.deepEqual(chooseInterpreter({ settings: DEFAULTS, pythonExtension: ['/venv/bin/python'], trusted: true }), [
      ['/venv/bin/python'],
      'the Python extension',
    ]);
    assert.deepEqual(chooseInterpreter({ settings: DEFAULTS, pythonExtension: undefined, trusted: true }), [
      ['python3'],
      'python3 on PATH',
    ]);
  });

  it("does not run the Python extension's (possibly in-workspace) interpreter in restricted mode", () => {
    assert.deepEqual(chooseInterpreter({ settings: DEFAULTS, pythonExtension: ['/ws/.venv/bin/python'], trusted: false }), [
      ['python3'],
      'python3 on PATH',
    ]);
  });
});

describe('planLaunch', () => {
  it('runs the bundled server with only the bundled libraries on PYTHONPATH', () => {
    const plan = planLaunch(inputs());
    assert.equal(plan.command, 'python3');
    assert.deepEqual(plan.args, ['-m', 'gradguard', 'lsp']);
    assert.equal(plan.env.PYTHONPATH, '/ext/bundled/libs');
    assert.equal(plan.env.PYTHONNOUSERSITE, '1');
    assert.equal(plan.env.PATH, '/usr/bin');
    assert.ok(!('UNSET' in plan.env));
    assert.equal(plan.cwd, '/ext', 'the workspace folder must not shadow the bundled packages');
    assert.equal(plan.strategy, 'useBundled');
  });

  it("uses the environment's gradguard with fromEnvironment", () => {
    const plan = planLaunch(
      inputs({ settings: { interpreter: ['/venv/bin/python', '-X', 'dev'], importStrategy: 'fromEnvironment', path: [] } }),
    );
    assert.equal(plan.command, '/venv/bin/python');
    assert.deepEqual(plan.args, ['-X', 'dev', '-m', 'gradguard', 'lsp']);
    assert.equal(plan.env.PYTHONPATH, '/somewhere/else');
    assert.equal(plan.env.PYTHONSAFEPATH, '1');
    assert.equal(plan.cwd, '/ext', "the workspace's types.py or functools.py must not shadow the standard library");
    assert.deepEqual(plan.python, ['/venv/bin/python', '-X', 'dev']);
  });

  it('forces the bundled server in restricted mode', () => {
    const plan = planLaunch(
      inputs({ trusted: false, settings: { interpreter: [], importStrategy: 'fromEnvironment', path: [] } }),
    );
    assert.equal(plan.strategy, 'useBundled');
    assert.equal(plan.env.PYTHONPATH, '/ext/bundled/libs');
  });

  it('starts the first existing gradguard.path executable', () => {
    const plan = planLaunch(
      inputs({
        settings: { interpreter: [], importStrategy: 'useBundled', path: ['/missing/gradguard', '/bin/gradguard'] },
        isExecutable: (p) => p === '/bin/gradguard',
      }),
    );
    assert.equal(plan.command, '/bin/gradguard');
    assert.deepEqual(plan.args, ['lsp']);
    assert.equal(plan.strategy, 'path');
  });

  it('falls back to Python when no gradguard.path entry exists', () => {
    const plan = planLaunch(inputs({ settings: { interpreter: [], importStrategy: 'useBundled', path: ['/missing'] } }));
    assert.equal(plan.strategy, 'useBundled');
  });
});

describe('explainProbe', () => {
  const bundled: LaunchPlan = planLaunch(inputs());
  const fromEnv: LaunchPlan = planLaunch(
    inputs({ settings: { interpreter: ['/venv/bin/python'], importStrategy: 'fromEnvironment', path: [] } }),
  );
  const ran = (info: object) => ({ kind: 'ran' as const, stdout: JSON.stringify(info) + '\n', stderr: '', exitCode: 0 });
  const ok = { version: [3, 11, 2], implementation: 'cpython', executable: '/usr/bin/python3', gradguard: '0.1.0' };

  it('is silent when the interpreter can run GradGuard', () => {
    assert.equal(explainProbe(bundled, ran(ok)), undefined);
    assert.equal(explainProbe(fromEnv, ran(ok)), undefined);
  });

  it('says which interpreter is missing and what to set', () => {
    const message = explainProbe(bundled, { kind: 'spawnError', code: 'ENOENT', message: 'spawn python3 ENOENT' });
    assert.match(message ?? '', /"python3" \(from python3 on PATH\) was not found/);
    assert.match(message ?? '', /gradguard\.interpreter/);
  });

  it('rejects Python older than 3.10', () => {
    assert.match(explainProbe(bundled, ran({ ...ok, version: [3, 8, 10] })) ?? '', /needs Python 3\.10 or newer.*is Python 3\.8/);
  });

  it('explains that the bundled server needs CPython 3.10 to 3.14 when it fails to load', () => {
    const failed = { error: 'ImportError: libcst.native' };
    assert.equal(explainProbe(bundled, ran({ ...ok, version: [3, 14, 0] })), undefined);
    const message = explainProbe(bundled, ran({ ...ok, ...failed, version: [3, 15, 0] })) ?? '';
    assert.match(message, /CPython 3\.10 to 3\.14.*cpython 3\.15/);
    assert.match(message, /pip install gradguard.*fromEnvironment/);
    assert.match(explainProbe(bundled, ran({ ...ok, ...failed, implementation: 'pypy' })) ?? '', /pypy 3\.11/);
  });

  it('accepts any Python on which the universal package finds libcst, and says when it does not', () => {
    assert.equal(explainProbe(bundled, ran({ ...ok, version: [3, 15, 0] })), undefined);
    const missing = { ...ok, error: "ModuleNotFoundError: No module named 'libcst'" };
    assert.match(explainProbe(bundled, ran(missing)) ?? '', /universal .* -m pip install libcst/);
    assert.match(explainProbe(bundled, ran({ ...missing, version: [3, 15, 0] })) ?? '', /universal .* -m pip install libcst/);
  });

  it('tells how to install gradguard for fromEnvironment', () => {
    const message = explainProbe(fromEnv, ran({ ...ok, gradguard: undefined, error: "ModuleNotFoundError: No module named 'gradguard'" }));
    assert.match(message ?? '', /not installed in "\/venv\/bin\/python".*\/venv\/bin\/python -m pip install gradguard/);
  });

  it('reports a program that is not Python', () => {
    const message = explainProbe(fromEnv, { kind: 'ran', stdout: '', stderr: 'Unknown option: -c\n', exitCode: 2 });
    assert.match(message ?? '', /did not run as a Python interpreter \(Unknown option: -c\)/);
  });

  it('a workspace full of standard-library names cannot break fromEnvironment', () => {
    // A real interpreter, started exactly as planned, next to a workspace whose modules shadow
    // the standard library and gradguard itself (each would print and exit when imported).
    const workspace = mkdtempSync(join(tmpdir(), 'gg-ws-'));
    for (const name of ['types', 'functools', 'warnings', 'json', 'gradguard']) {
      writeFileSync(join(workspace, `${name}.py`), `raise SystemExit("shadowed by the workspace: ${name}")\n`);
    }
    const plan = planLaunch(
      inputs({
        settings: { interpreter: ['python3'], importStrategy: 'fromEnvironment', path: [] },
        workspaceFolder: workspace,
        extensionPath: tmpdir(),
        env: { PATH: process.env.PATH },
      }),
    );
    // `-m` as the server is started, with a module that imports the shadowed names.
    const run = (cwd: string | undefined, env: Record<string, string | undefined>) =>
      execFileSync(plan.command, ['-m', 'json.tool', '--help'], { cwd, env, stdio: 'pipe' }).toString();
    assert.match(run(plan.cwd, plan.env), /usage/);
    // The hazard this guards against: the same start with the workspace as working directory.
    assert.throws(() => run(workspace, { PATH: process.env.PATH }), /shadowed by the workspace/);
  });

  it('the probe script runs on a real interpreter and reports its version', () => {
    const stdout = execFileSync('python3', ['-c', PROBE_SCRIPT], { env: { PATH: process.env.PATH, PYTHONPATH: '/nonexistent' } }).toString();
    const info = JSON.parse(stdout) as { version: number[]; implementation: string };
    assert.equal(info.version[0], 3);
    assert.equal(info.implementation, 'cpython');
  });
});
