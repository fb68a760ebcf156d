"""The shared walk's parent map and child lists are the ones `ast` gives (same entries, same
order), on every corpus script: the analysis and the rules that used to build their own
read this one instead."""

from __future__ import annotations

import ast

from gradguard.analysis.node_cache import tree_scope
from gradguard.analysis.walk import (
    children,
    enclosing_function,
    innermost_function,
    module_nodes,
    module_parents,
)
from tests.test_corpus import corpus_files


def _parents_by_ast(tree: ast.Module) -> dict[int, ast.AST]:
    parents: dict[int, ast.AST] = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            parents[id(child)] = node
    return parents


def test_parents_and_children_match_ast_on_the_corpus() -> None:
    for path in corpus_files():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        with tree_scope():
            nodes = module_nodes(tree)
            assert [id(n) for n in nodes] == [id(n) for n in ast.walk(tree)], path
            expected = _parents_by_ast(tree)
            got = module_parents(tree)
            assert list(got) == list(expected), path  # same keys, in the same order
            assert all(got[key] is expected[key] for key in expected), path
            for node in nodes:
                assert children(node) == list(ast.iter_child_nodes(node)), path


def test_a_shared_load_context_has_the_last_parent_in_walk_order() -> None:
    tree = ast.parse("a = b\nc = d\n")
    loads = [n for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)]
    with tree_scope():
        assert module_parents(tree)[id(loads[0].ctx)] is loads[-1]


def test_enclosing_stops_at_a_class_or_lambda_innermost_goes_through() -> None:
    tree = ast.parse(
        "def outer(self):\n"
        "    class Inner:\n"
        "        size = self.width\n"
        "    key = lambda x: self.depth\n"
        "    return self.height\n"
        "top = 1\n"
    )
    with tree_scope():
        parents = module_parents(tree)
        outer = tree.body[0]
        found = {
            n.attr: (enclosing_function(n, parents), innermost_function(n, parents))
            for n in ast.walk(tree)
            if isinstance(n, ast.Attribute)
        }
        assert found == {
            "width": (None, outer),
            "depth": (None, outer),
            "height": (outer, outer),
        }
        top = tree.body[1]
        assert enclosing_function(top, parents) is None
        assert innermost_function(top, parents) is None
