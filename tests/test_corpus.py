"""The corpus: real-looking scripts whose `# expect: GG…` markers are the exact expected findings.

A line ending with `# expect: GG201` (or `# expect: GG101, GG102`) must get a finding of
each listed code whose primary range starts on that line; every other line must get none.
The markers are comments, so they never change what the analysis sees.
"""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

import pytest

from gradguard.core.engine import check_source

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "corpus"
EXAMPLES = ROOT / "examples"

# The marker must close the comment, so `# expect: GG101` inside a longer comment still works.
_MARKER = re.compile(r"expect:\s*(?P<codes>GG\d{3}(?:\s*,\s*GG\d{3})*)\s*$")
_CODE = re.compile(r"GG\d{3}")

Expectation = set[tuple[int, str]]


def corpus_files() -> list[Path]:
    """Every corpus script and every bundled example."""
    return sorted(CORPUS.rglob("*.py")) + sorted(EXAMPLES.glob("*.py"))


def expected_findings(text: str) -> Expectation:
    """(1-based line, code) pairs from `# expect:` markers in real comment tokens."""
    expected: Expectation = set()
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type != tokenize.COMMENT:
            continue
        match = _MARKER.search(tok.string)
        if match:
            for code in _CODE.findall(match["codes"]):
                expected.add((tok.start[0], code))
    return expected


def _describe(pairs: Expectation, lines: list[str]) -> str:
    return "\n".join(
        f"    line {line} {code}: {lines[line - 1].strip()}" for line, code in sorted(pairs)
    )


def _case_id(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def test_the_corpus_is_not_empty() -> None:
    """Guards against a glob that silently matches nothing."""
    files = corpus_files()
    assert len(list(CORPUS.rglob("*.py"))) >= 10
    assert {p.name for p in files} >= {
        "buggy_rnn_hidden_state.py",
        "buggy_lstm_cell.py",
        "buggy_item_before_backward.py",
        "buggy_no_grad_loss.py",
        "clean_training_loop.py",
        "clean_tbptt_lstm.py",
    }


def test_markers_are_parsed_from_comments_only() -> None:
    """A marker in a string is not a marker; several codes and a leading comment are."""
    text = (
        's = "# expect: GG101"\n'
        "x = 1  # expect: GG101, GG201\n"
        "y = 2  # why this is wrong  # expect: GG102\n"
        "z = 3  # expect: GG102 because\n"
    )
    assert expected_findings(text) == {(2, "GG101"), (2, "GG201"), (3, "GG102")}


@pytest.mark.parametrize("path", corpus_files(), ids=_case_id)
def test_findings_match_the_markers(path: Path) -> None:
    """Exactly the marked (line, code) pairs are reported: no more, no fewer."""
    text = path.read_text(encoding="utf-8")
    result = check_source(text, path=str(path))
    assert result.parse_error is None, f"{_case_id(path)} does not parse: {result.parse_error}"
    assert not result.rule_errors, f"rules crashed on {_case_id(path)}: {result.rule_errors}"
    assert not result.skipped
    got = {(f.range.start.line + 1, f.code) for f in result.findings}
    expected = expected_findings(text)
    if got != expected:
        lines = text.splitlines()
        report = [f"{_case_id(path)}: findings differ from the `# expect:` markers"]
        if expected - got:
            report.append("  missing (marked, not reported):")
            report.append(_describe(expected - got, lines))
        if got - expected:
            report.append("  unexpected (reported, not marked):")
            for finding in result.findings:
                pair = (finding.range.start.line + 1, finding.code)
                if pair in got - expected:
                    report.append(_describe({pair}, lines) + f"\n        -> {finding.message}")
        pytest.fail("\n".join(report), pytrace=False)
