"""After any sequence of edits, the server reports what a fresh analysis of the final text
reports.

A property test over the real server (JSON-RPC over a pipe, one process for all examples):
each example opens a corpus file, replays a random sequence of incremental edits and asks
for the diagnostics after every one of them (pull mode, so every version is analysed,
half-typed ones included, and the server's per-document state is exercised), then compares
the diagnostics of the final version with those of the same text opened fresh under another
URI. Edits are of two kinds:

* ones that keep the file valid: a comment line, a new statement or a blank line before a
  statement (at its indentation), a rename of one name;
* ones that break it (random characters and line breaks, deletions, anywhere: in and
  between functions), undone later in reverse order, as typing and undoing would.

So the final text always parses: a text that does not parse has, by design, history-
dependent diagnostics (the last good ones are kept).
"""

from __future__ import annotations

import ast
import itertools
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonrpc_pipe import JsonRpcPipe

from .wire import SERVER

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
# Training code with findings (and negatives without): the files the rules are tuned on.
FILES = sorted(p for p in CORPUS.rglob("*.py") if 40 <= len(p.read_text().splitlines()) <= 120)
JUNK = st.text(alphabet="x(): \n\t=[],.'\"#\\", min_size=1, max_size=6)


@dataclass(frozen=True)
class Edit:
    """Replace `old` at `offset` with `new` (an LSP change once positions are computed)."""

    offset: int
    old: str
    new: str

    def apply(self, text: str) -> str:
        assert text[self.offset : self.offset + len(self.old)] == self.old
        return text[: self.offset] + self.new + text[self.offset + len(self.old) :]

    def undo(self) -> Edit:
        return Edit(self.offset, self.new, self.old)


def position(text: str, offset: int) -> dict[str, int]:
    """The LSP position (UTF-16 columns) of `offset` in `text`."""
    before = text[:offset]
    line = before.count("\n")
    column = before[before.rfind("\n") + 1 :]
    return {"line": line, "character": len(column.encode("utf-16-le")) // 2}


def change(text: str, edit: Edit) -> dict[str, Any]:
    """The incremental `contentChanges` item for `edit` on `text`."""
    end = edit.offset + len(edit.old)
    return {
        "range": {"start": position(text, edit.offset), "end": position(text, end)},
        "text": edit.new,
    }


def statement_starts(text: str) -> list[tuple[int, str]]:
    """(offset, indentation) of every line that starts a simple statement on its own."""
    lines = text.splitlines(keepends=True)
    offsets = [0, *itertools.accumulate(len(line) for line in lines)]
    starts: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(text)):
        if not isinstance(node, ast.stmt) or getattr(node, "decorator_list", None):
            continue
        line = lines[node.lineno - 1]
        indent = line[: len(line) - len(line.lstrip())]
        if len(indent) == node.col_offset:  # not after a `;`
            starts.append((offsets[node.lineno - 1], indent))
    return sorted(set(starts))


def names_in(text: str) -> list[int]:
    """The offset of every name (`ast.Name`) in `text`."""
    lines = text.splitlines(keepends=True)
    offsets = [0, *itertools.accumulate(len(line) for line in lines)]
    found = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Name):
            line = lines[node.lineno - 1]
            column = len(line.encode()[: node.col_offset].decode())
            found.append(offsets[node.lineno - 1] + column)
    return sorted(found)


@st.composite
def valid_edit(draw: st.DrawFn, text: str) -> Edit:
    starts = statement_starts(text)
    offset, indent = draw(st.sampled_from(starts))
    kind = draw(st.sampled_from(["comment", "statement", "blank", "rename"]))
    if kind == "rename":
        node = draw(st.sampled_from(names_in(text)))
        return Edit(node, text[node], text[node] + "q")
    line = {
        "comment": "# edited\n",
        "statement": "unused_total = 0\n",
        "blank": "\n",
    }[kind]
    return Edit(offset, "", (indent + line) if kind != "blank" else line)


