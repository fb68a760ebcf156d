// The extension's settings: read from VS Code's `inspect()` results, validated, and mapped to
// what the server understands. Pure: no `vscode` import, so node's test runner can test it.

export type Severity = 'error' | 'warning' | 'info' | 'hint';
export type ImportStrategy = 'useBundled' | 'fromEnvironment';
export type Scope = 'openFiles' | 'workspace';
export type ShowNotifications = 'off' | 'onError' | 'always';

/** Every `gradguard.*` setting the client reads (`trace.server` is read by vscode-languageclient). */
export interface ExtensionSettings {
  enable: boolean;
  select: string[];
  ignore: string[];
  severity: Record<string, Severity>;
  /** `undefined` when no settings layer sets it, so `pyproject.toml` decides. */
  unsafeFixes: boolean | undefined;
  fixAll: boolean;
  scope: Scope;
  debounceMs: number;
  workspaceIndex: boolean;
  interpreter: string[];
  importStrategy: ImportStrategy;
  path: string[];
  showNotifications: ShowNotifications;
}

/**
 * The settings the server reads (initializationOptions and didChangeConfiguration). Rule keys
 * are left out when unset so that `[tool.gradguard]` in `pyproject.toml` applies.
 */
export interface ServerSettings {
  select?: string[];
  ignore?: string[];
  severity?: Record<string, Severity>;
  unsafeFixes?: boolean;
  debounceMs: number;
  scope: Scope;
  /** Sent only when off (the server's default is on). */
  workspaceIndex?: boolean;
}

/** The shape of `WorkspaceConfiguration.inspect()`, limited to the layers that matter here. */
export interface Inspected {
  defaultValue?: unknown;
  globalValue?: unknown;
  workspaceValue?: unknown;
  workspaceFolderValue?: unknown;
}

export const DEFAULTS: Readonly<ExtensionSettings> = Object.freeze({
  enable: true,
  select: [],
  ignore: [],
  severity: {},
  unsafeFixes: undefined,
  fixAll: true,
  scope: 'openFiles',
  debounceMs: 150,
  workspaceIndex: true,
  interpreter: [],
  importStrategy: 'useBundled',
  path: [],
  showNotifications: 'onError',
});

/** Settings a restricted (untrusted) workspace may not set: they choose what program runs. */
export const RESTRICTED_KEYS: readonly (keyof ExtensionSettings)[] = [
  'interpreter',
  'path',
  'importStrategy',
];

/** Changing one of these means a new server process; everything else is sent to the running one. */
export const RESTART_KEYS: readonly (keyof ExtensionSettings)[] = [
  'enable',
  'interpreter',
  'importStrategy',
  'path',
];

const SEVERITIES: readonly Severity[] = ['error', 'warning', 'info', 'hint'];

export interface ReadResult {
  settings: ExtensionSettings;
  /** One line per ignored value, for the log and a warning (`settingsWarning`): a typo in
   * settings.json should not go unnoticed. */
  problems: string[];
}

/** Variables that may appear in `interpreter` and `path` entries. */
export interface Variables {
  workspaceFolder?: string;
  userHome?: string;
  env: Record<string, string | undefined>;
}

/** Read, validate and resolve every setting; `inspect(key)` is `getConfiguration('gradguard').inspect`. */
export function readSettings(
  inspect: (key: string) => Inspected | undefined,
  trusted: boolean,
  variables: Variables,
): ReadResult {
  const problems: string[] = [];
  const value = (key: keyof ExtensionSettings): unknown => {
    const layers = inspect(key);
    if (!layers) {
      return undefined;
    }
    if (!trusted && RESTRICTED_KEYS.includes(key)) {
      // Restricted mode: only the user's own settings may choose the program GradGuard runs.
      return layers.globalValue;
    }
    return layers.workspaceFolderValue ?? layers.workspaceValue ?? layers.globalValue;
  };
  const pick = <T>(key: keyof ExtensionSettings, check: (v: unknown) => T | undefined): T => {
    const raw = value(key);
    if (raw === undefined || raw === null) {
      return DEFAULTS[key] as T;
    }
    const checked = check(raw);
    if (checked === undefined) {
      problems.push(`gradguard.${key}: ignoring invalid value ${JSON.stringify(raw)}`);
      return DEFAULTS[key] as T;
    }
    return checked;
  };
  const paths = (v: unknown): string[] | undefined =>
    stringList(v)?.map((entry) => resolveVariables(entry, variables));

  const settings: ExtensionSettings = {
    enable: pick('enable', boolean),
    select: pick('select', codeList),
    ignore: pick('ignore', codeList),
    severity: pick('severity', (v) => severityMap(v, problems)),
    unsafeFixes: pick<boolean | undefined>('unsafeFixes', boolean),
    fixAll: pick('fixAll', boolean),
    scope: pick('scope', (v) => oneOf(v, ['openFiles', 'workspace'] as const)),
    debounceMs: pick('debounceMs', (v) =>
      typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.round(v) : undefined,
    ),
    workspaceIndex: pick('workspaceIndex', boolean),
    interpreter: pick('interpreter', paths),
    importStrategy: trusted
      ? pick('importStrategy', (v) => oneOf(v, ['useBundled', 'fromEnvironment'] as const))
      : 'useBundled',
    path: pick('path', paths),
    showNotifications: pick('showNotifications', (v) =>
      oneOf(v, ['off', 'onError', 'always'] as const),
    ),
  };
  return { settings, problems };
}

