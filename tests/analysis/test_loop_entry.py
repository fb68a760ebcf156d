"""`loop_entry.certainly_entered`: iterables that certainly yield at least one item, and the
two uses of that one fact in the interpreter (a loop's exits; `every_iteration`)."""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.analysis.events import Accumulation, LoopTrips
from gradguard.analysis.loop_entry import certainly_entered, fewest_trips, least_trips
from gradguard.analysis.model import analyse_module
from gradguard.analysis.values import UNKNOWN, Kind, Value

_KNOWN = {
    "d": Value(kind=Kind.MAPPING, elements=(UNKNOWN,), fields=("a",)),
    "five": Value(kind=Kind.SCALAR, const=5),
    "flag": Value(kind=Kind.SCALAR, const=True),
    "hp": Value(
        kind=Kind.MAPPING,
        elements=(Value(kind=Kind.SCALAR, const=2), Value(kind=Kind.SCALAR, const=0.5)),
        fields=("steps", "lr"),
    ),
    "sizes": Value(kind=Kind.SEQUENCE, elements=(Value(kind=Kind.SCALAR, const=4),)),
    "self.n_critic": Value(kind=Kind.SCALAR, const=5),
    "self.hp": Value(kind=Kind.MAPPING, elements=(UNKNOWN,), fields=("steps",)),
}


@pytest.mark.parametrize(
    ("iterable", "value", "entered"),
    [
        ("range(3)", UNKNOWN, True),
        ("range(1, 4)", UNKNOWN, True),
        ("range(0, 9, 2)", UNKNOWN, True),
        ("range(5, 0, -1)", UNKNOWN, True),
        ("range(five)", UNKNOWN, True),
        ("range(1, five)", UNKNOWN, True),
        ("range(0)", UNKNOWN, False),
        ("range(-1)", UNKNOWN, False),
        ("range(n)", UNKNOWN, False),
        ("range(flag)", UNKNOWN, False),  # a bool is not taken for an int
        ('range(hp["steps"])', UNKNOWN, True),  # an entry of a dict of known entries
        ('range(1, hp["steps"])', UNKNOWN, True),
        ("range(sizes[0])", UNKNOWN, True),
        ("range(self.n_critic)", UNKNOWN, True),  # an attribute bound to an int
        ('range(hp["lr"])', UNKNOWN, False),  # a float
        ('range(hp["other"])', UNKNOWN, False),  # no such key
        ("range(sizes[1])", UNKNOWN, False),  # out of range
        ('range(self.hp["steps"])', UNKNOWN, False),  # an entry not known
        ('range(cfg["steps"])', UNKNOWN, False),  # a dict not known
        ("range(hp[k])", UNKNOWN, False),  # a key not written out
        ('range(len(hp["steps"]))', UNKNOWN, False),
        ("range(4, 1)", UNKNOWN, False),
        ("range(0, 9, -2)", UNKNOWN, False),
        ("range(0, 9, 0)", UNKNOWN, False),  # raises
        ("range(3, step=1)", UNKNOWN, False),
        ("[a, b]", UNKNOWN, True),
        ("(a,)", UNKNOWN, True),
        ("[*rest]", UNKNOWN, False),
        ("[]", UNKNOWN, False),
        ("d", _KNOWN["d"], True),
        ("d", Value(kind=Kind.MAPPING), False),
        ("t", Value(kind=Kind.SEQUENCE, elements=()), False),
        ("d.items()", UNKNOWN, True),
        ("d.values()", UNKNOWN, True),
        ("e.items()", UNKNOWN, False),
        ("d.items(x)", UNKNOWN, False),
        ("loader", UNKNOWN, False),
    ],
)
def test_certainly_entered(iterable: str, value: Value, entered: bool) -> None:
    expr = ast.parse(iterable, mode="eval").body
    found = certainly_entered(expr, value, lambda k: _KNOWN.get(k, UNKNOWN), range_is_builtin=True)
    assert found is entered


def test_a_rebound_range_is_not_judged() -> None:
    expr = ast.parse("range(3)", mode="eval").body
    assert not certainly_entered(expr, UNKNOWN, lambda k: UNKNOWN, range_is_builtin=False)


def _accumulations(body: str) -> dict[int, int]:
    """Line of each accumulation -> how many loops it certainly runs on every iteration of."""
    source = "import torch\nfrom torch import nn\n" + textwrap.dedent(body)
    uses = analyse_module(ast.parse(source), source).events.of(Accumulation)
    return {u.stmt.lineno - 2: len(u.every_iteration) for u in uses}


@pytest.mark.parametrize(
    ("inner", "through"),
    [
        ("for k in range(STEPS):", True),  # a name bound to an int
        ("for k in range(STEPS, 0, -1):", True),
        ("for k in [0, 1]:", True),
        ("for k in range(n):", False),
        ("for k in parts:", False),
    ],
)
def test_every_iteration_goes_through_an_inner_loop_that_certainly_runs(
    inner: str, through: bool
) -> None:
    body = f"""
    STEPS = 3


    def train(loader, n, parts):
        m = nn.Linear(2, 1)
        total = 0
        for x in loader:
            loss = m(x).mean()
            loss.backward()
            {inner}
                total += loss
    """
    (depth,) = _accumulations(body).values()
    assert depth == (2 if through else 1)


