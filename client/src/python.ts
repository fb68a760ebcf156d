// How the server is started: which program, with which arguments and environment, and how to
// tell the user plainly when the chosen Python cannot run GradGuard. Pure: no `vscode` import.

import type { ExtensionSettings } from './settings';

/**
 * The oldest and newest CPython the platform packages carry native wheels (libcst) for. The
 * universal package carries no native code and uses libcst from the chosen environment.
 */
export const BUNDLED_PYTHON = { min: [3, 10], max: [3, 14] } as const;

/** How to install GradGuard into `python`: from PyPI (every release), or from a clone. */
function installHint(python: string): string {
  return `"${python} -m pip install gradguard" (or "${python} -m pip install ." in a GradGuard clone)`;
}

/** `python -m gradguard ARGS` is the `gradguard` command; `lsp` starts the language server. */
export const CLI_MODULE_ARGS: readonly string[] = ['-m', 'gradguard'];

export type InterpreterSource =
  | 'gradguard.path'
  | 'gradguard.interpreter'
  | 'the Python extension'
  | 'python3 on PATH';

/** Everything needed to spawn the server, plus where the choice came from (for messages). */
export interface LaunchPlan {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
  source: InterpreterSource;
  /** `path` means a `gradguard` executable was configured and no Python is chosen by the client. */
  strategy: 'useBundled' | 'fromEnvironment' | 'path';
  /** The interpreter and its arguments, without the server module (absent for `path`). */
  python?: string[];
  /** `gradguard.path` entries passed over because they are missing or not executable. */
  skippedPaths?: string[];
}

export interface LaunchInputs {
  settings: Pick<ExtensionSettings, 'interpreter' | 'importStrategy' | 'path'>;
  trusted: boolean;
  /** The Python extension's active interpreter (executable plus arguments), if it has one. */
  pythonExtension?: string[];
  /** `<extension>/bundled/libs`. */
  bundledLibs: string;
  /** The extension's own folder: the bundled server's working directory. */
  extensionPath: string;
  workspaceFolder?: string;
  env: Record<string, string | undefined>;
  /** Whether a configured `gradguard.path` entry exists and is executable. */
  isExecutable: (path: string) => boolean;
}

/** Decide how to start the server. */
export function planLaunch(inputs: LaunchInputs): LaunchPlan {
  const env = definedOnly(inputs.env);
  const found = inputs.settings.path.findIndex(inputs.isExecutable);
  const skippedPaths = inputs.settings.path.slice(0, found < 0 ? undefined : found);
  if (found >= 0) {
    const command = inputs.settings.path[found];
    return { command, args: ['lsp'], env, cwd: inputs.workspaceFolder, source: 'gradguard.path', strategy: 'path', skippedPaths };
  }
  const [python, source] = chooseInterpreter(inputs);
  const bundled = !inputs.trusted || inputs.settings.importStrategy === 'useBundled';
  return {
    command: python[0],
    args: [...python.slice(1), ...CLI_MODULE_ARGS, 'lsp'],
    // `python -m` puts the working directory first on sys.path, so a workspace's `types.py`,
    // `functools.py` or `gradguard/` would be imported instead of the real ones: never run in
    // the workspace, and ask for a safe path (PYTHONSAFEPATH, Python 3.11+) as well. The
    // bundled server also gets our libraries first and no user site-packages.
    env: bundled
      ? { ...env, PYTHONPATH: inputs.bundledLibs, PYTHONNOUSERSITE: '1', PYTHONSAFEPATH: '1' }
      : { ...env, PYTHONSAFEPATH: '1' },
    cwd: inputs.extensionPath,
    source,
    strategy: bundled ? 'useBundled' : 'fromEnvironment',
    python,
    skippedPaths,
  };
}

/** A warning naming the `gradguard.path` entries that were passed over; `undefined` if none. */
export function skippedPathWarning(plan: LaunchPlan): string | undefined {
  const skipped = plan.skippedPaths ?? [];
  if (skipped.length === 0) {
    return undefined;
  }
  const entries = skipped.map((entry) => `"${entry}"`).join(', ');
  const what = skipped.length === 1 ? 'entry' : 'entries';
  const using = (plan.python ?? [plan.command]).join(' ');
  return `GradGuard: skipped "gradguard.path" ${what} ${entries}: not found or not executable. Using "${using}" (from ${plan.source}) instead.`;
}

/** The interpreter setting, else the Python extension's environment, else `python3` on PATH. */
export function chooseInterpreter(
  inputs: Pick<LaunchInputs, 'settings' | 'pythonExtension' | 'trusted'>,
): [string[], InterpreterSource] {
  if (inputs.settings.interpreter.length > 0) {
    return [inputs.settings.interpreter, 'gradguard.interpreter'];
  }
  // In restricted mode the Python extension's choice may be an interpreter inside the untrusted
  // workspace (.venv/bin/python), so it is not used.
  if (inputs.trusted && inputs.pythonExtension && inputs.pythonExtension.length > 0) {
    return [inputs.pythonExtension, 'the Python extension'];
  }
  return [['python3'], 'python3 on PATH'];
}

