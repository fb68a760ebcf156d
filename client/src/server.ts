// Owns the language client: starts `gradguard lsp` the way python.ts plans it, passes settings
// on, restarts it when the program to run changes, and reports start-up problems once.

import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import {
  type ClientCapabilities,
  DidChangeConfigurationNotification,
  ExecuteCommandRequest,
  type FeatureState,
  LanguageClient,
  type LanguageClientOptions,
  RevealOutputChannelOn,
  type ServerCapabilities,
  type StaticFeature,
} from 'vscode-languageclient/node';
import { clientOutputChannel } from './output';
import {
  CLI_MODULE_ARGS,
  type LaunchPlan,
  type ProbeOutcome,
  PROBE_SCRIPT,
  explainProbe,
  planLaunch,
  skippedPathWarning,
} from './python';
import {
  type ExtensionSettings,
  needsRestart,
  readSettings,
  serverSettingsChanged,
  settingsWarning,
  toServerSettings,
} from './settings';

const PROBE_TIMEOUT_MS = 30_000;

/** Returns the Python extension's active interpreter for a resource, if there is one. */
export type PythonEnvironmentSource = (resource?: vscode.Uri) => Promise<string[] | undefined>;

export class ServerController implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private plan: LaunchPlan | undefined;
  private settings: ExtensionSettings;
  /** Start-up problems already shown to the user: each is shown once per session. */
  private readonly shown = new Set<string>();
  /** Starts and stops run one at a time, in order. */
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly log: vscode.LogOutputChannel,
    private readonly pythonEnvironment: PythonEnvironmentSource,
  ) {
    this.settings = this.readSettings();
  }

  /** (Re)start the server with the current settings and environment. */
  restart(reason: string): Promise<void> {
    this.queue = this.queue.then(async () => {
      await this.stop();
      this.settings = this.readSettings();
      if (!this.settings.enable) {
        this.log.info(`Not starting the server: gradguard.enable is false (${reason}).`);
        return;
      }
      this.log.info(`Starting the server (${reason}).`);
      await this.start();
    });
    return this.queue.catch((error: unknown) => this.log.error(`Restart failed: ${String(error)}`));
  }

  /** React to a change of `gradguard.*`: restart, or tell the running server. */
  async settingsChanged(): Promise<void> {
    const before = this.settings;
    const after = this.readSettings();
    if (needsRestart(before, after)) {
      return this.restart('settings changed');
    }
    this.settings = after;
    if (this.client?.isRunning() && serverSettingsChanged(before, after)) {
      this.log.info(`Sending new settings: ${JSON.stringify(toServerSettings(after))}`);
      await this.client.sendNotification(DidChangeConfigurationNotification.type, {
        settings: { gradguard: toServerSettings(after) },
      });
    }
  }

  /** Apply every safe fix (and unsafe ones when enabled) to the active document. */
  async fixAll(): Promise<void> {
    const document = vscode.window.activeTextEditor?.document;
    if (!document || document.languageId !== 'python') {
      void vscode.window.showInformationMessage('GradGuard: open a Python file or notebook cell to fix.');
      return;
    }
    if (!this.client?.isRunning()) {
      void vscode.window.showWarningMessage('GradGuard: the server is not running. See "GradGuard: Show Logs".');
      return;
    }
    await this.client.sendRequest(ExecuteCommandRequest.type, {
      command: 'gradguard.applyFixAll',
      arguments: [{ uri: document.uri.toString(), version: document.version }],
    });
  }

  /** Run `gradguard ARGS` (the CLI) with the server's interpreter and libraries; returns stdout. */
  async runCli(args: string[]): Promise<string> {
    const plan = this.plan ?? (await this.makePlan());
    const argv = plan.python ? [...plan.python.slice(1), ...CLI_MODULE_ARGS, ...args] : args;
    const outcome = await run(plan.command, argv, plan);
    if (outcome.kind === 'spawnError') {
      throw new Error(outcome.message);
    }
    if (outcome.exitCode !== 0) {
      throw new Error(`gradguard ${args.join(' ')} exited with ${outcome.exitCode}: ${outcome.stderr.trim()}`);
    }
    return outcome.stdout;
  }

  dispose(): void {
    void this.stop();
  }

  private async start(): Promise<void> {
    const plan = await this.makePlan();
    this.plan = plan;
    const skipped = skippedPathWarning(plan);
    if (skipped) {
      this.warn(skipped);
    }
    this.log.info(`Server command: ${plan.command} ${plan.args.join(' ')} (${plan.strategy}, from ${plan.source})`);
    if (plan.strategy === 'useBundled') {
      this.log.info(`PYTHONPATH=${plan.env.PYTHONPATH}`);
    }
    if (plan.strategy !== 'path') {
      const outcome = await run(plan.command, [...(plan.python ?? []).slice(1), '-c', PROBE_SCRIPT], plan);
      const problem = explainProbe(plan, outcome);
      if (problem) {
        this.report(problem);
        return;
      }
      if (outcome.kind === 'ran') {
        this.log.info(`Interpreter: ${outcome.stdout.trim()}`);
      }
    }
    const client = new LanguageClient(
      'gradguard',
      'GradGuard',
      { command: plan.command, args: plan.args, options: { env: plan.env, cwd: plan.cwd } },
      this.clientOptions(),
    );
    client.registerFeature(new PushDiagnostics());
    this.client = client;
    try {
      await client.start();
    } catch (error) {
      this.report(`GradGuard: the server failed to start (${String(error)}). See "GradGuard: Show Logs".`);
      return;
    }
    if (this.settings.showNotifications === 'always') {
      void vscode.window.showInformationMessage('GradGuard server started.');
    }
  }

  private async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client) {
      try {
        await client.dispose(2000);
      } catch (error) {
        this.log.warn(`Stopping the server: ${String(error)}`);
      }
    }
  }

  private clientOptions(): LanguageClientOptions {
    return {
      documentSelector: [
        { scheme: 'file', language: 'python' },
        { scheme: 'untitled', language: 'python' },
        { notebook: 'jupyter-notebook', language: 'python' },
      ],
      // The client's lines at their own level (a restart's "exited with code 0" is not an error).
      outputChannel: clientOutputChannel(this.log),
      traceOutputChannel: this.log,
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      initializationOptions: toServerSettings(this.settings),
      middleware: {
        provideCodeActions: async (document, range, context, token, next) => {
          const actions = await next(document, range, context, token);
          if (this.settings.fixAll || !actions) {
            return actions;
          }
          // gradguard.fixAll=false: leave source.fixAll to other tools (or to nobody).
          return actions.filter(
            (action) => !('kind' in action && action.kind && vscode.CodeActionKind.SourceFixAll.contains(action.kind)),
          );
        },
        workspace: {
          // A server that pulls its settings gets the same mapped values as initializationOptions.
          configuration: async (params, token, next) => {
            const result = await next(params, token);
            if (!Array.isArray(result)) {
              return result;
            }
            return result.map((value: unknown, i) =>
              params.items[i]?.section === 'gradguard' ? toServerSettings(this.settings) : value,
            );
          },
        },
      },
    };
  }

  private async makePlan(): Promise<LaunchPlan> {
    const folder = vscode.workspace.workspaceFolders?.[0];
    return planLaunch({
      settings: this.settings,
      trusted: vscode.workspace.isTrusted,
      pythonExtension: this.settings.interpreter.length > 0 ? undefined : await this.pythonEnvironment(folder?.uri),
      bundledLibs: path.join(this.context.extensionPath, 'bundled', 'libs'),
      extensionPath: this.context.extensionPath,
      workspaceFolder: folder?.uri.fsPath,
      env: process.env,
      isExecutable,
    });
  }

  private readSettings(): ExtensionSettings {
    const folder = vscode.workspace.workspaceFolders?.[0];
    const config = vscode.workspace.getConfiguration('gradguard', folder?.uri);
    const { settings, problems } = readSettings((key) => config.inspect(key), vscode.workspace.isTrusted, {
      workspaceFolder: folder?.uri.fsPath,
      userHome: os.homedir(),
      env: process.env,
    });
    problems.forEach((problem) => this.log.warn(problem));
    const warning = settings.showNotifications === 'off' ? undefined : settingsWarning(problems, this.shown);
    if (warning !== undefined) {
      void vscode.window.showWarningMessage(warning);
    }
    return settings;
  }

  /** Log a configuration problem GradGuard worked around, and show it once unless notifications are off. */
  private warn(message: string): void {
    this.log.warn(message);
    if (this.settings.showNotifications === 'off' || this.shown.has(message)) {
      return;
    }
    this.shown.add(message);
    void vscode.window.showWarningMessage(message, 'Open Settings').then((choice) => {
      if (choice === 'Open Settings') {
        void vscode.commands.executeCommand('workbench.action.openSettings', 'gradguard.path');
      }
    });
  }

  /** Log a problem, and show it once unless notifications are off. */
  private report(message: string): void {
    this.log.error(message);
    if (this.settings.showNotifications === 'off' || this.shown.has(message)) {
      return;
    }
    this.shown.add(message);
    void vscode.window.showErrorMessage(message, 'Show Logs', 'Open Settings').then((choice) => {
      if (choice === 'Show Logs') {
        this.log.show();
      } else if (choice === 'Open Settings') {
        void vscode.commands.executeCommand('workbench.action.openSettings', 'gradguard.');
      }
    });
  }
}

