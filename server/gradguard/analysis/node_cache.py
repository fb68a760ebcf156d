"""Facts read off one syntax node, computed once per node across analysis passes.

Every pass over a module asks the same syntactic questions of the same functions (which
names are backpropagated, whether it may turn gradients back on...). The answers are kept by
`id()` of the node, with the node itself to tell a reused id apart once a tree is freed.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import TypeVar

N = TypeVar("N", bound=ast.AST)
R = TypeVar("R")

# Answers kept per cached function before the store starts over (a bound on memory).
_LIMIT = 1024


def cached_by_node(compute: Callable[[N], R]) -> Callable[[N], R]:
    """`compute`, remembering its answer for each node it was asked about."""
    store: dict[int, tuple[N, R]] = {}

    def cached(node: N) -> R:
        hit = store.get(id(node))
        if hit is not None and hit[0] is node:
            return hit[1]
        if len(store) >= _LIMIT:
            store.clear()
        answer = compute(node)
        store[id(node)] = (node, answer)
        return answer

    cached.__doc__ = compute.__doc__
    cached.__name__ = compute.__name__
    return cached