def test_a_setting_read_from_a_dict_every_caller_passes_bounds_the_loop() -> None:
    """`range(hp["g_steps"])` with `hp` a dict of literals the only caller passes: the loop
    runs, so what its body binds is what the name holds after it (here a generator output
    whose graph the loop's backward freed, which the discriminator's backward needs)."""
    source = textwrap.dedent(
        """
        import torch
        from torch import nn

        SETTINGS = dict(g_steps=2, lr=0.1)


        def train(G, D, opt, hp):
            for _ in range(hp["g_steps"]):
                fake = G(torch.randn(2, 4))
                loss = D(fake).mean()
                loss.backward()
            d_loss = D(fake).mean()
            d_loss.backward()


        def maybe(G, D, opt, hp):
            for _ in range(hp["g_steps"]):
                fake = G(torch.randn(2, 4))
                loss = D(fake).mean()
                loss.backward()
            d_loss = D(fake).mean()
            d_loss.backward()


        G, D = nn.Linear(4, 4), nn.Linear(4, 1)
        opt = torch.optim.SGD(G.parameters(), lr=SETTINGS["lr"])
        train(G, D, opt, SETTINGS)
        maybe(G, D, opt, {"g_steps": int(input())})
        """
    )
    calls = analyse_module(ast.parse(source), source).backward_calls
    freed = {c.function.name: bool(c.through_freed) for c in calls if c.function is not None}
    assert freed == {"train": True, "maybe": False}


def test_a_loop_that_certainly_runs_leaves_only_through_its_body() -> None:
    source = textwrap.dedent(
        """
        import torch
        from torch import nn


        def train(x):
            m = nn.Linear(2, 1)
            out = None
            for _ in range(3):
                out = m(x)
            out.sum().backward()


        def maybe(x, n):
            m = nn.Linear(2, 1)
            out = None
            for _ in range(n):
                out = m(x)
            out.sum().backward()
        """
    )
    calls = analyse_module(ast.parse(source), source).backward_calls
    kinds = {c.function.name: c.value.kind for c in calls if c.function is not None}
    assert kinds["train"] is Kind.TENSOR
    assert kinds["maybe"] is not Kind.TENSOR


@pytest.mark.parametrize(
    ("iterable", "value", "trips"),
    [
        ("range(3)", UNKNOWN, 3),
        ("range(five)", UNKNOWN, 5),
        ("range(1, five)", UNKNOWN, 4),
        ("range(0, 9, 2)", UNKNOWN, 5),  # 0, 2, 4, 6, 8
        ("range(0, 10, 3)", UNKNOWN, 4),  # 0, 3, 6, 9
        ("range(5, 0, -2)", UNKNOWN, 3),  # 5, 3, 1
        ('range(hp["steps"])', UNKNOWN, 2),
        ("range(self.n_critic)", UNKNOWN, 5),
        ("range(0)", UNKNOWN, 0),
        ("range(0, 9, 0)", UNKNOWN, 0),  # raises
        ("range(n)", UNKNOWN, 0),  # unknown
        ("range(flag)", UNKNOWN, 0),
        ("[a, b, c]", UNKNOWN, 3),
        ("[a, *rest]", UNKNOWN, 1),  # only what is written out counts
        ("d", _KNOWN["d"], 1),
        ("hp", _KNOWN["hp"], 2),
        ("hp.values()", UNKNOWN, 2),
        ("batches", UNKNOWN, 0),
    ],
)
def test_least_trips(iterable: str, value: Value, trips: int) -> None:
    """How many items iterating certainly yields at least: checked against Python
    (`len(range(0, 10, 3)) == 4`, `len(range(5, 0, -2)) == 3`)."""
    expr = ast.parse(iterable, mode="eval").body
    assert (
        least_trips(expr, value, lambda k: _KNOWN.get(k, UNKNOWN), range_is_builtin=True) == trips
    )


def _trips(source: str) -> dict[int, int]:
    """`fewest_trips` of every `for` loop of `source`, by line."""
    tree = ast.parse(textwrap.dedent(source))
    analysis = analyse_module(tree, textwrap.dedent(source))
    events = analysis.events.of(LoopTrips)
    return {
        node.lineno: fewest_trips(events, node)
        for node in ast.walk(tree)
        if isinstance(node, ast.For)
    }


def test_a_loop_over_a_counted_range_runs_that_many_times() -> None:
    assert _trips(
        """
        accum_steps = 4
        for it in range(10):
            for micro_step in range(accum_steps):
                pass
        """
    ) == {3: 10, 4: 4}


def test_a_count_not_the_same_on_every_path_is_unknown() -> None:
    """A count bound to 4 on one path and to 2 (or to something unknown) on the other is no
    one int: nothing is known of the loop (the analysis keeps one constant per value)."""
    assert _trips(
        """
        import sys
        k = 4 if len(sys.argv) > 1 else 2
        for _ in range(k):
            pass
        """
    ) == {4: 0}
    assert _trips(
        """
        import sys
        k = 4 if len(sys.argv) > 1 else int(sys.argv[0])
        for _ in range(k):
            pass
        """
    ) == {4: 0}


def test_a_parameter_counts_what_every_caller_passes() -> None:
    """A count a function is handed: what every caller passes; unknown when one caller
    passes something else."""
    assert _trips(
        """
        def accumulate(steps):
            for _ in range(steps):
                pass

        accumulate(4)
        accumulate(4)
        """
    ) == {3: 4}
    assert _trips(
        """
        import sys

        def accumulate(steps):
            for _ in range(steps):
                pass

        accumulate(4)
        accumulate(int(sys.argv[1]))
        """
    ) == {5: 0}


def test_a_count_read_through_a_settings_object_kept_on_self() -> None:
    """`range(self.cfg.steps)` of a dataclass instance every construction hands in: the
    loop runs that many times (the field is read as `self.cfg.steps` is evaluated)."""
    assert _trips(
        """
        from dataclasses import dataclass

        @dataclass
        class Config:
            steps: int = 3

        class Trainer:
            def __init__(self, cfg):
                self.cfg = cfg

            def fit(self):
                for _ in range(self.cfg.steps):
                    pass

        def main():
            Trainer(Config()).fit()
        """
    ) == {13: 3}