/** The part of the settings the server receives. */
export function toServerSettings(settings: ExtensionSettings): ServerSettings {
  const out: ServerSettings = { debounceMs: settings.debounceMs, scope: settings.scope };
  if (settings.select.length > 0) {
    out.select = settings.select;
  }
  if (settings.ignore.length > 0) {
    out.ignore = settings.ignore;
  }
  if (Object.keys(settings.severity).length > 0) {
    out.severity = settings.severity;
  }
  if (settings.unsafeFixes !== undefined) {
    out.unsafeFixes = settings.unsafeFixes;
  }
  if (!settings.workspaceIndex) {
    out.workspaceIndex = false;
  }
  return out;
}

/**
 * The warning to show for invalid settings, or `undefined` when there is nothing new to show.
 * Each problem is shown once per session (`shown` remembers them): re-reading the same
 * settings.json after an unrelated change does not show it again.
 */
export function settingsWarning(problems: readonly string[], shown: Set<string>): string | undefined {
  const fresh = problems.filter((problem) => !shown.has(problem));
  if (fresh.length === 0) {
    return undefined;
  }
  fresh.forEach((problem) => shown.add(problem));
  return `GradGuard: ignoring invalid settings (the defaults apply instead): ${fresh.join('; ')}`;
}

/** Whether going from `before` to `after` needs a new server process. */
export function needsRestart(before: ExtensionSettings, after: ExtensionSettings): boolean {
  return RESTART_KEYS.some((key) => JSON.stringify(before[key]) !== JSON.stringify(after[key]));
}

/** Whether the running server must be told about a change from `before` to `after`. */
export function serverSettingsChanged(before: ExtensionSettings, after: ExtensionSettings): boolean {
  return JSON.stringify(toServerSettings(before)) !== JSON.stringify(toServerSettings(after));
}

/** Expand `${workspaceFolder}`, `${userHome}`, `${env:NAME}` and a leading `~`. */
export function resolveVariables(text: string, variables: Variables): string {
  let out = text.replace(/\$\{(workspaceFolder|userHome|env:([A-Za-z_][A-Za-z0-9_]*))\}/g, (all, name: string, envName?: string) => {
    if (envName !== undefined) {
      return variables.env[envName] ?? '';
    }
    const replacement = name === 'workspaceFolder' ? variables.workspaceFolder : variables.userHome;
    return replacement ?? all;
  });
  if (variables.userHome && (out === '~' || out.startsWith('~/'))) {
    out = variables.userHome + out.slice(1);
  }
  return out;
}

function boolean(v: unknown): boolean | undefined {
  return typeof v === 'boolean' ? v : undefined;
}

function oneOf<T extends string>(v: unknown, allowed: readonly T[]): T | undefined {
  return allowed.find((item) => item === v);
}

function stringList(v: unknown): string[] | undefined {
  if (!Array.isArray(v) || !v.every((item) => typeof item === 'string')) {
    return undefined;
  }
  return v.map((item: string) => item.trim()).filter((item) => item.length > 0);
}

/** Rule codes and prefixes are upper-case (`gg2` means `GG2`). */
function codeList(v: unknown): string[] | undefined {
  return stringList(v)?.map((code) => code.toUpperCase());
}

function severityMap(v: unknown, problems: string[]): Record<string, Severity> | undefined {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) {
    return undefined;
  }
  const out: Record<string, Severity> = {};
  for (const [code, level] of Object.entries(v as Record<string, unknown>)) {
    // VS Code calls the third level "information"; the server (and pyproject.toml) say "info".
    const name = typeof level === 'string' ? level.toLowerCase().replace(/^information$/, 'info') : level;
    const severity = oneOf(name, SEVERITIES);
    if (severity === undefined) {
      problems.push(`gradguard.severity: ignoring ${JSON.stringify(code)}: ${JSON.stringify(level)}`);
      continue;
    }
    out[code.trim().toUpperCase()] = severity;
  }
  return out;
}
