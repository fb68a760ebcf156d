"""The output formats' exact shapes, on a hand-built finding (independent of any rule)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gradguard.core.findings import (
    Finding,
    Fix,
    Position,
    Range,
    Related,
    Safety,
    Severity,
    TextEdit,
)
from gradguard.core.text import SourceText
from gradguard.output import Failure, FileReport, Report, render

SOURCE = (
    "import torch\n"
    "\n"
    "# 注释 with CJK\n"
    "h = torch.zeros(1)\n"
    "for x in data:\n"
    "    out, h = rnn(x, h)  # 隐藏\n"
    "    loss.backward()\n"
)


def rng(line: int, start: int, end: int) -> Range:
    return Range(Position(line, start), Position(line, end))


def finding(
    *,
    safety: Safety = Safety.SAFE,
    severity: Severity = Severity.ERROR,
    message: str = "`h` carries the graph of the previous iteration into this one",
) -> Finding:
    fix = Fix(
        title="Detach `h` at the start of each iteration",
        safety=safety,
        edits=(TextEdit(rng(5, 20, 21), "h.detach()"),),
    )
    return Finding(
        code="GG201",
        name="hidden-state-not-detached",
        severity=severity,
        message=message,
        range=rng(5, 20, 21),
        related=(Related(rng(4, 0, 13), "the loop that carries `h`"),),
        fixes=(fix,),
        url="https://example.invalid/gg201",
    )


def report(*findings: Finding, unsafe: bool = False, path: str = "src/train.py") -> Report:
    return Report((FileReport(path, SourceText(SOURCE), tuple(findings), unsafe),))


def test_json_matches_ruff_shape_plus_extras() -> None:
    [item] = json.loads(render(report(finding()), "json"))
    assert item == {
        "code": "GG201",
        "name": "hidden-state-not-detached",
        "severity": "error",
        "message": "`h` carries the graph of the previous iteration into this one",
        "filename": "src/train.py",
        "location": {"row": 6, "column": 21},
        "end_location": {"row": 6, "column": 22},
        "fix": {
            "applicability": "safe",
            "message": "Detach `h` at the start of each iteration",
            "edits": [
                {
                    "content": "h.detach()",
                    "location": {"row": 6, "column": 21},
                    "end_location": {"row": 6, "column": 22},
                    "cell": None,
                }
            ],
        },
        "url": "https://example.invalid/gg201",
        "noqa_row": 6,
        "related": [
            {
                "message": "the loop that carries `h`",
                "location": {"row": 5, "column": 1},
                "end_location": {"row": 5, "column": 14},
                "cell": None,
            }
        ],
        # The notebook cell (ruff's field); null in a Python file, added without changing
        # any other key.
        "cell": None,
    }


def test_json_without_findings_is_an_empty_list() -> None:
    assert json.loads(render(report(), "json")) == []


def test_json_fix_is_null_without_a_fix() -> None:
    bare = Finding("GG102", "item-before-backward", Severity.WARNING, "m", rng(6, 4, 8))
    [item] = json.loads(render(report(bare), "json"))
    assert item["fix"] is None
    assert item["severity"] == "warning"


@pytest.mark.parametrize(
    ("severity", "level"),
    [
        (Severity.ERROR, "error"),
        (Severity.WARNING, "warning"),
        (Severity.INFO, "notice"),
        (Severity.HINT, "notice"),
    ],
)
def test_github_annotation(severity: Severity, level: str) -> None:
    out = render(report(finding(severity=severity)), "github")
    assert out == (
        f"::{level} title=GradGuard (GG201),file=src/train.py,line=6,col=21,endLine=6,"
        "endColumn=22::GG201 `h` carries the graph of the previous iteration into this one\n"
    )


def test_github_escapes_workflow_command_syntax() -> None:
    out = render(report(finding(message="50% done\nnext"), path="a,b:c.py"), "github")
    assert "file=a%2Cb%3Ac.py," in out
    assert out.endswith("::GG201 50%25 done%0Anext\n")


def test_sarif_shape(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    doc = json.loads(render(report(finding()), "sarif"))
    assert doc["version"] == "2.1.0"
    assert doc["$schema"].endswith("sarif-2.1.0.json")
    [run] = doc["runs"]
    assert run["tool"]["driver"]["name"] == "gradguard"
    assert isinstance(run["tool"]["driver"]["rules"], list)
    assert run["columnKind"] == "unicodeCodePoints"
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == tmp_path.as_uri() + "/"
    [result] = run["results"]
    assert result["ruleId"] == "GG201"
    assert result["level"] == "error"
    assert result["message"]["text"].startswith("`h` carries")
    [location] = result["locations"]
    assert location["physicalLocation"] == {
        "artifactLocation": {"uri": "src/train.py", "uriBaseId": "%SRCROOT%"},
        "region": {"startLine": 6, "startColumn": 21, "endLine": 6, "endColumn": 22},
    }
    [related] = result["relatedLocations"]
    assert related["message"]["text"] == "the loop that carries `h`"
    assert related["physicalLocation"]["region"] == {
        "startLine": 5,
        "startColumn": 1,
        "endLine": 5,
        "endColumn": 14,
    }
    assert run["invocations"][0]["executionSuccessful"] is True


def test_sarif_reports_unreadable_files_as_notifications() -> None:
    broken = Report((), (Failure("bad.py", "SyntaxError: invalid syntax", Position(1, 0)),))
    run = json.loads(render(broken, "sarif"))["runs"][0]
    assert run["invocations"][0]["executionSuccessful"] is False
    [note] = run["invocations"][0]["toolExecutionNotifications"]
    assert note["message"]["text"] == "SyntaxError: invalid syntax"


def test_text_header_frame_note_and_safe_help() -> None:
    out = render(report(finding()), "text")
    assert out == (
        "src/train.py:6:21: GG201 `h` carries the graph of the previous iteration into this one\n"
        "  |\n"
        "4 | h = torch.zeros(1)\n"
        "5 | for x in data:\n"
        "6 |     out, h = rnn(x, h)  # 隐藏\n"
        "  |                     ^ GG201\n"
        "7 |     loss.backward()\n"
        "  |\n"
        "  = note: src/train.py:5:1: the loop that carries `h`\n"
        "  = help: [*] Detach `h` at the start of each iteration\n"
        "\n"
        "Found 1 error.\n"
        "[*] 1 fixable with the --fix option.\n"
    )


def test_text_unsafe_fix_hint_and_summary() -> None:
    out = render(report(finding(safety=Safety.UNSAFE)), "text")
    assert (
        "help: Detach `h` at the start of each iteration "
        "(unsafe fix available, use --unsafe-fixes)\n" in out
    )
    assert "[*]" not in out
    assert out.endswith(
        "Found 1 error.\n1 hidden fix can be enabled with the --unsafe-fixes option.\n"
    )
    # With unsafe fixes enabled the same fix is fixable with --fix.
    enabled = render(report(finding(safety=Safety.UNSAFE), unsafe=True), "text")
    assert "help: [*] Detach" in enabled
    assert enabled.endswith("[*] 1 fixable with the --fix option.\n")


def test_text_carets_line_up_after_wide_characters() -> None:
    wide = Finding("GG201", "n", Severity.ERROR, "m", rng(2, 2, 4))  # the two CJK characters
    out = render(report(wide), "text")
    assert "3 | # 注释 with CJK\n  |   ^^^^ GG201\n" in out


def test_text_summary_variants() -> None:
    assert render(report(), "text") == "All checks passed!\n"
    two = render(report(finding(), finding()), "text")
    assert two.endswith("Found 2 errors.\n[*] 2 fixable with the --fix option.\n")
    fixed = Report((FileReport("a.py", SourceText(SOURCE), ()),), fixed=2, fix_mode=True)
    assert render(fixed, "text") == "Found 2 errors (2 fixed, 0 remaining).\n"
    failed = Report((), (Failure("bad.py", "SyntaxError: x"),))
    assert render(failed, "text") == (
        "Found 0 errors.\n1 file could not be checked (see the errors above).\n"
    )


def test_text_colour_only_when_asked() -> None:
    assert "\x1b[" not in render(report(finding()), "text", color=False)
    assert "\x1b[" in render(report(finding()), "text", color=True)


def test_concise_one_line_per_finding_then_the_summary() -> None:
    out = render(report(finding()), "concise")
    assert out == (
        "src/train.py:6:21: GG201 [*] `h` carries the graph of the previous iteration "
        "into this one\n"
        "Found 1 error.\n"
        "[*] 1 fixable with the --fix option.\n"
    )
    # No `[*]` for a fix --fix would not apply; the summary says how to enable it.
    unsafe = render(report(finding(safety=Safety.UNSAFE)), "concise")
    assert unsafe.startswith("src/train.py:6:21: GG201 `h` carries")
    assert unsafe.endswith("1 hidden fix can be enabled with the --unsafe-fixes option.\n")
    assert render(report(), "concise") == "All checks passed!\n"
    assert "\x1b[" in render(report(finding()), "concise", color=True)


def test_concise_names_the_notebook_cell() -> None:
    from gradguard.ipynb import CellLayout

    cells = (CellLayout(1, 0, 3, (5, 6, 7)), CellLayout(2, 3, 4, (12, 13, 14, 15)))
    file = FileReport("nb.ipynb", SourceText(SOURCE), (finding(),), cells=cells)
    first = render(Report((file,)), "concise").splitlines()[0]
    assert first.startswith("nb.ipynb:cell 2:3:21: GG201 [*] ")


def test_failure_rendering() -> None:
    assert Failure("a.py", "boom").render() == "a.py: error: boom"
    assert Failure("a.py", "boom", Position(2, 4)).render() == "a.py:3:5: error: boom"


def test_text_frame_expands_tabs_and_underlines_every_line_of_a_range() -> None:
    source = "for x in data:\n\tout, h = rnn(x, h)\n\tloss.backward()\n"
    multi = Finding("GG201", "n", Severity.ERROR, "m", Range(Position(0, 0), Position(2, 16)))
    tab = Finding("GG201", "n", Severity.ERROR, "m", rng(1, 10, 13))  # `rnn`
    out = render(Report((FileReport("a.py", SourceText(source), (multi, tab)),)), "text")
    assert out.startswith(
        "a.py:1:1: GG201 m\n"
        "  |\n"
        "1 | for x in data:\n"
        "  | ^^^^^^^^^^^^^^\n"
        "2 |     out, h = rnn(x, h)\n"
        "  |     ^^^^^^^^^^^^^^^^^^\n"
        "3 |     loss.backward()\n"
        "  |     ^^^^^^^^^^^^^^^ GG201\n"
        "  |\n"
        "\n"
        "a.py:2:11: GG201 m\n"
        "  |\n"
        "1 | for x in data:\n"
        "2 |     out, h = rnn(x, h)\n"
        "  |              ^^^ GG201\n"
        "3 |     loss.backward()\n"
        "  |\n"
    )
