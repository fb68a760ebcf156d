"""`# noqa` comments: line-level (`# noqa`, `# noqa: GG201, GG101`) and file-level
(`# gradguard: noqa`, `# gradguard: noqa: GG201`), following the flake8/ruff convention."""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass

from gradguard.core.findings import Position, Range, TextEdit
from gradguard.core.text import SourceText

_NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Za-z]+[0-9]+(?:[,\s]+[A-Za-z]+[0-9]+)*))?", re.I)
_FILE_NOQA = re.compile(
    r"#\s*gradguard\s*:\s*noqa(?::\s*(?P<codes>[A-Za-z]+[0-9]+(?:[,\s]+[A-Za-z]+[0-9]+)*))?",
    re.I,
)
_CODE = re.compile(r"[A-Za-z]+[0-9]+")

# `None` means "every code".
Codes = frozenset[str] | None


@dataclass(frozen=True)
class Comment:
    """A `#` comment token: where it starts and its text."""

    line: int
    column: int
    text: str


def comments(source: SourceText) -> list[Comment]:
    """All comment tokens (so `"# noqa"` inside a string is not a comment)."""
    found: list[Comment] = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source.tokenizable).readline):
            if tok.type == tokenize.COMMENT:
                found.append(Comment(tok.start[0] - 1, tok.start[1], tok.string))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass
    return found


def _parse_codes(text: str | None) -> Codes:
    if not text:
        return None
    return frozenset(code.upper() for code in _CODE.findall(text))


@dataclass(frozen=True)
class Suppressions:
    """Which codes are suppressed on which lines, and for the whole file."""

    by_line: dict[int, Codes]
    file_level: Codes
    file_level_present: bool

    @classmethod
    def scan(cls, source: SourceText) -> Suppressions:
        """Collect the noqa comments of `source` (cheap when it has none)."""
        by_line: dict[int, Codes] = {}
        file_codes: set[str] = set()
        file_all = False
        present = False
        if "noqa" not in source.text.lower():
            return cls({}, None, False)
        for comment in comments(source):
            file_match = _FILE_NOQA.search(comment.text)
            if file_match:
                present = True
                codes = _parse_codes(file_match.group("codes"))
                if codes is None:
                    file_all = True
                else:
                    file_codes |= codes
                continue
            match = _NOQA.search(comment.text)
            if match:
                by_line[comment.line] = _parse_codes(match.group("codes"))
        return cls(by_line, None if file_all else frozenset(file_codes), present)

    def suppresses(self, code: str, line: int) -> bool:
        """True when a comment silences `code` on `line` (0-based) or in the whole file."""
        if self.file_level_present and (self.file_level is None or code in self.file_level):
            return True
        if line not in self.by_line:
            return False
        codes = self.by_line[line]
        return codes is None or code in codes


def noqa_edit(source: SourceText, line: int, code: str) -> TextEdit:
    """An edit that adds `code` to the `# noqa` comment of `line`, creating it if needed."""
    for comment in comments(source):
        if comment.line != line:
            continue
        match = _NOQA.search(comment.text)
        if match is None:
            continue
        existing = _parse_codes(match.group("codes"))
        start = Position(line, comment.column + match.start())
        end = Position(line, comment.column + match.end())
        if existing is None or code in existing:
            return TextEdit(Range(start, start), "")
        return TextEdit(Range(start, end), f"# noqa: {', '.join(sorted(existing | {code}))}")
    text = source.line(line)
    stripped = len(text.rstrip())
    at = Position(line, stripped)
    return TextEdit(Range(at, Position(line, len(text))), f"  # noqa: {code}")
