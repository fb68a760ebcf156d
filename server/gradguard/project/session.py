"""The project index of a `gradguard check` process and the file it is checking now.

`checking(path)` makes the engine analyse that file with the names it imports from the
project known (`project_imports`); `dependencies(path)` then tells which project files the
result rests on, for the results cache. One index per process (the CLI's, or each worker's):
every project file is read and summarised at most once per run. A long-running caller with
its own index (the language server, `project.live`) passes it: `checking(path, index)`.

The file being checked is held in a context variable, so `checking` must be entered in the
thread that runs the check (a variable set on an event loop does not reach its executor).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar
from pathlib import Path

from gradguard.project.index import FileImports, ProjectIndex

_index: ProjectIndex | None = None
_checking: ContextVar[tuple[ProjectIndex | None, Path] | None] = ContextVar(
    "gradguard_project_file", default=None
)


def index() -> ProjectIndex:
    """This process's project index."""
    global _index
    if _index is None:
        _index = ProjectIndex()
    return _index


def reset() -> None:
    """Start over with an empty index (a new project, or files that changed on disk)."""
    global _index
    _index = None


@contextlib.contextmanager
def checking(path: Path, project: ProjectIndex | None = None) -> Iterator[None]:
    """Analyse the file at `path` as part of its project while the block runs (with the
    index `project`, or this process's)."""
    token = _checking.set((project, path.resolve()))
    try:
        yield
    finally:
        _checking.reset(token)


def project_imports() -> FileImports | None:
    """The project as seen from the file being checked (None outside `checking`)."""
    current = _checking.get()
    if current is None:
        return None
    project, path = current
    return (project or index()).imports_for(path)


def dependencies(path: Path) -> dict[str, str]:
    """The project files the last check of `path` used, with their content keys."""
    if _index is None:
        return {}
    used = _index.dependencies(path.resolve())
    return {str(p): key for p, key in sorted(used.items())}
