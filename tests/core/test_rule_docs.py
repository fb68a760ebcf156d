"""docs/rules.md and the README's catalogue table are generated from the rules and must
match them (`scripts/regen-docs` regenerates both)."""

from __future__ import annotations

from pathlib import Path

from gradguard.core import rule_docs
from gradguard.core.rule import all_rules

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs" / "rules.md"
README = ROOT / "README.md"


def test_rules_reference_is_up_to_date() -> None:
    expected = rule_docs.render()
    assert DOCS.read_text(encoding="utf-8") == expected, (
        "docs/rules.md is stale: run `scripts/regen-docs`"
    )


def test_readme_catalogue_table_is_up_to_date() -> None:
    readme = README.read_text(encoding="utf-8")
    assert rule_docs.with_readme_table(readme) == readme, (
        "the README's rule table is stale: run `scripts/regen-docs`"
    )
    assert all(f"| {rule.code} |" in readme for rule in all_rules())


def test_every_rule_url_points_at_its_section() -> None:
    text = DOCS.read_text(encoding="utf-8")
    for rule in all_rules():
        anchor = rule.url.rsplit("#", 1)[1]
        assert f"## {rule.code} {rule.name}" in text
        assert anchor == f"{rule.code.lower()}-{rule.name}"
