"""A deliberately broken rule: it writes to stdout (the JSON-RPC channel) and raises."""

from __future__ import annotations

from collections.abc import Iterable

from gradguard.core.findings import Finding
from gradguard.core.rule import Rule, RuleContext


class Crashes(Rule):
    """Always crashes."""

    code = "GG999"
    name = "always-crashes"
    summary = "A rule with a bug."

    def check(self, ctx: RuleContext) -> Iterable[Finding]:
        print("a stray print from a rule")
        raise RuntimeError("boom")
