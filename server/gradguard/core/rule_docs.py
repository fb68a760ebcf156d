"""The rule reference (`docs/rules.md`), rendered from the rules' own docstrings."""

from __future__ import annotations

from gradguard.core.rule import Rule, all_rules

HEADER = """# GradGuard rules

Generated from the rule modules by `python -m gradguard.core.rule_docs > docs/rules.md`;
do not edit by hand. `gradguard rule CODE` prints one rule's section. How often each rule
is right and how much it finds on the project's labelled corpus: [precision.md](precision.md).

| Code | Name | Severity | Summary | Fix |
|---|---|---|---|---|
"""


def _fix_column(rule: Rule) -> str:
    safeties = {
        "unsafe" if example.unsafe_fix else "safe" for example in rule.invalid if example.fixed
    }
    return " / ".join(sorted(safeties)) if safeties else "—"


def render(rules: tuple[Rule, ...] | None = None) -> str:
    """The whole reference as Markdown."""
    rules = rules if rules is not None else all_rules()
    rows = [
        f"| [{r.code}](#{r.code.lower()}-{r.name}) | `{r.name}` | {r.severity.value} | "
        f"{r.summary} | {_fix_column(r)} |"
        for r in rules
    ]
    sections = [section(rule) for rule in rules]
    return HEADER + "\n".join(rows) + "\n\n" + "\n\n".join(sections) + "\n"


def section(rule: Rule) -> str:
    """One rule's documentation, headed `## GG201 hidden-state-not-detached`."""
    body = rule.docs.split("\n", 1)[1].strip() if "\n" in rule.docs else ""
    body = body.replace("\n## ", "\n### ")
    if body.startswith("## "):
        body = "#" + body
    return f"## {rule.code} {rule.name}\n\n{body}"


if __name__ == "__main__":
    print(render(), end="")
