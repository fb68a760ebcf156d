"""The project index of a long-running process (the language server), shared by threads.

`LiveIndex` wraps one `ProjectIndex` (with fact fingerprints, see `facts`) behind one lock:
a file is checked against the project under `checking(path)`, files change through
`revise` (an edit or a change on disk) and `forget_all` (files created or deleted), and the
index is warmed ahead of time by `read` (a file's text and imports, no parse) then
`summarise` (the files others import), one file per call so that a caller can report
progress, stop, and let checks of open files through between two files.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path

from gradguard.project import session
from gradguard.project.index import SUMMARY_BUDGET_LINES, ProjectIndex

# Warming skips files larger than this (one imported by an open file is still summarised
# when that file is checked): generated code is rarely imported for its facts.
WARM_MAX_BYTES = 512 * 1024
# At most this many files are summarised ahead of time (memory stays bounded on huge trees).
WARM_MAX_SUMMARIES = 1000


class LiveIndex:
    """One project index, every use of which holds the same (reentrant) lock."""

    def __init__(self) -> None:
        self._index = ProjectIndex(track_facts=True)
        self._lock = threading.RLock()

    @contextlib.contextmanager
    def checking(self, path: Path) -> Iterator[None]:
        """Check the file at `path` with the names it imports from the project known (the
        engine reads them through `session.project_imports`); enter in the checking thread."""
        with self._lock, session.checking(path, self._index):
            yield

    def revise(self, path: Path, text: str | None) -> frozenset[Path]:
        """The file at `path` now reads `text` (None: read the disk again); the checked files
        whose project facts changed (see `ProjectIndex.revise`)."""
        with self._lock:
            return self._index.revise(path, text) - {path.resolve()}

    def forget_all(self) -> frozenset[Path]:
        """Files appeared or disappeared: forget everything read; every checked file."""
        with self._lock:
            return self._index.forget_all()

    def read(self, path: Path) -> tuple[Path, ...]:
        """Read the file at `path` (unless too large) and return the project files it
        imports from; its text is not kept."""
        try:
            if path.stat().st_size > WARM_MAX_BYTES:
                return ()
        except OSError:
            return ()
        with self._lock:
            return self._index.links_of(path.resolve())

    def summarise(self, path: Path) -> bool:
        """Summarise the file at `path` now (it is imported by another file); False once
        the summaries fill the index's budget (`SUMMARY_BUDGET_LINES`): warming stops."""
        with self._lock:
            self._index.module(path.resolve())
            full = self._index.summarised_lines() >= SUMMARY_BUDGET_LINES
            self._index.trim()
            return not full

    def release(self, paths: Iterable[Path]) -> None:
        """Forget the text of files read while warming that nothing imports (they are read
        again when needed): memory goes to summaries only."""
        with self._lock:
            self._index.release(path.resolve() for path in paths)


def imported_files(links: dict[Path, tuple[Path, ...]]) -> list[Path]:
    """The files other files import from, most imported first, at most
    `WARM_MAX_SUMMARIES` (what warming summarises)."""
    counts: dict[Path, int] = {}
    for importer, targets in links.items():
        for target in targets:
            if target != importer:
                counts[target] = counts.get(target, 0) + 1
    ranked = sorted(counts, key=lambda p: (-counts[p], str(p)))
    return ranked[:WARM_MAX_SUMMARIES]
