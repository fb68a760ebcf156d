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


def test_an_answer_that_holds_its_tree_does_not_keep_it_for_long() -> None:
    """An answer about a module may hold the module itself (a weak mapping then never frees
    the entry): the cache keeps such answers for its last few modules only."""
    import gc
    import weakref

    from gradguard.analysis.node_cache import _MODULE_LIMIT

    @cached_by_node
    def nodes(node: ast.AST) -> tuple[ast.AST, ...]:
        return tuple(ast.walk(node))

    tree = ast.parse("a = b + c")
    assert nodes(tree)[0] is tree
    alive = weakref.ref(tree)
    del tree
    later = [ast.parse(f"x = {i}") for i in range(_MODULE_LIMIT)]
    for other in later:
        nodes(other)
    gc.collect()
    assert alive() is None
    assert all(nodes(other)[0] is other for other in later)


def test_a_check_scope_keeps_answers_for_the_check_only() -> None:
    """Inside `tree_scope` an answer is computed once, and dropped when the scope ends even
    when it holds its own node."""
    import gc
    import weakref

    from gradguard.analysis.node_cache import tree_scope

    asked: list[ast.AST] = []

    @cached_by_node
    def itself(node: ast.AST) -> tuple[ast.AST]:
        asked.append(node)
        return (node,)

    tree = ast.parse("a = b")
    function = ast.parse("def f():\n    pass\n").body[0]
    with tree_scope():
        assert itself(tree) == itself(tree) == (tree,)
        assert itself(function) == itself(function) == (function,)
    assert asked == [tree, function]
    alive = weakref.ref(function)
    asked.clear()
    del function
    gc.collect()
    assert alive() is None
