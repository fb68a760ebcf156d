"""Open documents kept in step with the editor: incremental changes applied where LSP puts them.

LSP counts lines at `\\n`, `\\r\\n` and `\\r` only. pygls's `TextDocument` applies an
incremental change on `str.splitlines`, which also breaks at form feeds, vertical tabs,
`\\x1c`-`\\x1e`, `\\x85`, U+2028 and U+2029. In a file holding one of them (a form feed
between sections is old, valid Python style) every later change lands on the wrong line:
the server's text silently differs from the editor's, and so do its diagnostics and the
ranges of its fixes. It also rebuilds the whole text line by line in Python on every
keystroke, which costs milliseconds on a large file.

`SyncedDocument` finds the changed range by LSP's line breaks and splices the text around
it, and `adopt` makes a pygls `Workspace` create such documents. Everything else (full
changes, versions, notebooks) stays pygls's.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import islice

from lsprotocol import types
from pygls.workspace import TextDocument, Workspace

# A line and its break, by LSP's rules; the last line may have none.
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")
_BREAK = re.compile(r"\r\n|\r|\n")


def line_start(text: str, line: int, known: tuple[int, int] = (0, 0)) -> int | None:
    """The offset where 0-based `line` of `text` starts, by LSP's line breaks; None when
    the text has fewer lines. `known` is a line and the offset it starts at, walked from
    when nearer than the text's start (the line of the last change: typing stays near)."""
    if line <= 0:
        return 0
    if "\r" in text:  # rare: every break kind, counted from the start
        match = next(islice(_BREAK.finditer(text), line - 1, None), None)
        return None if match is None else match.end()
    # `\n` only: lines are walked by `str.find` (in C), from the start or from `known`.
    at, start = known if known[0] > 0 else (0, 0)
    if line < at and at - line < line:
        while at > line:  # back to the line before: its break is just before `start`
            start = text.rfind("\n", 0, start - 1) + 1
            at -= 1
        return start
    if line < at:
        at, start = 0, 0
    while at < line:
        start = text.find("\n", start) + 1
        if start == 0:
            return None
        at += 1
    return start


def code_points(line: str, units: int, encoding: str) -> int:
    """How many code points of `line` (without its break) the first `units` code units of
    `encoding` (an LSP position encoding) span, at most the whole line. A unit count
    falling inside a character counts that character."""
    if units <= 0:
        return 0
    if encoding == types.PositionEncodingKind.Utf32 or line.isascii():
        return min(units, len(line))
    wide = 2 if encoding != types.PositionEncodingKind.Utf8 else 0
    seen = 0
    for index, character in enumerate(line):
        if seen >= units:
            return index
        if wide:
            seen += 2 if ord(character) > 0xFFFF else 1
        else:
            seen += len(character.encode("utf-8", "surrogatepass"))
    return len(line)


def offset_at(
    text: str, position: types.Position, encoding: str, known: tuple[int, int] = (0, 0)
) -> int:
    """The offset in `text` of LSP `position`: a character past the end of its line is the
    line's end, a line past the end of the text is the text's end (`known`: as for
    `line_start`)."""
    start = line_start(text, position.line, known)
    if start is None:
        return len(text)
    found = _BREAK.search(text, start)
    end = found.start() if found is not None else len(text)
    return start + code_points(text[start:end], position.character, encoding)


def apply_change(
    text: str,
    change: types.TextDocumentContentChangePartial,
    encoding: str,
    known: tuple[int, int] = (0, 0),
) -> str:
    """`text` after an incremental change (a reversed range counts from its start;
    `known`: as for `line_start`)."""
    start = offset_at(text, change.range.start, encoding, known)
    end = max(start, offset_at(text, change.range.end, encoding, known))
    return text[:start] + change.text + text[end:]


class SyncedDocument(TextDocument):
    """A pygls text document whose incremental changes and lines follow LSP's line breaks."""

    # The text a line start was last found in, that line and its offset (see `line_start`).
    _known: tuple[str, int, int] | None = None

    def _apply_incremental_change(self, change: types.TextDocumentContentChangePartial) -> None:
        encoding = str(self.position_codec.encoding or types.PositionEncodingKind.Utf16)
        text = self.source
        hint = self._known
        known = hint[1:] if hint is not None and hint[0] is text else (0, 0)
        line = change.range.start.line
        start = line_start(text, line, known)
        new = apply_change(text, change, encoding, (line, start) if start is not None else known)
        self._source = new
        # The change begins on `line`, at or after its start: the line starts there still.
        self._known = (new, line, start) if start is not None and "\r" not in new else None

    @property
    def lines(self) -> Sequence[str]:
        """The document's lines with their breaks, by LSP's line breaks."""
        return tuple(_LINE.findall(self.source))


class SyncedWorkspace(Workspace):
    """A pygls workspace whose text documents are `SyncedDocument`s."""

    def _create_text_document(
        self,
        doc_uri: str,
        source: str | None = None,
        version: int | None = None,
        language_id: str | None = None,
    ) -> TextDocument:
        return SyncedDocument(
            doc_uri,
            source=source,
            version=version,
            language_id=language_id,
            sync_kind=self._sync_kind,
            position_codec=self.position_codec,
        )


def adopt(workspace: Workspace) -> None:
    """Make `workspace` (the one pygls made at `initialize`, before any document opened)
    create `SyncedDocument`s from now on. Its class is changed in place: pygls holds it,
    and every folder and setting it has stays as it is."""
    if not isinstance(workspace, SyncedWorkspace):
        workspace.__class__ = SyncedWorkspace
