"""Facts read off one syntax node, computed once per node across analysis passes.

Every pass over a module asks the same syntactic questions of the same functions (which
names are backpropagated, whether it may turn gradients back on...). The answers are kept
per node in a weak mapping: a tree the editor has replaced is freed with its answers, so a
long editing session does not keep every version of a file alive.
"""

from __future__ import annotations

import ast
import weakref
from collections.abc import Callable
from typing import TypeVar

N = TypeVar("N", bound=ast.AST)
R = TypeVar("R")

# Answers kept per cached function before the store starts over (a bound on memory).
_LIMIT = 1024


def cached_by_node(compute: Callable[[N], R]) -> Callable[[N], R]:
    """`compute`, remembering its answer for each node it was asked about."""
    store: weakref.WeakKeyDictionary[N, R] = weakref.WeakKeyDictionary()

    def cached(node: N) -> R:
        try:
            return store[node]
        except KeyError:
            pass
        if len(store) >= _LIMIT:
            store.clear()
        answer = compute(node)
        store[node] = answer
        return answer

    cached.__doc__ = compute.__doc__
    cached.__name__ = compute.__name__
    return cached
