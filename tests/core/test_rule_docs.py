"""docs/rules.md is generated from the rules and must match them."""

from __future__ import annotations

from pathlib import Path

from gradguard.core import rule_docs
from gradguard.core.rule import all_rules

DOCS = Path(__file__).resolve().parents[2] / "docs" / "rules.md"


def test_rules_reference_is_up_to_date() -> None:
    expected = rule_docs.render()
    assert DOCS.read_text(encoding="utf-8") == expected, (
        "docs/rules.md is stale: run `python -m gradguard.core.rule_docs > docs/rules.md`"
    )


def test_every_rule_url_points_at_its_section() -> None:
    text = DOCS.read_text(encoding="utf-8")
    for rule in all_rules():
        anchor = rule.url.rsplit("#", 1)[1]
        assert f"## {rule.code} {rule.name}" in text
        assert anchor == f"{rule.code.lower()}-{rule.name}"
