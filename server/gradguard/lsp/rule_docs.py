"""A rule's documentation as hover markdown (hovering a code in a `# noqa` comment).

A rule's docs begin with its own title line (`GG201 `hidden-state-not-detached``), which
the hover shows once, as its heading: the body below it starts at the first section.
"""

from __future__ import annotations

from gradguard.core.rule import Rule


def hover_markdown(rule: Rule) -> str:
    """`**GG201** `name``, the documentation without its title line, and a link to it."""
    body = rule.docs
    first, _, rest = body.partition("\n")
    if first.strip() == f"{rule.code} `{rule.name}`":
        body = rest.strip()
    heading = f"**{rule.code}** `{rule.name}`"
    return f"{heading}\n\n{body}\n\n[Documentation]({rule.url})" if body else heading
