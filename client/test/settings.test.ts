import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  DEFAULTS,
  type Inspected,
  needsRestart,
  readSettings,
  resolveVariables,
  serverSettingsChanged,
  settingsWarning,
  toServerSettings,
} from '../src/settings';

const variables = { workspaceFolder: '/ws', userHome: '/home/me', env: { VENV: '/venvs/a' } };

/** An `inspect` function over explicit layers, as VS Code's WorkspaceConfiguration has them. */
function layers(values: Record<string, Inspected>): (key: string) => Inspected | undefined {
  return (key) => values[key] ?? {};
}

describe('readSettings', () => {
  it('gives the declared defaults when nothing is set', () => {
    const { settings, problems } = readSettings(layers({}), true, variables);
    assert.deepEqual(settings, DEFAULTS);
    assert.deepEqual(problems, []);
  });

  it('lets the folder beat the workspace and the workspace beat the user', () => {
    const { settings } = readSettings(
      layers({
        select: { globalValue: ['GG1'], workspaceValue: ['GG2'] },
        ignore: { globalValue: ['GG101'], workspaceValue: ['GG102'], workspaceFolderValue: ['GG103'] },
      }),
      true,
      variables,
    );
    assert.deepEqual(settings.select, ['GG2']);
    assert.deepEqual(settings.ignore, ['GG103']);
  });

  it('upper-cases codes and normalises severities, reporting bad entries', () => {
    const { settings, problems } = readSettings(
      layers({
        select: { globalValue: ['gg2', ' GG101 ', ''] },
        severity: { globalValue: { gg1: 'Information', GG201: 'warning', GG3: 'loud' } },
      }),
      true,
      variables,
    );
    assert.deepEqual(settings.select, ['GG2', 'GG101']);
    assert.deepEqual(settings.severity, { GG1: 'info', GG201: 'warning' });
    assert.equal(problems.length, 1);
    assert.match(problems[0] ?? '', /GG3/);
  });

  it('falls back to the default for a value of the wrong type', () => {
    const { settings, problems } = readSettings(
      layers({ debounceMs: { globalValue: 'fast' }, scope: { globalValue: 'everything' }, enable: { globalValue: 1 } }),
      true,
      variables,
    );
    assert.equal(settings.debounceMs, 150);
    assert.equal(settings.scope, 'openFiles');
    assert.equal(settings.enable, true);
    assert.equal(problems.length, 3);
  });

  it('resolves variables in interpreter and path entries', () => {
    const { settings } = readSettings(
      layers({
        interpreter: { globalValue: ['${env:VENV}/bin/python', '-X', 'utf8'] },
        path: { workspaceValue: ['${workspaceFolder}/bin/gradguard', '~/bin/gradguard'] },
      }),
      true,
      variables,
    );
    assert.deepEqual(settings.interpreter, ['/venvs/a/bin/python', '-X', 'utf8']);
    assert.deepEqual(settings.path, ['/ws/bin/gradguard', '/home/me/bin/gradguard']);
  });

  it('ignores workspace-level interpreter, path and importStrategy in an untrusted workspace', () => {
    const config = layers({
      interpreter: { globalValue: ['/usr/bin/python3'], workspaceValue: ['./evil/python'] },
      path: { workspaceFolderValue: ['./evil/gradguard'] },
      importStrategy: { globalValue: 'fromEnvironment', workspaceValue: 'fromEnvironment' },
      select: { workspaceValue: ['GG2'] },
    });
    const untrusted = readSettings(config, false, variables).settings;
    assert.deepEqual(untrusted.interpreter, ['/usr/bin/python3']);
    assert.deepEqual(untrusted.path, []);
    assert.equal(untrusted.importStrategy, 'useBundled');
    assert.deepEqual(untrusted.select, ['GG2'], 'rule settings still apply');

    const trusted = readSettings(config, true, variables).settings;
    assert.deepEqual(trusted.interpreter, ['./evil/python']);
    assert.equal(trusted.importStrategy, 'fromEnvironment');
  });
});

