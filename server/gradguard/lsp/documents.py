"""What gets analysed: a snapshot of one text document or one whole notebook.

A notebook is analysed as one module (its code cells in order) under the notebook's URI;
each of its cells maps back to that notebook. Everything here is plain data so the
snapshot can be handed to a worker thread while the editor keeps typing.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote

from pygls.uris import to_fs_path
from pygls.workspace import Workspace

from gradguard.core.findings import Position, Range
from gradguard.core.notebook import Cell, ConcatenatedNotebook, concatenate
from gradguard.file_check import read
from gradguard.ipynb import Notebook
from gradguard.lsp.versions import NotebookVersions
from gradguard.outcome import FileOutcome

PYTHON_LANGUAGES = frozenset({"python", "python3"})
_SURROGATES = re.compile("[\ud800-\udfff]")


@dataclass(frozen=True)
class Snapshot:
    """The text to analyse for one key (a document or notebook URI) at one version."""

    key: str
    version: int | None
    text: str
    path: str | None
    notebook: ConcatenatedNotebook | None = None
    # A notebook's cells by URI: their position in it, from 1 (markdown cells count).
    cell_numbers: Mapping[str, int] = field(default_factory=dict)
    # A closed notebook read from disk: the 0-based line of the `.ipynb` file that holds
    # each line of `text` (its code cells joined). Its diagnostics are shown on those lines.
    file_lines: tuple[int, ...] | None = None

    def map_range(self, rng: Range) -> tuple[str, Range] | None:
        """Where an analysed range is shown: the document itself, a notebook cell, or the
        lines of a closed notebook's file."""
        if self.file_lines is not None:
            return self.key, self._in_file(rng)
        if self.notebook is None:
            return self.key, rng
        return self.notebook.map_range(rng)

    def _in_file(self, rng: Range) -> Range:
        lines = self.file_lines or (0,)

        def line(number: int) -> int:
            return lines[min(number, len(lines) - 1)]

        return Range(
            Position(line(rng.start.line), rng.start.character),
            Position(line(rng.end.line), rng.end.character),
        )

    @property
    def from_disk_notebook(self) -> bool:
        """True for a closed notebook read from disk (its fixes cannot apply to its JSON)."""
        return self.file_lines is not None

    def uris(self) -> list[str]:
        """Every document URI this snapshot publishes diagnostics for."""
        if self.notebook is None:
            return [self.key]
        return [span.uri for span in self.notebook.spans]


def clean_text(text: str) -> str:
    """`text` with lone surrogates replaced by U+FFFD.

    A client's JSON may carry "\\ud800" alone; no encoding can convert such a string, and
    every position conversion would fail on it. U+FFFD, like a lone surrogate, is one
    UTF-16 unit and one code point, so every position the client sends still holds.
    """
    if text.isascii():  # most sources: no scan of the whole text on every keystroke
        return text
    try:
        text.encode("utf-8")  # one pass in C; fails exactly when a lone surrogate is there
    except UnicodeEncodeError:
        return _SURROGATES.sub("\ufffd", text)
    return text


def fs_path(uri: str) -> str | None:
    """The file-system path of a `file:` URI (notebook cells have none)."""
    if not uri.startswith("file:"):
        return None
    return to_fs_path(uri)


def key_for(workspace: Workspace, uri: str) -> str:
    """The analysis key of a document: its notebook's URI for a cell, else its own."""
    notebook = workspace.get_notebook_document(cell_uri=uri)
    return notebook.uri if notebook is not None else uri


def snapshot(workspace: Workspace, key: str, versions: NotebookVersions) -> Snapshot | None:
    """The current text of document or notebook `key`, or `None` when it is not open."""
    notebook = workspace.get_notebook_document(notebook_uri=key)
    if notebook is not None:
        cells: list[Cell] = []
        numbers = {cell.document: number for number, cell in enumerate(notebook.cells, start=1)}
        for cell in notebook.cells:
            if cell.kind != 2:  # NotebookCellKind.Code; markdown cells are not Python
                continue
            document = workspace.text_documents.get(unquote(cell.document))
            if document is None or (document.language_id or "python") not in PYTHON_LANGUAGES:
                continue
            cells.append(Cell(cell.document, clean_text(document.source)))
        concatenated = concatenate(cells)
        version = versions.get(key)
        return Snapshot(key, version, concatenated.text, fs_path(key), concatenated, numbers)
    document = workspace.text_documents.get(unquote(key))
    if document is None:
        return None
    return Snapshot(key, document.version, clean_text(document.source), fs_path(key))


def is_open(workspace: Workspace, uri: str) -> bool:
    """True when `uri` is an open document, notebook, or notebook cell."""
    return (
        workspace.get_notebook_document(notebook_uri=uri) is not None
        or unquote(uri) in workspace.text_documents
    )


def current_version(workspace: Workspace, key: str, versions: NotebookVersions) -> int | None:
    """The version of `key` now (`None` when it is no longer open)."""
    if workspace.get_notebook_document(notebook_uri=key) is not None:
        return versions.get(key)
    document = workspace.text_documents.get(unquote(key))
    return None if document is None else document.version


def disk_snapshot(path: Path, uri: str) -> Snapshot | None:
    """A closed file read from disk (workspace diagnostics); `None` if it cannot be read.

    Read exactly as `gradguard check` reads it (`gradguard.file_check.read`: BOM, coding
    cookies, a notebook's code cells). Only regular files below the size limit are read,
    without ever blocking: a FIFO or a link to a device named `*.py` is passed over.
    """
    got = read(path, str(path))
    if isinstance(got, FileOutcome):  # why is said by `gradguard check`; here it is skipped
        return None
    if got.notebook is None:
        return Snapshot(uri, None, got.decoded.text, str(path))
    return Snapshot(uri, None, got.text, str(path), file_lines=_file_lines(got.notebook))


def _file_lines(notebook: Notebook) -> tuple[int, ...]:
    """The 0-based file line of each line of the notebook's joined code cells."""
    layouts = notebook.layout()
    count = sum(layout.line_count for layout in layouts)
    lines = [0] * count
    for layout in layouts:
        for index, file_line in enumerate(layout.file_lines[: layout.line_count]):
            lines[layout.first_line + index] = file_line - 1
    return tuple(lines)
