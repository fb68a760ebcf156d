import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseRuleList } from '../src/rules';

describe('parseRuleList', () => {
  it('sorts rules by code and renders each page', () => {
    const stdout = JSON.stringify(
      [
        { code: 'GG201', name: 'hidden-state-not-detached', summary: 'carried', explanation: '## What it does\n...', url: 'https://x/gg201' },
        { code: 'GG101', name: 'backward-under-no-grad', summary: 'no grad', explanation: 'Docs', url: '' },
      ],
      null,
      2,
    );
    const rules = parseRuleList(stdout);
    assert.deepEqual(
      rules.map((rule) => rule.code),
      ['GG101', 'GG201'],
    );
    assert.equal(rules[1]?.markdown, '# GG201 `hidden-state-not-detached`\n\n## What it does\n...\n\n[Online documentation](https://x/gg201)\n');
    assert.equal(rules[0]?.markdown, '# GG101 `backward-under-no-grad`\n\nDocs\n');
  });

  it('does not repeat a title line the docs already have', () => {
    const [rule] = parseRuleList(JSON.stringify([{ code: 'GG201', name: 'n', summary: '', explanation: 'GG201 `n`\n\n## What it does\nx', url: '' }]));
    assert.equal(rule?.markdown, '# GG201 `n`\n\n## What it does\nx\n');
  });

  it('rejects output that is not a rule list', () => {
    assert.throws(() => parseRuleList('{"code": "GG1"}'), /not a JSON array/);
    assert.throws(() => parseRuleList('[{"name": "x"}]'), /without a code/);
    assert.throws(() => parseRuleList('Traceback ...'));
  });
});