describe('toServerSettings', () => {
  it('leaves unset rule keys out so that pyproject.toml decides', () => {
    assert.deepEqual(toServerSettings(DEFAULTS), { debounceMs: 150, scope: 'openFiles' });
  });

  it('sends what the user set, and only the server keys', () => {
    const { settings } = readSettings(
      layers({
        select: { globalValue: ['GG2'] },
        unsafeFixes: { workspaceValue: false },
        severity: { globalValue: { GG201: 'hint' } },
        interpreter: { globalValue: ['/usr/bin/python3'] },
        debounceMs: { globalValue: 0 },
      }),
      true,
      variables,
    );
    assert.deepEqual(toServerSettings(settings), {
      select: ['GG2'],
      severity: { GG201: 'hint' },
      unsafeFixes: false,
      debounceMs: 0,
      scope: 'openFiles',
    });
  });

  it('sends workspaceIndex only when the user turns it off', () => {
    const { settings } = readSettings(
      layers({ workspaceIndex: { workspaceValue: false } }),
      true,
      variables,
    );
    assert.deepEqual(toServerSettings(settings), {
      debounceMs: 150,
      scope: 'openFiles',
      workspaceIndex: false,
    });
  });
});

describe('restart or notify', () => {
  const base = { ...DEFAULTS };
  it('restarts for a new interpreter, strategy, path or enable', () => {
    assert.equal(needsRestart(base, { ...base, interpreter: ['/usr/bin/python3.12'] }), true);
    assert.equal(needsRestart(base, { ...base, importStrategy: 'fromEnvironment' }), true);
    assert.equal(needsRestart(base, { ...base, path: ['/bin/gradguard'] }), true);
    assert.equal(needsRestart(base, { ...base, enable: false }), true);
  });

  it('sends rule settings to the running server instead', () => {
    const changed = { ...base, select: ['GG1'], debounceMs: 10 };
    assert.equal(needsRestart(base, changed), false);
    assert.equal(serverSettingsChanged(base, changed), true);
  });

  it('does neither for a client-only setting', () => {
    const changed = { ...base, fixAll: false, showNotifications: 'off' as const };
    assert.equal(needsRestart(base, changed), false);
    assert.equal(serverSettingsChanged(base, changed), false);
  });
});

describe('resolveVariables', () => {
  it('leaves unknown variables and a missing workspace alone', () => {
    assert.equal(resolveVariables('${workspaceFolder}/x', { env: {} }), '${workspaceFolder}/x');
    assert.equal(resolveVariables('${foo}/x', variables), '${foo}/x');
    assert.equal(resolveVariables('${env:NOPE}/x', variables), '/x');
  });
});

describe('settingsWarning', () => {
  it('names every invalid setting once, in one warning', () => {
    const { problems } = readSettings(
      layers({ scope: { workspaceValue: 'everywhere' }, debounceMs: { globalValue: -1 } }),
      true,
      variables,
    );
    const shown = new Set<string>();
    const warning = settingsWarning(problems, shown);
    assert.match(warning ?? '', /gradguard\.scope: ignoring invalid value "everywhere"/);
    assert.match(warning ?? '', /gradguard\.debounceMs/);
    assert.equal(settingsWarning(problems, shown), undefined, 'the same problems are not shown twice');
    const more = settingsWarning([...problems, 'gradguard.fixAll: ignoring invalid value 3'], shown);
    assert.equal(more, 'GradGuard: ignoring invalid settings (the defaults apply instead): gradguard.fixAll: ignoring invalid value 3');
  });

  it('shows nothing for valid settings', () => {
    const { problems } = readSettings(layers({ scope: { workspaceValue: 'workspace' } }), true, variables);
    assert.equal(settingsWarning(problems, new Set()), undefined);
  });
});
