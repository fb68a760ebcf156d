"""Pure parts of the language server: recovery, notebook concatenation, options, edits."""

from __future__ import annotations

from gradguard.core.edits import apply_edits
from gradguard.core.engine import check_source
from gradguard.core.findings import Position, Range
from gradguard.core.recovery import carry_findings, check_with_recovery, recover
from gradguard.core.text import SourceText
from gradguard.lsp.actions import minimal_edit
from gradguard.lsp.notebook import Cell, concatenate
from gradguard.lsp.options import parse_editor_options

from .conftest import HIDDEN_STATE, HIDDEN_STATE_LINE


def test_recover_keeps_line_numbers() -> None:
    text = "import torch\nx = foo(\nfor i in range(3)\n    y = 1\n"
    recovery = recover(text)
    assert recovery is not None
    assert recovery.text.splitlines() == ["import torch", "pass", "for i in range(3):", "    y = 1"]
    assert recovery.replaced == {1, 2}


def test_recover_gives_up_on_hopeless_text() -> None:
    assert recover("y = (\n" * 12) is None


def test_half_typed_statement_keeps_the_hidden_state_finding() -> None:
    typing = HIDDEN_STATE.replace("    opt.zero_grad()\n", "    opt.zero_grad(\n")
    last_good = (HIDDEN_STATE, check_source(HIDDEN_STATE).findings)
    checked = check_with_recovery(typing, last_good=last_good)
    # Without the earlier result, blanking `opt.zero_grad(` looks like a missing zero_grad().
    assert "GG601" in [f.code for f in check_with_recovery(typing).result.findings]
    assert checked.recovered
    assert [f.code for f in checked.result.findings] == ["GG201"]
    assert checked.result.findings[0].range.start.line == HIDDEN_STATE_LINE


def test_findings_on_the_broken_line_are_dropped() -> None:
    typing = HIDDEN_STATE.replace("    h = h_next\n", "    h = h_next +\n")
    assert check_with_recovery(typing).result.findings == ()


def test_unrecoverable_text_carries_the_last_findings_to_unchanged_lines() -> None:
    good = check_source(HIDDEN_STATE).findings
    broken = "# a new first line\n" + HIDDEN_STATE + "y = (\n" * 12
    checked = check_with_recovery(broken, last_good=(HIDDEN_STATE, good))
    assert checked.carried
    [finding] = checked.result.findings
    assert finding.range.start.line == HIDDEN_STATE_LINE + 1
    fixed = apply_edits(SourceText(broken), finding.fixes[0].edits)
    assert "    h = h_next.detach()\n" in fixed


def test_carry_drops_findings_on_edited_lines() -> None:
    good = check_source(HIDDEN_STATE).findings
    edited = HIDDEN_STATE.replace("    h = h_next\n", "    h = h_nex\n")
    assert carry_findings(HIDDEN_STATE, edited, good) == ()


def test_notebook_cells_concatenate_with_magics_blanked() -> None:
    notebook = concatenate(
        [
            Cell("c0", "%matplotlib inline\nimport torch"),
            Cell("c1", "%%bash\necho hi"),
            Cell("c2", "!pip install x\nfiles = !ls\ny = torch.ones(1)\n"),
        ]
    )
    assert notebook.text.splitlines() == ["", "import torch", "", "", "", "", "y = torch.ones(1)"]
    assert notebook.locate(6) == ("c2", 2)
    crossing = Range(Position(1, 0), Position(6, 1))
    assert notebook.map_range(crossing) is None
    inside = Range(Position(6, 0), Position(6, 1))
    assert notebook.map_range(inside) == ("c2", Range(Position(2, 0), Position(2, 1)))


def test_editor_options_accept_nesting_and_reject_bad_keys() -> None:
    options, problems = parse_editor_options(
        {
            "gradguard": {
                "select": ["GG1"],
                "unsafeFixes": True,
                "debounceMs": 0,
                "scope": "workspace",
            }
        }
    )
    assert problems == []
    assert options.debounce_ms == 0 and options.scope == "workspace"
    assert options.overrides == {"select": ["GG1"], "unsafe_fixes": True}
    fallback, problems = parse_editor_options({"debounceMs": -5, "ignore": 7})
    assert fallback.debounce_ms == 150 and fallback.overrides == {}
    assert len(problems) == 2


def test_minimal_edit_round_trips() -> None:
    old = "a = 1\r\nb = 2\r\n"
    new = "a = 1\r\nb = 2  # x\r\nc = 3\r\n"
    edit = minimal_edit(old, new)
    assert apply_edits(SourceText(old), [edit]) == new
