"""Incremental changes land where the editor made them (`gradguard.lsp.synced_text`).

LSP breaks lines at `\\n`, `\\r\\n` and `\\r` only; pygls's own documents also break at form
feeds, U+2028 and the like, so a change after one landed on the wrong line. The changes
are checked against a model written here from the protocol's rules, against pygls where
the two rules agree, and through the real server: an edit after a form feed is analysed
as the editor's text.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from lsprotocol import types
from pygls.workspace import TextDocument

from gradguard.lsp.synced_text import SyncedDocument, apply_change, line_start

from .wire import server_process

ENCODINGS = ("utf-8", "utf-16", "utf-32")
# Line breaks by both rules, breaks only `str.splitlines` knows, and wide characters.
ALPHABET = st.sampled_from(["a", " ", "\n", "\r", "\r\n", "\x0c", "\u2028", "\x85", "é", "😋"])
TEXTS = st.lists(ALPHABET, max_size=30).map("".join)


def model_lines(text: str) -> list[str]:
    """LSP's lines of `text`, without their breaks, found one character at a time."""
    lines, current, index = [], "", 0
    while index < len(text):
        char = text[index]
        if char in "\r\n":
            lines.append(current)
            current = ""
            index += 2 if text.startswith("\r\n", index) else 1
            continue
        current += char
        index += 1
    lines.append(current)
    return lines


def model_offset(text: str, line: int, character: int, encoding: str) -> int:
    """The offset of an LSP position: the protocol's rules, spelled out slowly."""
    lines = model_lines(text)
    if line >= len(lines):
        return len(text)
    start = 0
    for number in range(line):  # skip a line and its break
        start += len(lines[number])
        start += 2 if text.startswith("\r\n", start) else 1
    units = 0
    for index, char in enumerate(lines[line]):
        if units >= character:
            return start + index
        units += {"utf-8": len(char.encode()), "utf-16": 1 + (ord(char) > 0xFFFF)}.get(encoding, 1)
    return start + len(lines[line])


def change(start: tuple[int, int], end: tuple[int, int], new: str) -> Any:
    return types.TextDocumentContentChangePartial(
        range=types.Range(types.Position(*start), types.Position(*end)), text=new
    )


@settings(max_examples=400, deadline=None, database=None)
@given(
    TEXTS,
    st.tuples(st.integers(0, 8), st.integers(0, 6)),
    st.tuples(st.integers(0, 8), st.integers(0, 6)),
    st.sampled_from(["", "X", "\n", "😋\r\n"]),
    st.sampled_from(ENCODINGS),
)
def test_a_change_replaces_the_range_lsp_names(
    text: str, start: tuple[int, int], end: tuple[int, int], new: str, encoding: str
) -> None:
    first = model_offset(text, *start, encoding)
    last = max(first, model_offset(text, *end, encoding))
    expected = text[:first] + new + text[last:]
    assert apply_change(text, change(start, end, new), encoding) == expected


@settings(max_examples=300, deadline=None, database=None)
@given(
    st.lists(st.sampled_from(["a", "b", " ", "\n", "é", "😋"]), max_size=30).map("".join),
    st.data(),
)
def test_plain_text_changes_as_pygls_changes_it(text: str, data: st.DataObject) -> None:
    """Where `\\n` is the only break and the range lies inside the text, nothing changes."""
    lines = text.split("\n")

    def position() -> tuple[int, int]:
        line = data.draw(st.integers(0, len(lines) - 1))
        units = len(lines[line].encode("utf-16-le")) // 2
        return line, data.draw(st.integers(0, units))

    start, end = sorted((position(), position()))
    new = data.draw(st.sampled_from(["", "Z", "\nq"]))
    theirs = TextDocument("file:///x.py", text)
    ours = SyncedDocument("file:///x.py", text)
    for document in (theirs, ours):
        document.apply_change(change(start, end, new))
    assert ours.source == theirs.source
    assert ours.lines == tuple(ours.source.splitlines(keepends=True))


@settings(max_examples=300, deadline=None, database=None)
@given(st.lists(st.sampled_from(["a", "\n", "é", "😋"]), max_size=60).map("".join), st.data())
def test_a_line_start_walked_from_a_known_line_is_the_same(text: str, data: st.DataObject) -> None:
    """Walking from the line of the last change (forward or back) finds what walking from
    the start finds."""
    count = text.count("\n") + 1
    known_line = data.draw(st.integers(0, count - 1))
    known_start = line_start(text, known_line)
    assert known_start is not None
    for line in range(count + 2):
        assert line_start(text, line, (known_line, known_start)) == line_start(text, line)


@settings(max_examples=200, deadline=None, database=None)
@given(
    TEXTS,
    st.lists(
        st.tuples(
            st.tuples(st.integers(0, 8), st.integers(0, 6)),
            st.tuples(st.integers(0, 8), st.integers(0, 6)),
            st.sampled_from(["", "X", "\n", "😋\r\n", "ab\ncd"]),
        ),
        max_size=8,
    ),
)
def test_a_document_applies_change_after_change_as_the_model_does(
    text: str, changes: list[tuple[tuple[int, int], tuple[int, int], str]]
) -> None:
    """A document keeps the line of its last change to walk from: every change of a
    sequence still lands where the protocol's rules put it."""
    document = SyncedDocument("file:///x.py", text)
    for start, end, new in changes:
        first = model_offset(text, *start, "utf-16")
        last = max(first, model_offset(text, *end, "utf-16"))
        text = text[:first] + new + text[last:]
        document.apply_change(change(start, end, new))
        assert document.source == text


def test_lines_break_where_lsp_breaks_them() -> None:
    document = SyncedDocument("file:///x.py", "a\x0cb\r\nc\u2028d\re\nf")
    assert document.lines == ("a\x0cb\r\n", "c\u2028d\r", "e\n", "f")


# A form feed between sections and a U+2028 in a comment: valid Python, one LSP line each.
SECTIONED = (
    "import torch\n"
    "\x0c\n"
    "# weights\u2028(kept as they are)\n"
    "w = torch.randn(3, requires_grad=True)\n"
    "z = w * 2\n"
    "print(z.tolist())\n"
)


def test_an_edit_after_a_form_feed_is_analysed_where_the_editor_made_it(
    tmp_path: Path,
) -> None:
    with server_process(tmp_path, capabilities={"textDocument": {"diagnostic": {}}}) as pipe:
        uri = (tmp_path / "sections.py").as_uri()
        pipe.send(
            "textDocument/didOpen",
            {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": SECTIONED}},
        )
        pull = {"textDocument": {"uri": uri}}
        assert pipe.request("textDocument/diagnostic", pull)["result"]["items"] == []
        line = SECTIONED.split("\n").index("print(z.tolist())")
        start = {"line": line, "character": len("print(z.")}
        end = {"line": line, "character": len("print(z.tolist")}
        pipe.send(
            "textDocument/didChange",
            {
                "textDocument": {"uri": uri, "version": 2},
                "contentChanges": [{"range": {"start": start, "end": end}, "text": "numpy"}],
            },
        )
        items = pipe.request("textDocument/diagnostic", pull)["result"]["items"]
    finding = {"line": line, "character": len("print(")}  # `z.numpy()`
    assert [(item["code"], item["range"]["start"]) for item in items] == [("GG502", finding)]
