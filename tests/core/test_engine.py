"""The engine's promises: skip non-torch files, isolate rule crashes, honour noqa and settings."""

from __future__ import annotations

from collections.abc import Iterable

import pytest

from gradguard.core import engine
from gradguard.core.edits import apply_edits
from gradguard.core.findings import Finding
from gradguard.core.rule import Rule, RuleContext, all_rules
from gradguard.core.settings import Settings, SettingsError, parse_settings
from gradguard.core.suppression import Suppressions, noqa_edit
from gradguard.core.text import SourceText

BUGGY = """import torch
from torch import nn
model = nn.Linear(3, 1)
with torch.no_grad():
    loss = model(torch.randn(2, 3)).sum()
loss.backward()
"""


def test_file_without_torch_is_skipped() -> None:
    result = engine.check_source("x = 1\n")
    assert result.skipped and result.findings == ()


def test_syntax_error_is_reported_not_raised() -> None:
    result = engine.check_source("import torch\nfor x in\n")
    assert result.parse_error is not None
    assert result.parse_error.range.start.line == 1
    assert "SyntaxError" in result.parse_error.message


def test_null_bytes_are_a_parse_error() -> None:
    assert engine.check_source("import torch\x00\n").parse_error is not None


def test_finding_names_the_error_and_points_at_root_cause() -> None:
    (finding,) = engine.check_source(BUGGY).findings
    assert finding.code == "GG101"
    assert "element 0 of tensors does not require grad" in finding.message
    assert finding.range.start.line == 3  # the `with torch.no_grad()` line
    assert any(r.range.start.line == 5 for r in finding.related)  # the backward() call


@pytest.mark.parametrize(
    "comment", ["  # noqa", "  # noqa: GG101", "  # NOQA:GG101,GG201", "  # noqa: GG201, GG101"]
)
def test_noqa_on_the_flagged_line_suppresses(comment: str) -> None:
    source = BUGGY.replace("with torch.no_grad():", "with torch.no_grad():" + comment)
    assert engine.check_source(source).findings == ()


def test_noqa_for_another_code_does_not_suppress() -> None:
    source = BUGGY.replace("with torch.no_grad():", "with torch.no_grad():  # noqa: GG201")
    assert [f.code for f in engine.check_source(source).findings] == ["GG101"]


def test_noqa_inside_a_string_is_not_a_comment() -> None:
    source = SourceText('x = "# noqa"\ny = 1  # noqa: GG201\n')
    suppressions = Suppressions.scan(source)
    assert not suppressions.suppresses("GG101", 0)
    assert suppressions.suppresses("GG201", 1) and not suppressions.suppresses("GG101", 1)


def test_noqa_edit_adds_and_extends_comments() -> None:
    source = SourceText("a = 1\nb = 2  # noqa: GG101\nc = 3  # explain\n")
    edit = noqa_edit(source, 0, "GG201")
    assert apply_edits(source, [edit]).splitlines()[0] == "a = 1  # noqa: GG201"
    edit = noqa_edit(source, 1, "GG201")
    assert apply_edits(source, [edit]).splitlines()[1] == "b = 2  # noqa: GG101, GG201"
    edit = noqa_edit(source, 2, "GG201")
    assert apply_edits(source, [edit]).splitlines()[2] == "c = 3  # explain  # noqa: GG201"


def test_file_level_noqa() -> None:
    assert engine.check_source("# gradguard: noqa: GG101\n" + BUGGY).findings == ()
    assert engine.check_source("# gradguard: noqa: GG201\n" + BUGGY).findings


def test_select_ignore_and_severity_settings() -> None:
    assert engine.check_source(BUGGY, settings=Settings(ignore=("GG1",))).findings == ()
    assert engine.check_source(BUGGY, settings=Settings(select=("GG2",))).findings == ()
    settings = parse_settings({"severity": {"GG101": "warning"}})
    (finding,) = engine.check_source(BUGGY, settings=settings).findings
    assert finding.severity.value == "warning"
    per_file = parse_settings({"per-file-ignores": {"train_*.py": ["GG101"]}})
    assert engine.check_source(BUGGY, path="scripts/train_a.py", settings=per_file).findings == ()
    assert engine.check_source(BUGGY, path="scripts/eval.py", settings=per_file).findings


@pytest.mark.parametrize(
    "table",
    [{"select": 3}, {"severity": {"GG101": "loud"}}, {"unknown-key": 1}, {"unsafe-fixes": "yes"}],
)
def test_bad_settings_are_rejected_with_the_key_named(table: dict[str, object]) -> None:
    with pytest.raises(SettingsError) as info:
        parse_settings(table)
    assert next(iter(table)) in str(info.value)


class _Exploding(Rule):
    code = "GG999"
    name = "exploding"
    summary = "crashes"

    def check(self, ctx: RuleContext) -> Iterable[Finding]:
        raise RuntimeError("boom")


def test_a_crashing_rule_is_reported_and_the_others_still_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rules = (*all_rules(), _Exploding())
    monkeypatch.setattr(engine, "all_rules", lambda: rules)
    result = engine.check_source(BUGGY)
    assert [e.code for e in result.rule_errors] == ["GG999"]
    assert "boom" in result.rule_errors[0].message
    assert [f.code for f in result.findings] == ["GG101"]


def test_fix_source_never_returns_unparsable_text() -> None:
    result = engine.fix_source("import torch\nfor x in\n", unsafe=True)
    assert result.applied == 0 and result.text == "import torch\nfor x in\n"


def test_fix_source_applies_and_rechecks() -> None:
    result = engine.fix_source(BUGGY, unsafe=False)
    assert result.applied == 1
    assert "no_grad" not in result.text
    assert result.remaining.findings == ()


def test_checking_does_not_import_libcst_until_a_fix_is_applied() -> None:
    import subprocess
    import sys

    script = (
        "import sys\n"
        "from gradguard.core.engine import check_source, fix_source\n"
        f"source = {BUGGY!r}\n"
        "result = check_source(source)\n"
        "assert [f.code for f in result.findings] == ['GG101']\n"
        "assert result.findings[0].fix.title == 'Remove torch.no_grad()'\n"
        "before = 'libcst' in sys.modules\n"
        "fixed = fix_source(source)\n"
        "print(before, 'libcst' in sys.modules, fixed.applied)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert done.stdout.split() == ["False", "True", "1"]
