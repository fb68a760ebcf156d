"""State kept without history: an attribute of `self` whose every store in the file is a
statement of a method of its class leaving a tensor without history, and whose every read
only makes new tensors, holds a tensor without history in every method. A store from
outside the class, a decorated storing method, a store with history, an in-place change
(directly, through a view, an alias or a helper of the file) leave it unknown.
"""

from __future__ import annotations

import ast

import pytest

from gradguard.analysis.historyless_state import (
    changed_in_place,
    changed_in_place_part,
    stores_by_methods,
)
from gradguard.analysis.imports import build_scope
from gradguard.analysis.values import Grad, Kind
from tests.analysis.test_value_facets import fact_at

_CLASS = """
class Matcher(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Linear(2, 2)
        self.centres = torch.zeros(3, 2)

    @torch.no_grad()
    def embed(self, x):
        return self.encoder(x)

    def refit(self, x):
        {refit}

    def forward(self, x):
        scores = self.embed(x) - self.centres.sum()  # <- scores
        return scores

m = Matcher()
m.refit(x)
{after}
m(x)
"""


def _scores(refit: str, monkeypatch: pytest.MonkeyPatch, after: str = "") -> tuple[Kind, Grad]:
    value = fact_at(_CLASS.format(refit=refit, after=after), monkeypatch)
    return value.kind, value.grad


