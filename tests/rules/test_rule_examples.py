"""Every rule's own VALID and INVALID examples, through the real engine."""

from __future__ import annotations

import ast

import pytest

from gradguard.core.engine import check_source, fix_source
from gradguard.core.rule import Invalid, Rule, all_rules
from gradguard.core.settings import Settings

RULES = all_rules()


def _only(rule: Rule) -> Settings:
    return Settings(select=(rule.code,))


def _cases(kind: str) -> list[tuple[Rule, int]]:
    return [(rule, i) for rule in RULES for i in range(len(getattr(rule, kind)))]


def test_rules_are_discovered() -> None:
    codes = [rule.code for rule in RULES]
    assert {"GG101", "GG102", "GG201"} <= set(codes)
    assert len(codes) == len(set(codes))


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.code)
def test_rule_has_docs_and_examples(rule: Rule) -> None:
    for heading in (
        "## What it does",
        "## Why is this bad?",
        "## Example",
        "## Use instead",
        "## Fix safety",
    ):
        assert heading in rule.docs, f"{rule.code} docs lack {heading!r}"
    assert rule.valid, f"{rule.code} has no VALID example"
    assert rule.invalid, f"{rule.code} has no INVALID example"
    assert rule.name == rule.name.lower() and " " not in rule.name


@pytest.mark.parametrize(("rule", "index"), _cases("valid"), ids=lambda v: getattr(v, "code", v))
def test_valid_example_is_clean(rule: Rule, index: int) -> None:
    source = rule.valid[index]
    ast.parse(source)
    result = check_source(source, settings=_only(rule))
    assert result.rule_errors == ()
    assert [f.message for f in result.findings] == []


@pytest.mark.parametrize(("rule", "index"), _cases("invalid"), ids=lambda v: getattr(v, "code", v))
def test_invalid_example_is_flagged_and_fixed(rule: Rule, index: int) -> None:
    example: Invalid = rule.invalid[index]
    result = check_source(example.code, settings=_only(rule))
    assert result.rule_errors == ()
    assert result.findings and {f.code for f in result.findings} == {rule.code}, result.findings
    finding = result.findings[0]
    assert finding.message
    assert all(r.message for r in finding.related)
    if example.fixed is None:
        return
    assert finding.fix is not None
    assert (finding.fix.safety.value == "unsafe") == example.unsafe_fix
    fixed = fix_source(example.code, settings=_only(rule), unsafe=True)
    assert fixed.text == example.fixed
    assert fixed.remaining.findings == ()
    if example.unsafe_fix:
        untouched = fix_source(example.code, settings=_only(rule), unsafe=False)
        assert untouched.text == example.code
