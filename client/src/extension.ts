// Entry point: the output channel, the commands, and the events that restart or reconfigure
// the server. Everything GradGuard knows about PyTorch lives in the Python server.

import * as vscode from 'vscode';
import { parseRuleList, type RuleInfo } from './rules';
import { type PythonEnvironmentSource, ServerController } from './server';

const PYTHON_EXTENSION_ID = 'ms-python.python';

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const log = vscode.window.createOutputChannel('GradGuard', { log: true });
  const python = await connectPythonExtension(context, log, () => void controller.restart('Python environment changed'));
  const controller = new ServerController(context, log, python);

  context.subscriptions.push(
    log,
    controller,
    vscode.commands.registerCommand('gradguard.restart', () => controller.restart('restart command')),
    vscode.commands.registerCommand('gradguard.showLogs', () => log.show()),
    vscode.commands.registerCommand('gradguard.fixAll', () => controller.fixAll()),
    vscode.commands.registerCommand('gradguard.showRuleDocs', () => showRuleDocs(controller, log)),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration('gradguard')) {
        void controller.settingsChanged();
      }
    }),
    vscode.workspace.onDidGrantWorkspaceTrust(() => controller.restart('workspace trusted')),
    vscode.workspace.registerTextDocumentContentProvider(RULE_SCHEME, rulePages),
  );
  await controller.restart('activation');
}

export function deactivate(): void {
  // The controller is in context.subscriptions: VS Code disposes of it, which stops the server.
}

/**
 * Follow the Python extension's active environment when it is installed. It is optional
 * (code-server and many editors have none): without it the source answers `undefined`.
 */
async function connectPythonExtension(
  context: vscode.ExtensionContext,
  log: vscode.LogOutputChannel,
  onChange: () => void,
): Promise<PythonEnvironmentSource> {
  if (!vscode.extensions.getExtension(PYTHON_EXTENSION_ID)) {
    log.info('The Python extension is not installed; using gradguard.interpreter or python3 on PATH.');
    return async () => undefined;
  }
  try {
    // Imported lazily: the module's top level asks VS Code for the Python extension.
    const { PythonExtension } = await import('@vscode/python-extension');
    const api = await PythonExtension.api();
    context.subscriptions.push(api.environments.onDidChangeActiveEnvironmentPath(() => onChange()));
    return async (resource) => {
      const active = api.environments.getActiveEnvironmentPath(resource);
      const resolved = await api.environments.resolveEnvironment(active);
      const executable = resolved?.executable.uri?.fsPath;
      return executable ? [executable] : undefined;
    };
  } catch (error) {
    log.warn(`Could not use the Python extension's API: ${String(error)}`);
    return async () => undefined;
  }
}

/** Pick a rule from the server's list and show its documentation as rendered markdown. */
async function showRuleDocs(controller: ServerController, log: vscode.LogOutputChannel): Promise<void> {
  let rules: RuleInfo[];
  try {
    rules = parseRuleList(await controller.runCli(['rule', '--all', '--output-format', 'json']));
  } catch (error) {
    log.error(`Listing rules: ${String(error)}`);
    void vscode.window.showErrorMessage(`GradGuard: could not list the rules (${String(error)}).`);
    return;
  }
  const picked = await vscode.window.showQuickPick(
    rules.map((rule) => ({ label: rule.code, description: rule.name, detail: rule.summary, rule })),
    { placeHolder: 'GradGuard rule', matchOnDescription: true, matchOnDetail: true },
  );
  if (!picked) {
    return;
  }
  pages.set(picked.rule.code, picked.rule.markdown);
  await vscode.commands.executeCommand('markdown.showPreview', vscode.Uri.from({ scheme: RULE_SCHEME, path: `${picked.rule.code}.md` }));
}

/** Rule pages as read-only virtual documents (an untitled one would ask to be saved). */
const RULE_SCHEME = 'gradguard-rule';
const pages = new Map<string, string>();
const rulePages: vscode.TextDocumentContentProvider = {
  provideTextDocumentContent: (uri) => pages.get(uri.path.replace(/\.md$/, '')) ?? '',
};
