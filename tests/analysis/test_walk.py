"""Direct tests of `gradguard.analysis.walk`: the same nodes in the same order as `ast`."""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.analysis.walk import (
    children,
    innermost_first,
    module_nodes,
    module_nodes_of,
    own_nodes,
    walk,
    within,
)

SOURCES = [
    "x = 1",
    "loss = model(x).sum()\nloss.backward()",
    "for i, (a, b) in enumerate(zip(xs, ys)):\n    if a:\n        b += [c for c in a if c]\n",
    "@torch.no_grad()\ndef f(x, *args, k=1, **kw):\n    return lambda y: {**kw, 'y': y}",
    "class Net(nn.Module):\n    def forward(self, x):\n        with a as b, c:\n            pass",
    "match x:\n    case [1, *rest] if rest:\n        y = f'{rest!r:>4}'",
    "try:\n    pass\nexcept (A, B) as e:\n    raise\nfinally:\n    del a[1:2, ::3]",
]


@pytest.mark.parametrize("source", SOURCES)
def test_walk_visits_what_ast_walk_visits_in_the_same_order(source: str) -> None:
    tree = ast.parse(textwrap.dedent(source))
    assert walk(tree) == list(ast.walk(tree))
    for node in ast.walk(tree):
        assert walk(node) == list(ast.walk(node))


@pytest.mark.parametrize("source", SOURCES)
def test_children_are_the_direct_children(source: str) -> None:
    for node in ast.walk(ast.parse(source)):
        assert children(node) == list(ast.iter_child_nodes(node))


def test_a_module_is_walked_once() -> None:
    tree = ast.parse(SOURCES[1])
    first = module_nodes(tree)
    assert first == tuple(ast.walk(tree))
    assert module_nodes(tree) is first
    other = ast.parse(SOURCES[1])
    assert module_nodes(other) is not first


def test_own_nodes_are_in_source_order_and_skip_nested_definitions() -> None:
    body = ast.parse(
        "a = 1\nif c:\n    b = a\n    d = b\ndef f():\n    e = 2\nclass K:\n    g = 3\n"
        "h = lambda: i\n"
    ).body
    assigned = [
        n.targets[0].id  # type: ignore[attr-defined]
        for n in own_nodes(body)
        if isinstance(n, ast.Assign)
    ]
    assert assigned == ["a", "b", "d", "h"]
    names = {n.id for n in own_nodes(body) if isinstance(n, ast.Name)}
    assert "i" not in names and "e" not in names


def test_within_is_the_source_span() -> None:
    tree = ast.parse("a = 1\nfor x in y:\n    b = 2\n    c = 3\nd = 4\n")
    loop = tree.body[1]
    inside = [s for s in (tree.body[0], *loop.body, tree.body[2]) if within(s, loop)]  # type: ignore[attr-defined]
    assert inside == loop.body  # type: ignore[attr-defined]
    assert within(loop, loop)


def test_innermost_first_orders_enclosing_loops_by_nesting() -> None:
    tree = ast.parse("while a:\n    for b in c:\n        for d in e:\n            f()\n")
    outer = tree.body[0]
    middle = outer.body[0]  # type: ignore[attr-defined]
    inner = middle.body[0]
    for order in ([outer, middle, inner], [inner, outer, middle], [middle, inner, outer]):
        assert innermost_first(frozenset(order)) == [inner, middle, outer]


@pytest.mark.parametrize("source", SOURCES)
@pytest.mark.parametrize(
    "kinds",
    [
        (ast.Name,),
        (ast.Call, ast.Name),
        (ast.Name, ast.Call, ast.Attribute, ast.FunctionDef, ast.AsyncFunctionDef),
        (ast.expr,),
        (ast.stmt, ast.expr_context),
        (ast.Nonlocal,),
    ],
)
def test_module_nodes_of_is_the_filtered_module_walk(
    source: str, kinds: tuple[type[ast.AST], ...]
) -> None:
    tree = ast.parse(textwrap.dedent(source))
    expected = tuple(node for node in module_nodes(tree) if isinstance(node, kinds))
    assert module_nodes_of(tree, *kinds) == expected
    assert module_nodes_of(tree, *kinds) == expected  # asked again: the kept answer


def test_statement_block_is_the_module_index_block() -> None:
    """`statement_block(tree, stmt)`, searching statements only, finds the owner and list
    `ModuleAnalysis.block_of` indexes from the whole module's walk, for every statement of
    every corpus file (try/except, match cases, nested functions and classes included)."""
    from gradguard.analysis.model import ModuleAnalysis
    from gradguard.analysis.walk import statement_block
    from tests.test_corpus import corpus_files

    compared = 0
    for path in corpus_files():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        analysis = ModuleAnalysis(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.stmt) and node is not tree:
                owner, block = analysis.block_of(node)
                found = statement_block(tree, node)
                assert found is not None, (path, node.lineno)
                assert found[0] is owner and found[1] is block, (path, node.lineno)
                compared += 1
    assert compared > 10_000


def test_statement_block_of_a_statement_elsewhere_is_none() -> None:
    from gradguard.analysis.walk import statement_block

    tree = ast.parse("def f():\n    x = 1\ndef g():\n    y = 2\n")
    f, g = tree.body
    assert isinstance(f, ast.FunctionDef) and isinstance(g, ast.FunctionDef)
    assert statement_block(f, g.body[0]) is None
    assert statement_block(g, g.body[0]) == (g, g.body)
