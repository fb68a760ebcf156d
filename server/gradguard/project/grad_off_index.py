"""The project's grad-off calls, per file, and which files share a program with which.

`GradOffIndex` answers, for a checked file, the names the other files of its part of the
import graph call where recording may be off (`grad_off_calls`), with the content keys of
those files: the checked file's result rests on every one of them (an edit may add a
`with torch.no_grad():` or an import), so they go into its dependencies, which the results
cache and the language server's `revise` read like those of imported names.

The project's files are those under its folder (`roots.project_folder`, else the folder
above the file's outermost package), found once per index without hidden or tool
directories and virtual environments (as `gradguard check` walks). Each file is read once
per content for its imports (`from ... import` and `import a.b`, resolved as the interpreter
resolves them); it is parsed only when it belongs to a checked file's part and its text
mentions a grad-mode switch. `forget(path)` drops what was read of a changed file;
`forget_all` every file (files created or deleted).
"""

from __future__ import annotations

import ast
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from gradguard.analysis.imports import is_library
from gradguard.project.content import content_key, parse_text, read_text
from gradguard.project.grad_off_calls import (
    SWITCH_TEXT,
    ImportedCall,
    imported_calls_on,
    names_called_off,
)
from gradguard.project.resolve import find_module
from gradguard.project.roots import project_folder, search_roots

# `import a.b`, `import a as b, c` at the start of a line (a superset of the statements).
_IMPORT = re.compile(r"^[ \t]*import[ \t]+([\w. \t,]+)", re.MULTILINE)
_FROM_IMPORT = re.compile(r"^[ \t]*from[ \t]", re.MULTILINE)
# Projects with more Python files than this are not scanned (the fact stays off).
MAX_FILES = 20_000


@dataclass(frozen=True)
class _Scanned:
    """What the fact needs of one file: its content key, the project files it imports, and
    whether its text mentions a grad-mode switch (only then is it parsed)."""

    key: str | None  # the content key, made only for a file another one may depend on
    links: tuple[Path, ...]
    switches: bool  # its text mentions a grad-mode switch
    imports: bool  # it has a `from ... import` statement


class GradOffIndex:
    """Grad-off calls of a project's files, read on demand, once per content."""

    def __init__(self, texts: dict[Path, str]) -> None:
        self._texts = texts  # the editor's text of open files (shared with the index)
        self._files: dict[Path, tuple[Path, ...]] = {}  # project folder -> its files
        self._scanned: dict[Path, _Scanned | None] = {}
        self._off: dict[Path, tuple[str, frozenset[str]]] = {}  # by content key
        self._on: dict[Path, tuple[str, frozenset[ImportedCall]]] = {}
        self._parts: dict[Path, dict[Path, int]] = {}  # project folder -> part numbers

    def forget(self, path: Path) -> None:
        """The file at `path` changed: read it again when asked."""
        self._scanned.pop(path, None)
        self._parts.clear()

    def forget_all(self) -> None:
        """Files appeared or disappeared: list the project again."""
        self._files.clear()
        self._scanned.clear()
        self._off.clear()
        self._on.clear()
        self._parts.clear()

    def names(self, path: Path) -> frozenset[str]:
        """The names the file at `path` calls with recording maybe off (empty: unreadable)."""
        return self._read(path, self._off, _off_of)

    def calls_on(self, path: Path) -> frozenset[ImportedCall]:
        """The file's calls of imported names outside every grad-off region."""
        return self._read(path, self._on, _on_of)

    def _read(
        self,
        path: Path,
        cache: dict[Path, tuple[str, _T]],
        compute: Callable[[ast.Module | None, _Scanned], _T],
    ) -> _T:
        """A fact of the file at `path` computed once per content (from its tree, when the
        text has what the fact needs, else from None)."""
        scanned = self._keyed(path)
        if scanned is None:
            return compute(None, _UNREAD)  # nothing
        known = cache.get(path)
        key = scanned.key or ""
        if known is not None and known[0] == key:
            return known[1]
        found = compute(None, scanned)
        if found is _NEEDS_TREE:
            text = self._text(path)
            fresh = text is not None and content_key(text) == key
            tree = parse_text(path, text) if text is not None and fresh else None
            found = compute(tree, scanned) if tree is not None else compute(None, _UNREAD)
        cache[path] = (key, found)
        return found

    def called_off_elsewhere(self, path: Path) -> tuple[frozenset[str], dict[Path, str]]:
        """The names the other files of `path`'s part of the import graph call with
        recording maybe off, but those one of them certainly calls with recording on (see
        `grad_off_calls`), and the content keys of those files."""
        folder = _folder(path)
        files = self._project_files(folder)
        if path not in files:
            return frozenset(), {}
        parts = self._parts.get(folder)
        if parts is None:
            parts = self._parts[folder] = self._connect(files)
        part = parts.get(path)
        names: set[str] = set()
        depends: dict[Path, str] = {}
        others: list[Path] = []
        for other, number in parts.items():
            if number != part or other == path:
                continue
            scanned = self._keyed(other)
            if scanned is None or scanned.key is None:
                continue
            depends[other] = scanned.key
            names |= self.names(other)
            others.append(other)
        off = frozenset(names)
        for importer, call in ((o, c) for o in others if off for c in self.calls_on(o)):
            if call.name in off and (call.caller is None or call.caller not in off):
                found = find_module(importer, call.module, call.level)
                if found is not None and found.file == path:
                    names.discard(call.name)  # that caller certainly runs it with grad on
        return frozenset(names), depends

    def _project_files(self, folder: Path) -> tuple[Path, ...]:
        files = self._files.get(folder)
        if files is None:
            listed = sorted(_python_files(folder))
            files = self._files[folder] = tuple(listed) if len(listed) <= MAX_FILES else ()
        return files

    def _connect(self, files: tuple[Path, ...]) -> dict[Path, int]:
        """Each file's part of the import graph, its edges taken both ways."""
        parent: dict[Path, Path] = {f: f for f in files}

        def root(node: Path) -> Path:
            while parent[node] != node:
                parent[node] = parent[parent[node]]
                node = parent[node]
            return node

        for file in files:
            scanned = self._scan(file)
            for link in scanned.links if scanned is not None else ():
                if link in parent:
                    parent[root(link)] = root(file)
        numbers: dict[Path, int] = {}
        return {f: numbers.setdefault(root(f), len(numbers)) for f in files}

    def _scan(self, path: Path) -> _Scanned | None:
        if path not in self._scanned:
            text = self._text(path)
            self._scanned[path] = None if text is None else _scanned(path, text, keyed=False)
        return self._scanned[path]

    def _keyed(self, path: Path) -> _Scanned | None:
        """`_scan`, with the content key: made on demand, for the files of a checked file's
        part only (a check of a file no other file shares a program with hashes nothing,
        which the command line's start-up keeps light). The text is read again for it; if
        what the scan found changed meanwhile, the parts are made again at the next check."""
        scanned = self._scan(path)
        if scanned is None or scanned.key is not None:
            return scanned
        text = self._text(path)
        keyed = None if text is None else _scanned(path, text, keyed=True)
        if keyed is None or (keyed.links, keyed.switches) != (scanned.links, scanned.switches):
            self._parts.clear()
        self._scanned[path] = keyed
        return keyed

    def _text(self, path: Path) -> str | None:
        text = self._texts.get(path)
        return text if text is not None else read_text(path)


