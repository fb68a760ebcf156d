"""Error recovery for half-typed code: analyse the rest of a file that does not parse.

While the user types, most keystrokes leave the file unparsable for a moment. Rather than
wiping every diagnostic, `recover` blanks the broken statement (replacing its line with
`pass`, or with `if True:` when it opens an indented block) and parses again, a few rounds
at most. Only whole lines are replaced and every line break is kept, so every position in
the recovered text is the same position in the original text. Findings that touch a
replaced line are dropped: they describe code the user is still writing.

A syntax error is not itself reported as a GradGuard finding: Pylance, ruff and the
Python extension already report it, and a second copy would only add noise.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, replace

from gradguard.core.engine import CheckResult, ParseError, check_source, parse
from gradguard.core.findings import Finding, Fix, Position, Range, Related, TextEdit
from gradguard.core.settings import Settings
from gradguard.core.text import SourceText

_MAX_ROUNDS = 8
_LINE = re.compile(r"([^\r\n]*)(\r\n|\r|\n|$)")
_BLOCK_HEADER = re.compile(r"expected an indented block after .* on line (\d+)")


@dataclass(frozen=True)
class Recovery:
    """A parsable stand-in for a broken text: same lines, with the broken ones replaced."""

    text: str
    replaced: frozenset[int]


@dataclass(frozen=True)
class RecoveredCheck:
    """A check result for a text that may not parse, with what recovery had to replace."""

    result: CheckResult
    replaced: frozenset[int] = frozenset()
    recovered: bool = True
    carried: bool = False


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def _opens_block(lines: list[str], index: int) -> bool:
    """True when the next non-blank line is indented deeper than line `index`."""
    own = len(_indent(lines[index]).expandtabs())
    for following in lines[index + 1 :]:
        if following.strip() and not following.lstrip().startswith("#"):
            return len(_indent(following).expandtabs()) > own
    return False


def _stand_in(lines: list[str], index: int) -> str:
    """The text that replaces broken line `index`: same indentation, parsable."""
    line = lines[index]
    indent = _indent(line)
    if not line.strip():
        return line
    if _opens_block(lines, index):
        return f"{indent}if True:"
    return f"{indent}pass"


def _dedent_to_previous(lines: list[str], index: int) -> str:
    """A `pass` at the indentation of the previous statement (for "unexpected indent")."""
    for previous in reversed(lines[:index]):
        if previous.strip() and not previous.lstrip().startswith("#"):
            return f"{_indent(previous)}pass"
    return "pass"


def recover(text: str, *, max_rounds: int = _MAX_ROUNDS) -> Recovery | None:
    """Make `text` parse by replacing broken lines; `None` when a few rounds do not suffice.

    Returns a `Recovery` with no replaced lines when `text` already parses.
    """
    pieces = [(m.group(1), m.group(2)) for m in _LINE.finditer(text)]
    if pieces and pieces[-1] == ("", ""):
        pieces.pop()
    lines = [body for body, _ in pieces]
    breaks = [brk for _, brk in pieces]
    replaced: set[int] = set()
    candidate = text
    for _ in range(max_rounds + 1):
        error = parse(SourceText(candidate))
        if not isinstance(error, ParseError):
            return Recovery(candidate, frozenset(replaced))
        line = error.range.start.line
        if not lines or line >= len(lines):
            return None
        header = _BLOCK_HEADER.search(error.message)
        if header and int(header.group(1)) - 1 < len(lines):
            # "expected an indented block after 'for' statement on line 7": the header
            # has no body yet, so the header is the line to set aside.
            line = int(header.group(1)) - 1
            new = f"{_indent(lines[line])}pass"
        elif "expected ':'" in error.message and not lines[line].rstrip().endswith(":"):
            # A block header missing its colon: adding it keeps the loop being analysed.
            new = lines[line].rstrip() + ":"
        elif "unexpected indent" in error.message or "unindent" in error.message:
            new = _dedent_to_previous(lines, line)
        else:
            new = _stand_in(lines, line)
        if new == lines[line]:
            # Replacing the reported line changes nothing: the real culprit is earlier
            # (an unclosed bracket or string). Blank the nearest earlier statement line.
            earlier = [i for i in range(line - 1, -1, -1) if i not in replaced and lines[i].strip()]
            if not earlier:
                return None
            line = earlier[0]
            new = _stand_in(lines, line)
        lines[line] = new
        replaced.add(line)
        candidate = "".join(body + brk for body, brk in zip(lines, breaks, strict=True))
    return None


def check_with_recovery(
    text: str,
    *,
    path: str | None = None,
    settings: Settings | None = None,
    last_good: tuple[str, tuple[Finding, ...]] | None = None,
) -> RecoveredCheck:
    """`check_source`, but a file with a syntax error is analysed around the broken lines.

    With `last_good` (an earlier text and its findings), only findings that text also had
    are kept. When even recovery cannot make the file parse, the findings of `last_good` (an
    earlier text and its findings) are carried over to the lines that did not change
    (`carried`); without `last_good`, `recovered` is False and the caller should keep
    whatever it showed before.
    """
    result = check_source(text, path=path, settings=settings)
    if result.parse_error is None:
        return RecoveredCheck(result)
    recovery = recover(text)
    retried = (
        None if recovery is None else check_source(recovery.text, path=path, settings=settings)
    )
    if recovery is None or retried is None or retried.parse_error is not None:
        if last_good is None:
            return RecoveredCheck(result, recovered=False)
        carried = carry_findings(last_good[0], text, last_good[1])
        return RecoveredCheck(CheckResult(findings=carried), carried=True)
    kept = tuple(f for f in retried.findings if not _touches(f, recovery.replaced))
    if last_good is not None:
        # Setting a statement aside can itself create findings (a rule about something
        # missing, such as `zero_grad()`, fires when the half-typed call is blanked). Show
        # only findings the last parsable text also had; new ones appear once it parses.
        before = {
            (f.code, f.range.start.line) for f in carry_findings(last_good[0], text, last_good[1])
        }
        kept = tuple(f for f in kept if (f.code, f.range.start.line) in before)
    return RecoveredCheck(
        CheckResult(findings=kept, rule_errors=retried.rule_errors, skipped=retried.skipped),
        replaced=recovery.replaced,
    )


def _touches(finding: Finding, lines: frozenset[int]) -> bool:
    """True when the finding or one of its fixes lies on a replaced line."""
    spans = [(finding.range.start.line, finding.range.end.line)]
    spans.extend(
        (edit.range.start.line, edit.range.end.line) for fix in finding.fixes for edit in fix.edits
    )
    return any(start <= line <= end for start, end in spans for line in lines)


def line_map(old: str, new: str) -> dict[int, int]:
    """Old line number -> new line number, for the lines an edit left unchanged."""
    mapping: dict[int, int] = {}
    # SourceText's lines, not str.splitlines: that also splits at form feeds and U+2028,
    # which would shift every line number after them.
    old_lines, new_lines = list(SourceText(old).lines()), list(SourceText(new).lines())
    matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    for block in matcher.get_matching_blocks():
        for i in range(block.size):
            mapping[block.a + i] = block.b + i
    return mapping


def carry_findings(old: str, new: str, findings: tuple[Finding, ...]) -> tuple[Finding, ...]:
    """Move `findings` of `old` onto `new`; drop those on lines the edit changed."""
    mapping = line_map(old, new)

    def move(rng: Range) -> Range | None:
        start, end = mapping.get(rng.start.line), mapping.get(rng.end.line)
        if start is None or end is None or end - start != rng.end.line - rng.start.line:
            return None
        return Range(Position(start, rng.start.character), Position(end, rng.end.character))

    carried: list[Finding] = []
    for finding in findings:
        moved = move(finding.range)
        if moved is None:
            continue
        related = []
        for item in finding.related:
            target = move(item.range)
            if target is not None:
                related.append(Related(target, item.message))
        fixes = []
        for fix in finding.fixes:
            edits = [(move(e.range), e.new_text) for e in fix.edits]
            if all(rng is not None for rng, _ in edits):
                moved_edits = tuple(TextEdit(rng, text) for rng, text in edits if rng is not None)
                fixes.append(Fix(fix.title, fix.safety, moved_edits))
        carried.append(replace(finding, range=moved, related=tuple(related), fixes=tuple(fixes)))
    return tuple(carried)
