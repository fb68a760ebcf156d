"""Optimizers a builder of the file returns as a tuple (GG608's `_builder_optimizer` with a
position), and layers handed straight to a function's only call (`NameFlow._torch_layer`)."""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.analysis.name_flow import NameFlow
from gradguard.analysis.optimizer_reach import _builder_optimizer, _built_part

BUILDERS = {
    "two names": """
        def make(g, d, lr):
            g_opt = torch.optim.Adam(g.parameters(), lr=lr)
            d_opt = torch.optim.Adam(d.parameters(), lr=lr)
            return g_opt, d_opt
        """,
    "two constructions": """
        def make(g, d, lr):
            return torch.optim.Adam(g.parameters(), lr=lr), torch.optim.SGD(d.parameters(), lr=lr)
        """,
    "with a scheduler": """
        def make(g, d, lr):
            g_opt = torch.optim.Adam(g.parameters(), lr=lr)
            sched = torch.optim.lr_scheduler.StepLR(g_opt, 10)
            return g_opt, sched
        """,
    "one network twice": """
        def make(g, d, lr):
            return torch.optim.Adam(g.parameters(), lr=lr), torch.optim.SGD(g.parameters(), lr=lr)
        """,
    "a name returned twice": """
        def make(g, d, lr):
            g_opt = torch.optim.Adam(g.parameters(), lr=lr)
            return g_opt, g_opt
        """,
}


def _held(builder: str, caller: str) -> list[str | None]:
    """For each name the caller's unpacking binds: the argument whose network the builder's
    optimizer at that position holds (None: not known)."""
    source = "import torch\n" + textwrap.dedent(builder) + textwrap.dedent(caller)
    tree = ast.parse(source)
    flow = NameFlow(tree)
    assign = tree.body[-1]
    assert isinstance(assign, ast.Assign) and isinstance(assign.targets[0], ast.Tuple)
    found: list[str | None] = []
    for element in assign.targets[0].elts:
        assert isinstance(element, ast.Name)
        key = flow.key_of(element)
        assert key is not None
        part = _built_part(flow, flow.bindings[key][0])
        built = _builder_optimizer(flow, *part) if part is not None else None
        found.append(built[1].id if built is not None else None)
    return found


@pytest.mark.parametrize(
    ("builder", "held"),
    [
        ("two names", ["G", "D"]),
        ("two constructions", ["G", "D"]),
        ("with a scheduler", [None, None]),
        ("one network twice", [None, None]),
        ("a name returned twice", [None, None]),
    ],
)
def test_each_position_holds_the_network_it_was_built_on(
    builder: str, held: list[str | None]
) -> None:
    assert _held(BUILDERS[builder], "a, b = make(G, D, 1e-3)\n") == held


def test_names_unpacked_in_another_order_follow_their_positions() -> None:
    assert _held(BUILDERS["two names"], "d_opt, g_opt = make(D, G, 1e-3)\n") == ["D", "G"]


def test_a_starred_unpacking_is_not_followed() -> None:
    source = "import torch\n" + textwrap.dedent(BUILDERS["two names"]) + "*a, b = make(G, D, 1)\n"
    tree = ast.parse(source)
    flow = NameFlow(tree)
    names = [n for n in ast.walk(tree.body[-1]) if isinstance(n, ast.Name) and n.id == "b"]
    key = flow.key_of(names[0])
    assert key is not None and _built_part(flow, flow.bindings[key][0]) is None


@pytest.mark.parametrize(
    ("argument", "stores"),
    [("nn.MSELoss()", False), ("make_loss()", True), ("nn.MSELoss().to('cpu')", False)],
)
def test_a_layer_handed_to_the_only_call_stores_nothing(argument: str, stores: bool) -> None:
    source = textwrap.dedent(
        f"""
        import torch
        from torch import nn

        def make_loss():
            return nn.MSELoss()

        def fit(criterion, net, xs):
            for x in xs:
                loss = criterion(net(x), x)

        net = nn.Linear(2, 2)
        fit({argument}, net, [torch.randn(2, 2)])
        """
    )
    tree = ast.parse(source)
    flow = NameFlow(tree)
    fit = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "fit")
    criterion = next(n for n in ast.walk(fit) if isinstance(n, ast.Name) and n.id == "criterion")
    net = next(n for n in ast.walk(fit) if isinstance(n, ast.Name) and n.id == "net")
    criterion_key, net_key = flow.key_of(criterion), flow.key_of(net)
    assert criterion_key is not None and net_key is not None
    assert (net_key in flow.reaches([criterion_key])) is stores
