"""Facts read off one syntax node, computed once per node across analysis passes.

Every pass over a module asks the same syntactic questions of the same functions (which
names are backpropagated, whether it may turn gradients back on...). The answers are kept
per node in a weak mapping: a tree the editor has replaced is freed with its answers, so a
long editing session does not keep every version of a file alive.

A weak mapping frees an entry only when nothing else holds its key, and an answer about a
whole module often holds the module (its nodes, or the tree itself as a marker): such an
entry would keep its tree alive until the store is cleared. Answers about modules are
therefore kept apart, for the last few modules only (`_MODULE_LIMIT`: the trees being
analysed now), so replaced versions of a file are freed soon whatever their answers hold
(and at once when their answers do not hold them). Other nodes' answers are bounded by
`_LIMIT` per function, cleared one by one, oldest first.

Inside `tree_scope` (the engine opens one around each check) answers are kept in a plain
store of that scope instead, and dropped with it: a check's answers then never outlive the
check, whatever they hold, and the global stores are not touched.
"""

from __future__ import annotations

import ast
import contextlib
import itertools
import threading
import weakref
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

N = TypeVar("N", bound=ast.AST)
R = TypeVar("R")

# Answers kept per cached function before the store starts over (a bound on memory).
_LIMIT = 1024
# Answers about whole modules kept per cached function (see the module docs).
_MODULE_LIMIT = 4
# Tells the cached functions apart in a scope's store.
_keys = itertools.count()


class _Scope(threading.local):
    """The answers of the check running in this thread: by cache, by id() of the node
    (kept with the node, so the id stays its own while the scope lives)."""

    stores: Stores | None = None
    # Told of every cached answer read while it is set (see `watching`).
    watcher: Watcher | None = None


_scope = _Scope()


class Watcher:
    """What the cached functions were asked while a watch was on (see
    `gradguard.analysis.incremental`): id() of every node asked about, into `reads` when it is
    set, and each answer computed about a module or class, with the function computing it."""

    def __init__(self) -> None:
        self.reads: set[int] | None = None
        self.containers: list[tuple[Callable[[Any], Any], ast.AST, Any]] = []
        # How many answers about a module are being computed (their own reads of the module
        # are not noted: the answer is compared whole for the new tree).
        self.in_module_answer = 0

    def asked(self, compute: Callable[[Any], Any], node: ast.AST, answer: Any, fresh: bool) -> None:
        """`compute` answered `answer` about `node` (`fresh`: just computed)."""
        if self.reads is not None and not (self.in_module_answer and isinstance(node, ast.Module)):
            self.reads.add(id(node))
            if isinstance(node, ast.Module):
                self.reads.add(id(compute))  # which question about the module
        if fresh and isinstance(node, ast.Module | ast.ClassDef):
            self.containers.append((compute, node, answer))


@contextlib.contextmanager
def unwatched_module_reads() -> Iterator[None]:
    """While the block runs, the watcher (if any) does not note reads of the module's cached
    answers: the block computes an answer the caller checks for the new tree itself."""
    watcher = _scope.watcher
    if watcher is None:
        yield
        return
    watcher.in_module_answer += 1
    try:
        yield
    finally:
        watcher.in_module_answer -= 1


@contextlib.contextmanager
def watching(watcher: Watcher) -> Iterator[None]:
    """Tell `watcher` of the cached answers read in this thread while the block runs."""
    previous, _scope.watcher = _scope.watcher, watcher
    try:
        yield
    finally:
        _scope.watcher = previous


@contextlib.contextmanager
def tree_scope(stores: Stores | None = None) -> Iterator[None]:
    """Keep every cached answer computed in this thread until the block ends, then drop
    them all (nested scopes share the outermost one). With `stores` (a scope's answers the
    caller kept, see `gradguard.analysis.incremental`), start from those answers and add
    the new ones to them."""
    if _scope.stores is not None:
        yield
        return
    _scope.stores = {} if stores is None else stores
    try:
        yield
    finally:
        _scope.stores = None


