// The rule list for "GradGuard: Show Rule Documentation", asked of the Python package itself
// (`gradguard.core.rule.all_rules()`), so the rules and their docs live in one place. Pure.

/** One rule as the quick pick shows it. */
export interface RuleInfo {
  code: string;
  name: string;
  summary: string;
  /** The rule's documentation as a markdown page (title, docs, link). */
  markdown: string;
}

/** A Python snippet (for `python -c`) that prints every rule as one JSON array. */
export const RULES_SCRIPT = [
  'import json',
  'from gradguard.core.rule import all_rules',
  'print(json.dumps([{"code": r.code, "name": r.name, "summary": r.summary, "docs": r.docs,',
  '                   "url": r.url} for r in all_rules()]))',
].join('\n');

/** Parse the snippet's output into rules sorted by code; throws on anything unexpected. */
export function parseRuleList(stdout: string): RuleInfo[] {
  const raw: unknown = JSON.parse(stdout.trim().split(/\r?\n/).pop() ?? '');
  if (!Array.isArray(raw)) {
    throw new Error('the rule list is not a JSON array');
  }
  const rules = raw.map((entry: unknown): RuleInfo => {
    const rule = entry as Record<string, unknown>;
    const text = (key: string): string => (typeof rule[key] === 'string' ? (rule[key] as string) : '');
    if (!text('code')) {
      throw new Error(`a rule without a code: ${JSON.stringify(entry)}`);
    }
    const link = text('url') ? `\n\n[Online documentation](${text('url')})\n` : '\n';
    // Docs that open with a line naming the rule get that line replaced by the page title.
    const docs = text('docs').trim().replace(new RegExp(`^[^\\n]*\\b${text('code')}\\b[^\\n]*\\n*`), '');
    return {
      code: text('code'),
      name: text('name'),
      summary: text('summary'),
      markdown: `# ${text('code')} \`${text('name')}\`\n\n${docs}${link}`,
    };
  });
  return rules.sort((a, b) => a.code.localeCompare(b.code));
}
