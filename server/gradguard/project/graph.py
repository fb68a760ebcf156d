"""Import cycles: the strongly connected components of the project's import graph.

Two files in one component import each other (directly or through others); facts between
them are unknown. Components are found by Tarjan's algorithm, iteratively (no recursion on
deep import chains), on the part of the graph reachable from the files asked about, each
file's edges read once on demand.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path


class Components:
    """Component numbers of files, computed on first question."""

    def __init__(self, links: Callable[[Path], tuple[Path, ...]]) -> None:
        self._links = links
        self._component: dict[Path, int] = {}

    def same(self, a: Path, b: Path) -> bool:
        """True when `a` and `b` are in one import cycle."""
        return self.of(a) == self.of(b)

    def of(self, start: Path) -> int:
        """The component number of `start`."""
        if start not in self._component:
            self._search(start)
        return self._component[start]

    def _search(self, start: Path) -> None:
        order: dict[Path, int] = {start: 0}
        low: dict[Path, int] = {start: 0}
        stack: list[Path] = [start]
        on_stack: set[Path] = {start}
        work: list[tuple[Path, Iterator[Path]]] = [(start, iter(self._links(start)))]
        while work:
            node, edges = work[-1]
            descended = False
            for target in edges:
                if target in self._component:
                    continue  # in a component finished by an earlier search
                if target not in order:
                    order[target] = low[target] = len(order)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(self._links(target))))
                    descended = True
                    break
                if target in on_stack:
                    low[node] = min(low[node], order[target])
            if descended:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == order[node]:
                number = len(self._component)
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    self._component[member] = number
                    if member == node:
                        break
