"""Versions of open notebooks: one server-wide counter, bumped on every change seen.

A notebook's own version does not move when a cell's text changes (VS Code bumps only the
cell document's), and a sum of cell versions can come back to an earlier value (a deleted
cell takes its version with it), which served the cached analysis of other text. The
counter only grows, across notebooks and reopenings, so a version names one text.
"""

from __future__ import annotations

import itertools


class NotebookVersions:
    """The current version of each open notebook (by notebook URI)."""

    def __init__(self) -> None:
        self._counter = itertools.count(1)
        self._versions: dict[str, int] = {}

    def bump(self, notebook_uri: str) -> None:
        """The notebook (or one of its cells) changed: give it a version never used before."""
        self._versions[notebook_uri] = next(self._counter)

    def get(self, notebook_uri: str) -> int | None:
        """The notebook's current version (`None` before it is opened)."""
        return self._versions.get(notebook_uri)

    def forget(self, notebook_uri: str) -> None:
        """The notebook closed."""
        self._versions.pop(notebook_uri, None)
