"""Apply LSP text edits to a string, the way a client would (UTF-16 positions)."""

from __future__ import annotations

from collections.abc import Sequence

from lsprotocol import types


def _offset(text: str, position: types.Position, encoding: str) -> int:
    lines = text.splitlines(keepends=True)
    start = sum(len(line) for line in lines[: position.line])
    line = lines[position.line] if position.line < len(lines) else ""
    units = 0
    for index, char in enumerate(line):
        if units >= position.character:
            return start + index
        if encoding == "utf-8":
            units += len(char.encode("utf-8"))
        elif encoding == "utf-16":
            units += 2 if ord(char) > 0xFFFF else 1
        else:
            units += 1
    return start + len(line.rstrip("\r\n"))


def apply(text: str, edits: Sequence[types.TextEdit], encoding: str = "utf-16") -> str:
    """Apply non-overlapping edits, last first."""
    spans = sorted(
        (
            (
                _offset(text, e.range.start, encoding),
                _offset(text, e.range.end, encoding),
                e.new_text,
            )
            for e in edits
        ),
        reverse=True,
    )
    for start, end, new in spans:
        text = text[:start] + new + text[end:]
    return text


def edits_for(edit: types.WorkspaceEdit | None, uri: str) -> list[types.TextEdit]:
    """The text edits a workspace edit makes to `uri` (`changes` or `documentChanges`)."""
    assert edit is not None
    found: list[types.TextEdit] = []
    if edit.changes:
        found.extend(edit.changes.get(uri, []))
    for change in edit.document_changes or []:
        assert isinstance(change, types.TextDocumentEdit)
        if change.text_document.uri == uri:
            found.extend(e for e in change.edits if isinstance(e, types.TextEdit))
    return found
