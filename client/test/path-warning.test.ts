import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type LaunchInputs, planLaunch, skippedPathWarning } from '../src/python';

function inputs(path: string[], executable: string[] = []): LaunchInputs {
  return {
    settings: { interpreter: [], importStrategy: 'useBundled', path },
    trusted: true,
    bundledLibs: '/ext/bundled/libs',
    extensionPath: '/ext',
    env: { PATH: '/usr/bin' },
    isExecutable: (file) => executable.includes(file),
  };
}

describe('a gradguard.path entry that points nowhere', () => {
  it('is named in a warning that says what runs instead', () => {
    const warning = skippedPathWarning(planLaunch(inputs(['/opt/nowhere/gradguard'])));
    assert.equal(
      warning,
      'GradGuard: skipped "gradguard.path" entry "/opt/nowhere/gradguard": not found or not executable. ' +
        'Using "python3" (from python3 on PATH) instead.',
    );
  });

  it('is named even when a later entry is used', () => {
    const plan = planLaunch(inputs(['/missing/gradguard', '/bin/gradguard', '/later/gradguard'], ['/bin/gradguard']));
    assert.equal(plan.command, '/bin/gradguard');
    const warning = skippedPathWarning(plan) ?? '';
    assert.match(warning, /entry "\/missing\/gradguard"/);
    assert.match(warning, /Using "\/bin\/gradguard" \(from gradguard.path\)/);
    assert.doesNotMatch(warning, /later/, 'entries after the one used were never tried');
  });

  it('gives no warning when there is nothing to skip', () => {
    assert.equal(skippedPathWarning(planLaunch(inputs([]))), undefined);
    assert.equal(skippedPathWarning(planLaunch(inputs(['/bin/gradguard'], ['/bin/gradguard']))), undefined);
  });
});