/**
 * Diagnostics by push only. vscode-languageclient 9 pulls diagnostics (textDocument/diagnostic)
 * for text documents it opened itself, never for notebook cells, so with pull a notebook shows
 * nothing. Registered after the built-in features, this hides pull support from the server
 * (client capabilities) and the server's pull support from the client (before features start).
 */
class PushDiagnostics implements StaticFeature {
  getState(): FeatureState {
    return { kind: 'static' };
  }

  fillClientCapabilities(capabilities: ClientCapabilities): void {
    delete capabilities.textDocument?.diagnostic;
    delete capabilities.workspace?.diagnostics;
  }

  preInitialize(capabilities: ServerCapabilities): void {
    delete capabilities.diagnosticProvider;
  }

  initialize(): void {}

  clear(): void {}
}

/** Run a short helper process (the probe, `gradguard rule`) with the server's environment. */
function run(command: string, args: string[], plan: LaunchPlan): Promise<ProbeOutcome> {
  return new Promise((resolve) => {
    let stdout = '';
    let stderr = '';
    const child = spawn(command, args, {
      env: plan.env,
      cwd: plan.cwd,
      timeout: PROBE_TIMEOUT_MS,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', (error: NodeJS.ErrnoException) =>
      resolve({ kind: 'spawnError', code: error.code, message: error.message }),
    );
    child.on('close', (exitCode) => resolve({ kind: 'ran', stdout, stderr, exitCode }));
  });
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