# A scope's answers: by cached function, by id() of the node, (node, answer).
Stores = dict[int, dict[int, tuple[Any, Any]]]
# The key of each cached function's answers in a scope's store, by the function computing them.
_KEYS: dict[Callable[[Any], Any], int] = {}


def seed(stores: Stores, compute: Callable[[Any], Any], node: ast.AST, answer: Any) -> None:
    """Put the answer of `compute` (a function `cached_by_node` wraps) about `node` into a
    scope's answers, as if it had been computed there."""
    stores.setdefault(_KEYS[compute], {})[id(node)] = (node, answer)


def answer_in(stores: Stores, compute: Callable[[Any], Any], node: ast.AST) -> Any | None:
    """The answer of `compute` about `node` a scope's answers hold, if any."""
    found = stores.get(_KEYS[compute], {}).get(id(node))
    return None if found is None else found[1]


def drop_answers(stores: Stores, keep: Callable[[int], bool]) -> None:
    """Forget the answers of a scope about the nodes whose id() `keep` rejects."""
    for answers in stores.values():
        for key in [key for key in answers if not keep(key)]:
            del answers[key]


def cached_by_node(compute: Callable[[N], R]) -> Callable[[N], R]:
    """`compute`, remembering its answer for each node it was asked about."""
    key = next(_keys)
    _KEYS[compute] = key
    store: weakref.WeakKeyDictionary[N, R] = weakref.WeakKeyDictionary()
    modules: weakref.WeakKeyDictionary[N, R] = weakref.WeakKeyDictionary()
    lock = threading.Lock()

    def cached(node: N) -> R:
        scoped = _scope.stores
        if scoped is not None:
            own = scoped.get(key)
            if own is None:
                own = scoped[key] = {}
            found = own.get(id(node))
            watcher = _scope.watcher
            if found is not None:
                answer: R = found[1]
                if watcher is not None:
                    watcher.asked(compute, node, answer, False)
                return answer
            if watcher is not None and isinstance(node, ast.Module):
                watcher.in_module_answer += 1
                try:
                    answer = compute(node)
                finally:
                    watcher.in_module_answer -= 1
            else:
                answer = compute(node)
            own[id(node)] = (node, answer)
            if watcher is not None:
                watcher.asked(compute, node, answer, True)
            return answer
        kept, limit = (modules, _MODULE_LIMIT) if isinstance(node, ast.Module) else (store, _LIMIT)
        try:
            return kept[node]
        except KeyError:
            pass
        answer = compute(node)
        with lock:  # the server analyses in two threads
            while len(kept) >= limit:
                _drop_oldest(kept)
            kept[node] = answer
        return answer

    cached.__doc__ = compute.__doc__
    cached.__name__ = compute.__name__
    cached.__wrapped__ = compute  # type: ignore[attr-defined]
    return cached


def _drop_oldest(store: weakref.WeakKeyDictionary[N, R]) -> None:
    """Forget the entry stored first."""
    oldest = next(iter(store.keys()), None)
    if oldest is None:  # only dead keys left, not yet swept: start over
        store.clear()
    else:
        store.pop(oldest, None)


def last_calls(size: int) -> Callable[[Callable[..., R]], Callable[..., R]]:
    """Keep the answers of the last `size` calls of a function of whole texts, found again by
    the identity of their arguments: an edit asks about the old text and the new one many
    times over, and a string of a whole file is compared by `is`, never hashed or scanned.
    Shared answers: never change one."""

    def decorate(compute: Callable[..., R]) -> Callable[..., R]:
        kept: list[tuple[tuple[object, ...], R]] = []

        def cached(*args: object) -> R:
            for key, answer in kept:
                if len(key) == len(args) and all(a is b for a, b in zip(key, args, strict=True)):
                    return answer
            answer = compute(*args)
            kept[:] = [(args, answer), *kept[: size - 1]]
            return answer

        cached.__wrapped__ = compute  # type: ignore[attr-defined]
        cached.__doc__ = compute.__doc__
        return cached

    return decorate
