// The rule list for "GradGuard: Show Rule Documentation", asked of the server's own command
// line (`gradguard rule --all --output-format json`), so rules and docs live in one place. Pure.

/** One rule as the quick pick shows it. */
export interface RuleInfo {
  code: string;
  name: string;
  summary: string;
  /** The rule's documentation as a markdown page (title, docs, link). */
  markdown: string;
}

/** Parse `gradguard rule --all --output-format json` into rules sorted by code; throws on anything unexpected. */
export function parseRuleList(stdout: string): RuleInfo[] {
  const raw: unknown = JSON.parse(stdout);
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
    const docs = text('explanation').trim().replace(new RegExp(`^[^\\n]*\\b${text('code')}\\b[^\\n]*\\n*`), '');
    return {
      code: text('code'),
      name: text('name'),
      summary: text('summary'),
      markdown: `# ${text('code')} \`${text('name')}\`\n\n${docs}${link}`,
    };
  });
  return rules.sort((a, b) => a.code.localeCompare(b.code));
}
