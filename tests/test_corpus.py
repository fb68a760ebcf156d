"""The corpus: real-looking scripts whose comment markers are the exact expected findings.

A line ending with `# expect: GG201` (or `# expect: GG101, GG102`) must get a finding of
each listed code whose primary range starts on that line; every other line must get none.
A line ending with `# missed: GG201` holds a real GG201 bug that GradGuard does not find
yet: the test insists it is still not reported, so the day the analysis finds it the test
fails and asks for the marker to be promoted to `expect`. Both markers may close one
comment (`# expect: GG101  # missed: GG203`). The markers are comments, so they never
change what the analysis sees.
"""

from __future__ import annotations

import io
import re
import tokenize
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from gradguard.core.engine import check_source
from gradguard.core.findings import Finding

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "corpus"
EXAMPLES = ROOT / "examples"

# A marker closes the comment, so `# expect: GG101` after a longer comment still works; a
# second marker may stand before it (`# expect: GG101  # missed: GG203`).
_MARKER = re.compile(r"(?P<kind>expect|missed):\s*(?P<codes>GG\d{3}(?:\s*,\s*GG\d{3})*)\s*$")
_CODE = re.compile(r"GG\d{3}")

Expectation = set[tuple[int, str]]


@dataclass(frozen=True)
class Markers:
    """The labels of one file: what must be reported and the known misses that must not be."""

    expected: Expectation = field(default_factory=set)
    missed: Expectation = field(default_factory=set)


def corpus_files() -> list[Path]:
    """Every corpus script and every bundled example."""
    return sorted(CORPUS.rglob("*.py")) + sorted(EXAMPLES.glob("*.py"))


def _comment_markers(comment: str) -> list[tuple[str, list[str]]]:
    """The (kind, codes) markers closing one comment token, last first."""
    found: list[tuple[str, list[str]]] = []
    rest = comment
    while match := _MARKER.search(rest):
        found.append((match["kind"], _CODE.findall(match["codes"])))
        rest = rest[: match.start()].rstrip()
        if not rest.endswith("#"):
            break
        rest = rest[:-1].rstrip()
    return found


def markers(text: str) -> Markers:
    """(1-based line, code) pairs from `# expect:` and `# missed:` markers in comment tokens."""
    result = Markers()
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type != tokenize.COMMENT:
            continue
        for kind, codes in _comment_markers(tok.string):
            target = result.expected if kind == "expect" else result.missed
            target.update((tok.start[0], code) for code in codes)
    return result


def expected_findings(text: str) -> Expectation:
    """(1-based line, code) pairs from `# expect:` markers in real comment tokens."""
    return markers(text).expected


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


def test_missed_markers_are_parsed_apart_from_expect() -> None:
    """`missed:` has the same grammar as `expect:`, and both may close one comment."""
    text = (
        's = "# missed: GG201"\n'
        "a = 1  # missed: GG201, GG203\n"
        "b = 2  # the hidden state  # missed: GG201\n"
        "c = 3  # expect: GG101  # missed: GG203\n"
        "d = 4  # missed: GG202  # expect: GG102\n"
        "e = 5  # missed: GG202 later\n"
        "f = 6  # not missed: GG201 but expect: GG102\n"
    )
    found = markers(text)
    assert found.missed == {(2, "GG201"), (2, "GG203"), (3, "GG201"), (4, "GG203"), (5, "GG202")}
    assert found.expected == {(4, "GG101"), (5, "GG102"), (7, "GG102")}


def test_a_pair_cannot_be_both_expected_and_missed() -> None:
    for path in corpus_files():
        found = markers(path.read_text(encoding="utf-8"))
        both = found.expected & found.missed
        assert not both, f"{_case_id(path)}: marked both expect and missed: {sorted(both)}"


def _mismatch(path: Path, text: str, findings: Sequence[Finding], labels: Markers) -> list[str]:
    """Why the findings differ from the markers; empty when they agree."""
    got = {(f.range.start.line + 1, f.code) for f in findings}
    lines = text.splitlines()
    report: list[str] = []
    if labels.expected - got:
        report.append("  missing (marked `expect`, not reported):")
        report.append(_describe(labels.expected - got, lines))
    promoted = got & labels.missed
    if promoted:
        report.append(
            "  now found (marked `missed`, reported): the analysis improved, so change "
            "these markers from `# missed:` to `# expect:`:"
        )
        report.append(_describe(promoted, lines))
    unexpected = got - labels.expected - labels.missed
    if unexpected:
        report.append("  unexpected (reported, not marked):")
        for finding in findings:
            pair = (finding.range.start.line + 1, finding.code)
            if pair in unexpected:
                report.append(_describe({pair}, lines) + f"\n        -> {finding.message}")
    return [f"{_case_id(path)}: findings differ from the markers", *report] if report else []


@pytest.mark.parametrize("path", corpus_files(), ids=_case_id)
def test_findings_match_the_markers(path: Path) -> None:
    """Exactly the `expect` pairs are reported: no more, no fewer, and no `missed` pair."""
    text = path.read_text(encoding="utf-8")
    result = check_source(text, path=str(path))
    assert result.parse_error is None, f"{_case_id(path)} does not parse: {result.parse_error}"
    assert not result.rule_errors, f"rules crashed on {_case_id(path)}: {result.rule_errors}"
    assert not result.skipped
    report = _mismatch(path, text, result.findings, markers(text))
    if report:
        pytest.fail("\n".join(report), pytrace=False)


def test_a_found_missed_marker_asks_for_promotion() -> None:
    """The strict half of `missed`: once reported, the file fails with a promotion hint."""
    text = (
        "import torch\n"
        "w = torch.ones(2, requires_grad=True)\n"
        "loss = (w * 2).sum().item()  # missed: GG102\n"
        "loss.backward()\n"
    )
    findings = check_source(text, path="promote.py").findings
    assert [(f.range.start.line + 1, f.code) for f in findings] == [(3, "GG102")]
    report = _mismatch(CORPUS / "promote.py", text, findings, markers(text))
    assert any("from `# missed:` to `# expect:`" in line for line in report)
    assert not _mismatch(
        CORPUS / "promote.py", text, findings, markers(text.replace("missed", "expect"))
    )
