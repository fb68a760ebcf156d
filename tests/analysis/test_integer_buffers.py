"""The integer buffer of a BatchNorm layer (`ModuleRef.integer_buffer`) and what reads it:
`num_batches_tracked`, `buffers()`, `named_buffers()`, `state_dict()` and its views."""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.analysis.events import AttributeSet, IntegerGradRequest
from gradguard.analysis.model import analyse_module
from gradguard.analysis.values import Kind
from tests.analysis.test_value_facets import fact_at


@pytest.mark.parametrize(
    "built",
    [
        "nn.BatchNorm1d(4)",
        "nn.BatchNorm2d(4, track_running_stats=True)",
        "nn.BatchNorm3d(4, 1e-5, 0.1, True, True)",
        "nn.SyncBatchNorm(4)",
        "nn.Sequential(nn.Linear(2, 4), nn.BatchNorm1d(4))",
    ],
)
def test_counting_norms_hold_an_integer_buffer(built: str, monkeypatch: pytest.MonkeyPatch) -> None:
    held = fact_at(
        f"""
        layer = {built}
        held = layer.buffers()  # <- held
        """,
        monkeypatch,
    )
    assert held.kind is Kind.SEQUENCE and held.integer_dtype


@pytest.mark.parametrize(
    "built",
    [
        "nn.InstanceNorm2d(4)",
        "nn.BatchNorm2d(4, track_running_stats=False)",
        "nn.BatchNorm2d(4, 1e-5, 0.1, True, False)",
        "nn.BatchNorm2d(4, track_running_stats=flag)",
        "nn.BatchNorm2d(4, **options)",
        "nn.Sequential(*layers, nn.BatchNorm1d(4))",
        "nn.Linear(2, 4)",
    ],
)
def test_other_modules_hold_none_known(built: str, monkeypatch: pytest.MonkeyPatch) -> None:
    held = fact_at(
        f"""
        flag, options, layers = object(), {{}}, []
        layer = {built}
        held = layer.buffers()  # <- held
        """,
        monkeypatch,
    )
    assert not held.integer_dtype


def test_the_counter_is_an_integer_tensor(monkeypatch: pytest.MonkeyPatch) -> None:
    counter = fact_at(
        """
        bn = nn.BatchNorm2d(4)
        counter = bn.num_batches_tracked  # <- counter
        """,
        monkeypatch,
    )
    assert counter.kind is Kind.TENSOR and counter.integer_valued


def test_state_views_hold_it(monkeypatch: pytest.MonkeyPatch) -> None:
    pairs = fact_at(
        """
        bn = nn.BatchNorm2d(4)
        pairs = bn.state_dict(keep_vars=True).items()  # <- pairs
        """,
        monkeypatch,
    )
    assert pairs.kind is Kind.SEQUENCE and pairs.integer_dtype
    assert pairs.items is not None and pairs.items.elements is not None
    named = fact_at(
        """
        bn = nn.BatchNorm2d(4)
        named = bn.named_buffers()  # <- named
        """,
        monkeypatch,
    )
    assert named.integer_dtype and named.items is not None


def _requests(source: str) -> list[int]:
    """The lines of the integer grad requests (`IntegerGradRequest`, `AttributeSet` of
    `requires_grad` on an integer value) the analysis of `source` records."""
    code = textwrap.dedent(source)
    analysis = analyse_module(ast.parse(code), code)
    lines = [e.stmt.lineno for e in analysis.events.of(IntegerGradRequest)]
    lines += [e.stmt.lineno for e in analysis.events.of(AttributeSet) if e.value.integer_valued]
    return sorted(lines)


def test_a_loop_asks_each_element() -> None:
    source = """
        import torch
        from torch import nn
        ids, embeds = torch.randint(0, 5, (3,)), torch.randn(3)
        for t in (embeds, ids):
            t.requires_grad_(True)
        bn = nn.BatchNorm2d(4)
        for k, t in bn.named_buffers():
            t.requires_grad = True
        for t in bn.buffers():
            if not t.is_floating_point():
                continue
            t.requires_grad_()
        for t in bn.buffers():
            t = t.float()
            t.requires_grad_()
        for t in bn.parameters():
            t.requires_grad_()
    """
    assert _requests(source) == [6, 9]


@pytest.mark.parametrize(
    "change",
    [
        "convert(bn)",
        "bn.register_buffer('num_batches_tracked', None)",
        "bn.num_batches_tracked = None",
        "del bn.num_batches_tracked",
        "bn.apply(convert)",
        "pass",
    ],
)
def test_a_module_changed_elsewhere_is_not_known(
    change: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    held = fact_at(
        f"""
        def convert(module):
            pass
        def f():
            bn = nn.BatchNorm2d(4)
            {change}
            held = bn.buffers()  # <- held
        """,
        monkeypatch,
    )
    assert held.integer_dtype is (change == "pass")