@st.composite
def breaking_edit(draw: st.DrawFn, text: str) -> Edit:
    offset = draw(st.integers(0, len(text)))
    if draw(st.booleans()):
        return Edit(offset, "", draw(JUNK))
    length = draw(st.integers(1, 12))
    return Edit(offset, text[offset : offset + length], "")


@st.composite
def session(draw: st.DrawFn) -> tuple[Path, list[Edit]]:
    """A file and the edits replayed on it (breaking ones undone before the end)."""
    path = draw(st.sampled_from(FILES))
    text = path.read_text()
    edits: list[Edit] = []
    for _ in range(draw(st.integers(1, 4))):
        if draw(st.booleans()):
            edit = draw(valid_edit(text))
            edits.append(edit)
            text = edit.apply(text)
            continue
        pending: list[Edit] = []
        for _ in range(draw(st.integers(1, 3))):
            edit = draw(breaking_edit(text))
            pending.append(edit)
            text = edit.apply(text)
        edits.extend(pending)
        for edit in reversed(pending):  # undo, most recent first
            edits.append(edit.undo())
            text = edit.undo().apply(text)
    return path, edits


def replay(path: Path, edits: list[Edit]) -> Iterator[tuple[str, dict[str, Any]]]:
    """Each text in turn, with the change that produced it."""
    text = path.read_text()
    for edit in edits:
        item = change(text, edit)
        text = edit.apply(text)
        yield text, item


@pytest.fixture(scope="module")
def pull_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JsonRpcPipe]:
    root = tmp_path_factory.mktemp("edits")
    pipe = JsonRpcPipe(SERVER, root)
    try:
        pipe.initialize(root, capabilities={"textDocument": {"diagnostic": {}}})
        pipe.root = root  # type: ignore[attr-defined]
        yield pipe
    finally:
        pipe.close()


_uris = itertools.count()


def pulled(pipe: JsonRpcPipe, uri: str) -> list[dict[str, Any]]:
    """The diagnostics the server reports now for `uri` (pull: waits for the analysis)."""
    reply = pipe.request("textDocument/diagnostic", {"textDocument": {"uri": uri}})
    items: list[dict[str, Any]] = reply["result"]["items"]
    return items


def open_document(pipe: JsonRpcPipe, name: str, text: str) -> str:
    uri = (pipe.root / name).as_uri()  # type: ignore[attr-defined]
    pipe.send(
        "textDocument/didOpen",
        {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}},
    )
    return uri


def comparable(items: list[dict[str, Any]], uri: str) -> str:
    """Diagnostics as JSON, with what names the document replaced by placeholders: its URI
    (in related locations and fix data) and the version its fixes apply to."""
    plain = [
        {**item, "data": {**item["data"], "version": "<version>"}}
        if isinstance(item.get("data"), dict)
        else item
        for item in items
    ]
    return json.dumps(plain, sort_keys=True, indent=1).replace(json.dumps(uri)[1:-1], "<uri>")


@settings(
    max_examples=12,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(session())
def test_edited_document_reports_what_a_fresh_analysis_reports(
    pull_server: JsonRpcPipe, case: tuple[Path, list[Edit]]
) -> None:
    path, edits = case
    number = next(_uris)
    uri = open_document(pull_server, f"edited_{number}.py", path.read_text())
    pulled(pull_server, uri)
    text = path.read_text()
    for version, (text, item) in enumerate(replay(path, edits), start=2):  # noqa: B007
        pull_server.send(
            "textDocument/didChange",
            {"textDocument": {"uri": uri, "version": version}, "contentChanges": [item]},
        )
        pulled(pull_server, uri)  # every version analysed, broken ones included
    ast.parse(text)  # the final text is valid by construction
    final = pulled(pull_server, uri)
    fresh_uri = open_document(pull_server, f"fresh_{number}.py", text)
    fresh = pulled(pull_server, fresh_uri)
    assert comparable(final, uri) == comparable(fresh, fresh_uri)
    for closing in (uri, fresh_uri):
        pull_server.send("textDocument/didClose", {"textDocument": {"uri": closing}})