@pytest.mark.parametrize(
    "refit",
    [
        "self.centres = self.embed(x).mean(0, keepdim=True)",
        "self.centres = torch.ones(3, 2) * 2",
        "self.centres = self.encoder(x).detach()",
    ],
)
def test_every_store_without_history_keeps_the_state_without_history(
    refit: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _scores(refit, monkeypatch) == (Kind.TENSOR, Grad.UNTRACKED)


# Each case also stores a fresh tensor in `refit`: the state has two stores, so only this
# fact can keep it (`__init__`'s only store of a leaf is kept on its own).
_FRESH = "self.centres = torch.ones(3, 2)\n        "


@pytest.mark.parametrize(
    ("refit", "after"),
    [
        # A store with history.
        ("self.centres = self.encoder(x)", ""),
        # Changed in place, by a method, through a view, by an item store, by a helper.
        (_FRESH + "self.centres.add_(self.encoder(x))", ""),
        (_FRESH + "self.centres.view(-1).add_(self.encoder(x).view(-1)[:6])", ""),
        (_FRESH + "self.centres[0] = self.encoder(x)[0]", ""),
        (_FRESH + "nudge(self.centres, self.encoder(x))", ""),
        (_FRESH + "torch.add(self.centres, 1.0, out=self.centres)", ""),
        # An alias that code may change.
        (_FRESH + "kept = self.centres\n        kept += self.encoder(x)", ""),
        # A store from outside the class.
        ("self.centres = torch.ones(3, 2)", "m.centres = model(x)"),
    ],
)
def test_a_store_or_change_that_may_give_history_leaves_the_state_unknown(
    refit: str, after: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    snippet = "def nudge(t, d):\n    t += d\n" + _CLASS
    value = fact_at(snippet.format(refit=refit, after=after), monkeypatch)
    assert value.grad is not Grad.UNTRACKED


def _tree(source: str) -> tuple[ast.Module, ast.ClassDef]:
    tree = ast.parse(source)
    cls = next(s for s in tree.body if isinstance(s, ast.ClassDef))
    return tree, cls


_STORES = """
import torch
class A:
    def __init__(self):
        self.c = torch.zeros(2)
    def refit(self, x):
        self.c = x.detach()
    @staticmethod
    def other(a):
        pass
"""


def test_stores_by_methods_lists_every_store_of_the_class_methods() -> None:
    tree, cls = _tree(_STORES)
    found = stores_by_methods(tree, cls, "c", 2)
    assert found is not None
    assert [(method.name, ast.unparse(value)) for method, value in found] == [
        ("__init__", "torch.zeros(2)"),
        ("refit", "x.detach()"),
    ]


def test_stores_by_methods_counts_stores_in_branches_and_registered_buffers() -> None:
    source = _STORES.replace(
        "        self.c = torch.zeros(2)",
        "        if flag:\n            self.c = None\n        else:\n"
        '            self.register_buffer("c", torch.zeros(2))',
    )
    tree, cls = _tree(source)
    found = stores_by_methods(tree, cls, "c", 2)
    assert found is not None
    assert [ast.unparse(value) for _, value in found] == ["None", "torch.zeros(2)", "x.detach()"]


@pytest.mark.parametrize(
    "source",
    [
        # A third store elsewhere: the count of the file is higher.
        _STORES + "a = A()\na.c = torch.ones(2)\n",
        # A buffer, a parameter or an attribute bound by name elsewhere.
        _STORES + 'm = torch.nn.Module()\nm.register_buffer("c", torch.ones(2))\n',
        _STORES + 'm = torch.nn.Module()\nm.register_parameter("c", None)\n',
        _STORES + "m = torch.nn.Module()\nsetattr(m, name, torch.ones(2))\n",
        # A decorated storing method.
        _STORES.replace("    def refit", "    @torch.no_grad()\n    def refit"),
    ],
)
def test_stores_by_methods_is_none_when_another_store_may_set_it(source: str) -> None:
    tree, cls = _tree(source)
    stores = sum(
        1
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and node.attr == "c" and isinstance(node.ctx, ast.Store)
    )
    assert stores_by_methods(tree, cls, "c", stores) is None


@pytest.mark.parametrize(
    ("read", "changed"),
    [
        ("y = t.c * 2", False),
        ("y = -t.c", False),
        ("y = t.c.sum()", False),
        ("y = torch.cdist(x, t.c)", False),
        ("if t.c is None: pass", False),
        ("y = t.c.shape", False),
        # A view used at once in an operation is not kept.
        ("y = t.c.t() @ x", False),
        ("y = t.c[0] * 2", False),
        ("y = torch.transpose(t.c, 0, 1).sum()", False),
        ("t.c.t().add_(x)", True),
        ("t.c[0].add_(x)", True),
        ("t.c.add_(x)", True),
        ("t.c[0] = x", True),
        ("y = t.c.view(-1)", True),
        ("y = t.c.t()", True),
        ("y = t.c", True),
        ("helper(t.c)", True),
        ("torch.add(x, 1, out=t.c)", True),
        ("torch.transpose(t.c, 0, 1)", True),
        ("t.c.data = x", True),
        ("y = [t.c]", True),
    ],
)
def test_changed_in_place_names_reads_that_may_change_the_tensor(read: str, changed: bool) -> None:
    source = f"import torch\ndef f(t, x):\n    {read}\n"
    tree = ast.parse(source)
    resolve = build_scope(tree, None).resolve
    assert ("c" in changed_in_place(tree, resolve)) is changed
    function = tree.body[1]
    assert isinstance(function, ast.FunctionDef)
    assert ("c" in changed_in_place_part(function, resolve)) is changed


_WEIGHTED = """
class Weighted(nn.Module):
    def __init__(self, classes, weights=None):
        super().__init__()
        self.classes = classes
        if weights is None:
            self.w = None
        else:
            self.register_buffer("w", torch.as_tensor(weights))

    def forward(self, out):
        r = (out > 0).float()
        if self.w is not None:
            r = r * self.w  # <- r
        return r

crit = Weighted(2, {weights})
crit(model(x))
"""


@pytest.mark.parametrize(
    ("weights", "grad"),
    [
        # A buffer of numbers or None: no history either way.
        ("[0.5, 2.0]", Grad.UNTRACKED),
        # A buffer made of a tensor with history (as_tensor keeps it): it has one.
        ("model.weight.sum(0)", Grad.UNKNOWN),
    ],
)
def test_a_buffer_or_none_kept_in_branches_has_no_history(
    weights: str, grad: Grad, monkeypatch: pytest.MonkeyPatch
) -> None:
    value = fact_at(_WEIGHTED.format(weights=weights), monkeypatch)
    assert value.grad is grad
