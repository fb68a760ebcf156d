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
