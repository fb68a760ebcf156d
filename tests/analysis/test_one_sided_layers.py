"""`one_sided_layers`: an attribute `__init__` stores only inside one `if` statement is,
wherever a read of it succeeds, what one of those stores kept (an unset attribute raises
AttributeError, checked against torch 2.13.0). Each shape is a corpus case too (see
tests/corpus/gg302/layer_kept_on_one_branch_of_init.py and
negatives_layer_kept_on_one_branch.py)."""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.analysis.one_sided_layers import one_sided_layers
from gradguard.analysis.values import Kind
from tests.analysis.test_value_facets import fact_at


def _stores(cls: ast.ClassDef) -> dict[str, int]:
    """How many `self.<attr> = ...` statements the class's methods hold, by attribute."""
    counts: dict[str, int] = {}
    for node in ast.walk(cls):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
                    counts[target.attr] = counts.get(target.attr, 0) + 1
    return counts


def _found(source: str) -> dict[str, int]:
    """The attributes found in the first `if` of the class's `__init__`, with how many
    expressions each may hold."""
    tree = ast.parse(textwrap.dedent(source))
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef))
    init = next(n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "__init__")
    branch = next(s for s in init.body if isinstance(s, ast.If))
    return {a: len(e) for a, e in one_sided_layers(cls, branch, _stores(cls)).items()}


_BLOCK = """
class Block({bases}):
    {default}
    def __init__(self, c, project):
        super().__init__()
        if project:
            self.proj = nn.Conv2d(c, c, 1)
        {orelse}
"""


@pytest.mark.parametrize(
    ("bases", "default", "orelse", "expected"),
    [
        ("nn.Module", "", "", {"proj": 1}),
        ("nn.Module", "", "elif c > 4:\n            self.proj = nn.Conv2d(c, c, 3)", {"proj": 2}),
        ("nn.Module", "", "else:\n            self.proj = nn.Identity()", {"proj": 2}),
        ("nn.Module", "proj = None", "", {}),  # a default a read finds
        ("nn.Module", "def __getattr__(self, n): return None", "", {}),
        ("Base", "", "", {}),  # a base of the file may set it first
    ],
)
def test_stores_inside_one_if_are_what_a_read_finds(
    bases: str, default: str, orelse: str, expected: dict[str, int]
) -> None:
    assert _found(_BLOCK.format(bases=bases, default=default, orelse=orelse)) == expected


def test_another_store_outside_the_if_leaves_it_unknown() -> None:
    source = """
    class Block(nn.Module):
        def __init__(self, c, project):
            super().__init__()
            if project:
                self.proj = nn.Conv2d(c, c, 1)

        def reset(self):
            self.proj = None
    """
    assert _found(source) == {}


def test_forward_reads_the_layer_kept_on_one_branch(monkeypatch: pytest.MonkeyPatch) -> None:
    layer = fact_at(
        """
        class Block(nn.Module):
            def __init__(self, c, project):
                super().__init__()
                if project:
                    self.proj = nn.Linear(c, c)

            def forward(self, h):
                layer = self.proj  # <- layer
                return layer(h)

        Block(2, True)(x).sum().backward()
        """,
        monkeypatch,
    )
    assert layer.kind is Kind.MODULE and layer.module is not None
    assert layer.module.qualified == "torch.nn.Linear"
