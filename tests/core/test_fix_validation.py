"""Every fix is checked centrally before any front end sees it (issue 11).

A rule's fix builder may have a bug on some layout. The engine then offers the finding
without that fix: the edited text must parse and keep every comment. Fix-all drops only the
bad fix and applies the others. The rules here are stand-ins with deliberately broken fixes,
so these tests do not depend on any real builder being wrong.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable

import pytest

from gradguard.core import engine
from gradguard.core.findings import Finding, Fix, Position, Range, Safety, TextEdit
from gradguard.core.fix_validation import FixValidator
from gradguard.core.rule import Rule, RuleContext, all_rules
from gradguard.core.text import SourceText

PROGRAM = """import torch
total = 0  # keep me
value = 1
other = 2
"""


def _line_range(source: SourceText, line: int) -> Range:
    return Range(Position(line, 0), Position(line, len(source.line(line))))


class _Stub(Rule):
    """Flags one line of PROGRAM and offers `new_text` in place of it."""

    code = "GG998"
    name = "stub"
    summary = "test stand-in"
    line = 2
    new_text = "value = 10"

    def check(self, ctx: RuleContext) -> Iterable[Finding]:
        if ctx.source.line(self.line) == self.new_text:
            return  # fixed
        rng = _line_range(ctx.source, self.line)
        fix = Fix("stub fix", Safety.SAFE, (TextEdit(rng, self.new_text),))
        yield self.finding("stub finding", rng, (), [fix])


class _Unparsable(_Stub):
    code = "GG997"
    line = 2
    new_text = "value = (10"


class _DropsComment(_Stub):
    code = "GG996"
    line = 1
    new_text = "total = 0"


class _Good(_Stub):
    code = "GG995"
    line = 3
    new_text = "other = 20"


@pytest.fixture
def stubs(monkeypatch: pytest.MonkeyPatch) -> None:
    rules = (*all_rules(), _Unparsable(), _DropsComment(), _Good())
    monkeypatch.setattr(engine, "all_rules", lambda: rules)


def _fixes_by_code(text: str) -> dict[str, tuple[TextEdit, ...]]:
    result = engine.check_source(text)
    return {f.code: f.fixes[0].edits for f in result.findings if f.fixes}


@pytest.mark.usefixtures("stubs")
def test_a_fix_that_does_not_parse_is_not_offered_but_the_finding_stays() -> None:
    fixes = _fixes_by_code(PROGRAM)
    assert set(fixes) == {"GG997", "GG996", "GG995"}  # every finding is still reported
    assert fixes["GG997"] == ()
    assert fixes["GG995"] != ()


@pytest.mark.usefixtures("stubs")
def test_a_fix_that_loses_a_comment_is_not_offered() -> None:
    assert _fixes_by_code(PROGRAM)["GG996"] == ()


@pytest.mark.usefixtures("stubs")
def test_fix_all_drops_only_the_bad_fixes() -> None:
    fixed = engine.fix_source(PROGRAM)
    assert fixed.applied == 1
    assert fixed.text == PROGRAM.replace("other = 2", "other = 20")


def test_fix_all_drops_a_fix_that_clashes_with_another(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each fix parses alone; together they do not: keep the first, drop the second."""

    class _Continues(_Stub):
        code = "GG994"
        line = 2
        new_text = "value = 1; \\"

    class _Compound(_Stub):
        code = "GG993"
        line = 3
        new_text = "if other:\n    other = 20"

    monkeypatch.setattr(engine, "all_rules", lambda: (_Continues(), _Compound()))
    assert all(_fixes_by_code(PROGRAM).values())  # both are offered
    fixed = engine.fix_source(PROGRAM)
    ast.parse(fixed.text)
    assert fixed.text == PROGRAM.replace("value = 1", "value = 1; \\")
    assert fixed.applied == 1


@pytest.mark.parametrize(
    ("old", "new", "ok"),
    [
        ("x = 1  # why\n", "x = 2  # why\n", True),
        ("x = 1  # why\n", "x = 2\n", False),
        ("x = 1\n", "x = (\n", False),
        # Parses, but does not compile: a keyword given twice, a `break` outside a loop.
        ("x = f(a=1)\n", "x = f(a=1, a=True)\n", False),
        ("x = 1\n", "break\n", False),
        # A statement deleted outright may take its own comment along (as ruff does).
        ("y = 0\nx = 1  # why\n", "y = 0\n", True),
    ],
)
def test_the_validator_on_single_edits(old: str, new: str, ok: bool) -> None:
    text = f"import torch\n{old}z = 3\n"
    source = SourceText(text)
    start = source.offset(Position(1, 0))
    end = start + len(old)
    deleted = old.startswith("y = 0\n") and new == "y = 0\n"
    if deleted:
        start += len("y = 0\n")
        new = ""
    rng = Range(source.position_at(start), source.position_at(end))
    validator = FixValidator(source, ast.parse(text))
    problem = validator.problem((TextEdit(rng, new),))
    assert (problem is None) is ok, problem


def test_the_validator_checks_only_the_statements_it_must_but_sees_the_whole_statement() -> None:
    """An edit inside a function body is parsed with its whole top-level statement."""
    text = "import torch\ndef f():\n    a = 1\n    b = 2\n\nc = 3\n"
    source = SourceText(text)
    validator = FixValidator(source, ast.parse(text))
    dedent = TextEdit(_line_range(source, 3), "b = 2")  # out of the function: still parses
    assert validator.problem((dedent,)) is None
    broken = TextEdit(_line_range(source, 3), "  b = 2")  # an unindent that matches nothing
    assert validator.problem((broken,)) is not None


def test_the_validator_sees_the_line_a_backslash_continues_into() -> None:
    """Found by the fix fuzz: a line inserted at the end of `a = 1; \\` splits it from the
    next line, which then has an unexpected indent; the edited statement alone parses."""
    text = "import torch\r\nloss = 1; loss.backward(); \\\r\n    print(loss)\r\n"
    source = SourceText(text)
    end = Position(1, len(source.line(1)))
    insert = TextEdit(Range(end, end), "\r\nloss = loss.item()")
    assert FixValidator(source, ast.parse(text)).problem((insert,)) is not None


def test_gg102_does_not_move_a_line_after_a_backslash_continuation() -> None:
    text = (
        "import torch\nfrom torch import nn\nmodel = nn.Linear(3, 1)\n"
        "loss = model(torch.randn(4, 3)).sum().item(); loss.backward(); \\\n"
        "    print(loss)\n"
    )
    [finding] = engine.check_source(text).findings
    assert finding.code == "GG102"
    assert not finding.fix or not finding.fix.edits
    assert engine.fix_source(text).text == text
