"""Which names' values may be computed from which (`analysis/name_flow.py`)."""

from __future__ import annotations

import ast
import textwrap

from gradguard.analysis.name_flow import Key, NameFlow


def _flow(source: str) -> tuple[ast.Module, NameFlow]:
    tree = ast.parse(textwrap.dedent(source))
    return tree, NameFlow(tree)


def _key(tree: ast.Module, flow: NameFlow, name: str, scope: str | None = None) -> Key:
    """The key of the first binding of `name` (inside function `scope` when given)."""
    root: ast.AST = tree
    if scope is not None:
        root = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == scope)
    for node in ast.walk(root):
        if isinstance(node, ast.Name) and node.id == name:
            key = flow.key_of(node)
            assert key is not None
            return key
    raise AssertionError(name)


def _reaches(flow: NameFlow, tree: ast.Module, target: str, source: str, scope: str) -> bool:
    return _key(tree, flow, source, scope) in flow.reaches([_key(tree, flow, target)])


def test_a_call_result_may_hold_what_the_function_returns() -> None:
    tree, flow = _flow(
        """
        def validate(loader):
            total = 0
            for x in loader:
                total += x
            return total / len(loader)

        score = validate([])
        """
    )
    assert _reaches(flow, tree, "score", "total", "validate")


def test_yielded_values_count_as_returned() -> None:
    tree, flow = _flow(
        """
        def batches(data):
            for chunk in data:
                piece = chunk * 2
                yield piece

        for item in batches([]):
            pass
        """
    )
    assert _reaches(flow, tree, "item", "piece", "batches")


def test_a_nested_function_returns_for_itself() -> None:
    tree, flow = _flow(
        """
        def outer():
            kept = 1
            def inner():
                hidden = 2
                return hidden
            return kept

        result = outer()
        """
    )
    assert _reaches(flow, tree, "result", "kept", "outer")
    assert not _reaches(flow, tree, "result", "hidden", "inner")


def test_a_detached_return_holds_nothing() -> None:
    tree, flow = _flow(
        """
        def evaluate(model, x):
            out = model(x)
            return out.item()

        value = evaluate(None, None)
        """
    )
    assert not _reaches(flow, tree, "value", "out", "evaluate")
