"""The whole-file syntax facts an edit derives from the last analysis's by parts
(`gradguard.analysis.syntax_parts`) equal the facts made afresh for the new tree and text,
after every edit of random edit sequences, and on edits made to change them."""

from __future__ import annotations

import ast
import random
from typing import Any

import pytest

from gradguard.analysis import incremental as incremental_module
from gradguard.analysis.incremental import Incremental
from gradguard.analysis.interpreter.file_syntax import FileSyntax
from gradguard.core.settings import Settings
from gradguard.lsp.incremental import check
from tests.analysis.test_incremental import _edit, _files


def _facts(syntax: FileSyntax) -> tuple[Any, ...]:
    return (
        [id(f) for f in syntax.functions],
        {k: id(v) for k, v in syntax.parent_scope.items()},
        syntax.declared_global,
        syntax.freezes_parameters,
        syntax.frozen_facts,
        [id(f) for f in syntax.order()],
        syntax.walrus,
    )


class _Compared:
    """Wraps `incremental._validate`: each syntax made for an edit is compared with a fresh
    one of the same tree and text; counts the edits compared."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.compared = 0
        validate = incremental_module._validate

        def compared(state: Any, graft: Any, text: str, stores: Any) -> Any:
            edit, why, syntax = validate(state, graft, text, stores)
            assert _facts(syntax) == _facts(FileSyntax(state.tree, text))
            self.compared += 1
            return edit, why, syntax

        monkeypatch.setattr(incremental_module, "_validate", compared)


def _replay(texts: list[str], path: str) -> None:
    incremental = Incremental()
    for text in texts:
        check(incremental, "doc", text, path=path, settings=Settings())


def test_derived_facts_equal_fresh_ones_after_random_edits(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    compared = _Compared(monkeypatch)
    for path in _files():
        rng = random.Random(f"parts-{path.name}")
        text = path.read_text(encoding="utf-8")
        texts = [text]
        for _ in range(12):
            text = _edit(text, rng)
            texts.append(text)
        _replay(texts, str(path))
    assert compared.compared >= 10  # most edits land in a function and graft


_NESTED = """
import torch
from torch import nn

counter = 0


class Trainer:
    def fit(self, model, data):
        def step(x):
            def inner(y):
                return model(y).sum()
            return inner(x)
        for x in data:
            step(x).backward()


def freeze(model):
    for p in model.parameters():
        p.requires_grad = False


def train(model, data):
    global counter
    loss = model(data).sum()
    loss.backward()


def report(model):
    return model
(after_report := 1)
"""


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("return model(y).sum()", "return model(y).mean()"),  # nested functions kept
        ("def inner(y):", "def inner(z):"),  # a nested definition's header
        ("global counter", "global counterz"),  # a `global` declaration
        ("loss.backward()", "report(model)"),  # a new call: callees first, `report` first
        ("p.requires_grad = False", "p.requires_grad = True"),  # the only freeze goes
        # Still a freeze by its text, but of a tensor the function makes: no parameter's.
        ("p.requires_grad = False", "q = torch.zeros(1); q.requires_grad = False"),
        ("loss = model(data).sum()", "model.requires_grad_(True); loss = model(data).sum()"),
        # A walrus in the function binds a name; one just after it names what precedes it.
        ("loss = model(data).sum()", "loss = (total := model(data)).sum()"),
        (
            "    return model\n(after",
            "    return model  # a longer last line before the walrus\n(after",
        ),
        ("    return model\n(after", "    return modelz\n(after"),
    ],
)
def test_edits_changing_a_part_give_fresh_facts(
    old: str, new: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    compared = _Compared(monkeypatch)
    assert old in _NESTED
    _replay([_NESTED, _NESTED, _NESTED.replace(old, new)], "nested.py")
    assert compared.compared == 1


def test_derived_scopes_name_the_new_nested_definitions(monkeypatch: pytest.MonkeyPatch) -> None:
    """An edit inside a method holding nested functions: the derived index names the
    nested definitions now in the tree (new nodes), with their scopes."""
    _Compared(monkeypatch)
    incremental = Incremental()
    edited = _NESTED.replace("model(y).sum()", "model(y).sum() * 2")
    for text in (_NESTED, _NESTED, edited):
        check(incremental, "doc", text, path="nested.py", settings=Settings())
    state = incremental.take("doc")
    assert state is not None
    tree_defs = [n for n in ast.walk(state.tree) if isinstance(n, ast.FunctionDef)]
    assert {id(f) for f in state.syntax.functions} == {id(f) for f in tree_defs}
