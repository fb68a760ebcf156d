"""Torch name resolution through a file's imports."""

from __future__ import annotations

import ast

import pytest

from gradguard.analysis.imports import build_scope


def _resolve(source: str, expr: str) -> str | None:
    tree = ast.parse(source)
    scope = build_scope(tree, None)
    return scope.resolve(ast.parse(expr, mode="eval").body)


@pytest.mark.parametrize(
    ("source", "expr", "expected"),
    [
        ("import torch", "torch.no_grad", "torch.no_grad"),
        ("import torch as T", "T.no_grad", "torch.no_grad"),
        ("from torch import no_grad", "no_grad", "torch.no_grad"),
        ("from torch import nn, optim", "nn.LSTM", "torch.nn.LSTM"),
        ("import torch.nn.functional as F", "F.mse_loss", "torch.nn.functional.mse_loss"),
        ("from torch.nn import functional as F", "F.relu", "torch.nn.functional.relu"),
        ("import torch.nn", "torch.nn.Linear", "torch.nn.Linear"),
        ("import numpy as np", "np.array", "numpy.array"),
        ("from numpy import mean", "mean", "numpy.mean"),
        ("import pandas as pd", "pd.array", None),
        ("import torch\ndef no_grad(): pass", "no_grad", None),
        ("import torch\ntorch = object()", "torch.no_grad", None),
        ("from torch import no_grad\ndef no_grad(): pass", "no_grad", None),
        ("from .torch import no_grad", "no_grad", None),
    ],
)
def test_resolution(source: str, expr: str, expected: str | None) -> None:
    assert _resolve(source, expr) == expected


def test_parameter_shadows_module_import() -> None:
    tree = ast.parse("import torch\ndef f(torch):\n    torch.no_grad\n")
    module = build_scope(tree, None)
    function = tree.body[1]
    assert isinstance(function, ast.FunctionDef)
    inner = build_scope(function, module)
    assert inner.resolve(ast.parse("torch.no_grad", mode="eval").body) is None
    assert module.resolve(ast.parse("torch.no_grad", mode="eval").body) == "torch.no_grad"


def test_walrus_target_counts_as_binding() -> None:
    tree = ast.parse("import torch\nif (torch := 3):\n    pass\n")
    scope = build_scope(tree, None, extra_bound=frozenset({"torch"}))
    assert scope.resolve(ast.parse("torch.no_grad", mode="eval").body) is None
