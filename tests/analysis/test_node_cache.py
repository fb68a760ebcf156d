"""Syntactic facts are computed once per node, and never handed to another node."""

from __future__ import annotations

import ast

from gradguard.analysis.node_cache import cached_by_node


def test_an_answer_is_kept_per_node() -> None:
    calls: list[ast.AST] = []

    @cached_by_node
    def size(node: ast.AST) -> int:
        calls.append(node)
        return len(list(ast.walk(node)))

    first, second = ast.parse("a = 1"), ast.parse("b = f(x, y)")
    assert size(first) == size(first)
    assert size(second) != size(first)
    assert calls == [first, second]


def test_a_freed_tree_takes_its_answers_with_it() -> None:
    """The cache must not keep replaced versions of a file alive (the server's memory)."""
    import gc
    import weakref

    @cached_by_node
    def names(node: ast.AST) -> list[str]:
        return [n.id for n in ast.walk(node) if isinstance(n, ast.Name)]

    tree = ast.parse("a = b + c")
    assert names(tree) == ["a", "b", "c"]
    alive = weakref.ref(tree)
    del tree
    gc.collect()
    assert alive() is None