/**
 * A Python snippet (for `python -c`) that reports, as one JSON line, the interpreter's version and
 * whether GradGuard's server and its dependencies import. It imports no user code.
 */
export const PROBE_SCRIPT = [
  'import json, sys',
  'info = {"version": list(sys.version_info[:3]), "implementation": sys.implementation.name,',
  '        "executable": sys.executable}',
  'try:',
  '    import gradguard, pygls, lsprotocol, libcst',
  '    import libcst.native',
  '    info["gradguard"] = getattr(gradguard, "__version__", "?")',
  'except BaseException as exc:',
  '    info["error"] = f"{type(exc).__name__}: {exc}"',
  'print(json.dumps(info))',
].join('\n');

/** The probe's answer, or how running it failed. */
export type ProbeOutcome =
  | { kind: 'ran'; stdout: string; stderr: string; exitCode: number | null }
  | { kind: 'spawnError'; code?: string; message: string };

interface ProbeInfo {
  version: number[];
  implementation: string;
  executable: string;
  gradguard?: string;
  error?: string;
}

/**
 * Explain, in one paragraph with what to do, why `plan` cannot run GradGuard; `undefined` when
 * it can.
 */
export function explainProbe(plan: LaunchPlan, outcome: ProbeOutcome): string | undefined {
  const shown = (plan.python ?? [plan.command]).join(' ');
  const pick =
    plan.source === 'gradguard.interpreter'
      ? 'Change "gradguard.interpreter"'
      : 'Set "gradguard.interpreter" to a Python 3.10+ interpreter (or select one with the Python extension)';
  if (outcome.kind === 'spawnError') {
    const missing = outcome.code === 'ENOENT';
    const what = missing ? 'was not found' : `could not be started (${outcome.message})`;
    if (plan.strategy === 'path') {
      return `GradGuard: "${shown}" (from gradguard.path) ${what}. Fix or clear "gradguard.path".`;
    }
    return `GradGuard cannot start: the Python interpreter "${shown}" (from ${plan.source}) ${what}. ${pick}, then run "GradGuard: Restart Server".`;
  }
  if (plan.strategy === 'path') {
    return undefined;
  }
  const info = parseProbe(outcome.stdout);
  if (!info) {
    const detail = lastLine(outcome.stderr) ?? `exit status ${outcome.exitCode}`;
    return `GradGuard cannot start: "${shown}" (from ${plan.source}) did not run as a Python interpreter (${detail}). ${pick}.`;
  }
  const version = info.version.slice(0, 2).join('.');
  if (compare(info.version, BUNDLED_PYTHON.min) < 0) {
    return `GradGuard needs Python 3.10 or newer, but "${shown}" (from ${plan.source}) is Python ${version}. ${pick}.`;
  }
  if (plan.strategy === 'useBundled') {
    // Whatever loads is fine: also the universal package on the user's own libcst (any version).
    if (!info.error) {
      return undefined;
    }
    // Only the universal package leaves libcst out (platform packages bundle it).
    if (info.error.includes("No module named 'libcst'")) {
      return `The universal GradGuard package uses libcst from your Python environment, and "${shown}" (from ${plan.source}) has none. Run "${shown} -m pip install libcst", or install the GradGuard package built for your platform.`;
    }
    const supported = info.implementation === 'cpython' && compare(info.version, BUNDLED_PYTHON.max) <= 0;
    if (!supported) {
      return (
        `The GradGuard server bundled with the extension runs on CPython 3.10 to 3.14, but "${shown}" ` +
        `(from ${plan.source}) is ${info.implementation} ${version}. ${pick}, or run ` +
        `${installHint(shown)} and set "gradguard.importStrategy" to "fromEnvironment".`
      );
    }
    return `The GradGuard server bundled with the extension failed to load in "${shown}" (${info.error}). Reinstall the extension, or set "gradguard.importStrategy" to "fromEnvironment".`;
  }
  if (info.error) {
    return (
      `GradGuard is not installed in "${shown}" (from ${plan.source}): ${info.error}. Run ` +
      `${installHint(shown)}, or set "gradguard.importStrategy" to "useBundled".`
    );
  }
  return undefined;
}

function parseProbe(stdout: string): ProbeInfo | undefined {
  const line = lastLine(stdout);
  if (line === undefined) {
    return undefined;
  }
  try {
    const info = JSON.parse(line) as Partial<ProbeInfo>;
    if (!Array.isArray(info.version) || typeof info.implementation !== 'string') {
      return undefined;
    }
    return info as ProbeInfo;
  } catch {
    return undefined;
  }
}

function lastLine(text: string): string | undefined {
  const lines = text.split(/\r?\n/).map((l) => l.trim()).filter((l) => l.length > 0);
  return lines[lines.length - 1];
}

function compare(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < b.length; i++) {
    const diff = (a[i] ?? 0) - (b[i] ?? 0);
    if (diff !== 0) {
      return diff;
    }
  }
  return 0;
}

function definedOnly(env: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (value !== undefined) {
      out[key] = value;
    }
  }
  return out;
}