_T = TypeVar("_T")
# What a fact's computation returns, given no tree, when it needs the file's tree.
_NEEDS_TREE: Any = object()
_UNREAD = _Scanned("", (), switches=False, imports=False)


def _scanned(path: Path, text: str, *, keyed: bool) -> _Scanned:
    """What the fact needs of the file at `path` with `text` (its content key if `keyed`)."""
    return _Scanned(
        content_key(text) if keyed else None,
        tuple(_links(path, text)),
        SWITCH_TEXT.search(text) is not None,
        _FROM_IMPORT.search(text) is not None,
    )


def _off_of(tree: ast.Module | None, scanned: _Scanned) -> frozenset[str]:
    if not scanned.switches:
        return frozenset()
    if tree is None:
        return _NEEDS_TREE  # type: ignore[no-any-return]
    try:
        return names_called_off(tree)
    except RecursionError:
        return frozenset()


def _on_of(tree: ast.Module | None, scanned: _Scanned) -> frozenset[ImportedCall]:
    if not scanned.imports:
        return frozenset()
    if tree is None:
        return _NEEDS_TREE  # type: ignore[no-any-return]
    try:
        return imported_calls_on(tree)
    except RecursionError:
        return frozenset()


def _folder(path: Path) -> Path:
    """The folder whose files may share a program with the file at `path`."""
    found = project_folder(path.parent)
    return found if found is not None else search_roots(path.parent)[-1]


def _links(importer: Path, text: str) -> Iterator[Path]:
    """The project files the text's `from ... import` and `import ...` statements name."""
    from gradguard.project.index import links_in  # the same reading as the import graph

    yield from links_in(importer, text)
    for match in _IMPORT.finditer(text):
        for item in match.group(1).split(","):
            words = item.split()
            module = words[0] if words else ""
            if not module or is_library(module.split(".")[0]):
                continue
            found = find_module(importer, module, 0)
            if found is not None and found.file is not None:
                yield found.file


def _python_files(folder: Path) -> Iterator[Path]:
    """The `.py` files under `folder`, as a check of the folder walks it (without asking
    git what it ignores: an ignored file only adds names, which only silences)."""
    from gradguard.files import VENV_MARKER, skipped_dir

    for current, dirnames, filenames in os.walk(folder):
        if VENV_MARKER in filenames and current != str(folder):
            dirnames[:] = []
            continue
        dirnames[:] = [d for d in dirnames if not skipped_dir(d)]
        base = Path(current)
        for name in filenames:
            # Regular files only: reading a FIFO or a device named `*.py` would block.
            if name.endswith(".py") and _regular(base / name):
                yield base / name


def _regular(path: Path) -> bool:
    import stat

    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False
