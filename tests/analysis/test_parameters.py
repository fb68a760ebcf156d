"""Parameter facts (`analysis/parameters.py`) as the interpreter attaches them to values."""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.analysis.events import ModuleCall, OptimizerCall
from gradguard.analysis.model import analyse_module
from gradguard.analysis.parameters import holds_no_parameters, may_unfreeze

_NET = """
import torch
from torch import nn
class Net(nn.Module):
    def __init__(self, width):
        {init}
        self.body = nn.Sequential(nn.Linear(width, width), nn.ReLU())
    def forward(self, x):
        return self.body(x)
net = Net(4)
optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
optimizer.step()
"""


def _optimized_module_is_self_contained(init: str) -> bool:
    source = textwrap.dedent(_NET).replace("{init}", init)
    calls = analyse_module(ast.parse(source), source).events.of(OptimizerCall)
    step = next(u for u in calls if u.method == "step")
    assert step.value.optimizes is not None
    return step.value.optimizes.module.self_contained


@pytest.mark.parametrize(
    "init", ["super().__init__()", "super(Net, self).__init__()", "nn.Module.__init__(self)"]
)
def test_a_class_owning_its_layers_is_self_contained_however_it_calls_super(init: str) -> None:
    assert _optimized_module_is_self_contained(init)


def test_a_class_reading_an_unknown_global_is_not() -> None:
    assert not _optimized_module_is_self_contained("super().__init__(); self.extra = SHARED")


def test_a_global_bound_to_literals_on_every_branch_is_a_constant() -> None:
    source = textwrap.dedent(_NET).replace("{init}", "super().__init__(); self.c = CHANNELS")
    literal = "CHANNELS = 3\nif __name__:\n    CHANNELS = 1\n"
    assert _self_contained(literal + source)
    assert not _self_contained("CHANNELS = 3\nCHANNELS = torch.ones(1)\n" + source)


@pytest.mark.parametrize(
    "init",
    [
        "super().__init__(); self.act = nn.ELU() if width > 2 else nn.Identity()",
        "super().__init__(); self.act = nn.ELU() if width > 2 else None",
    ],
)
def test_a_layer_built_on_either_branch_of_a_conditional_is_registered(init: str) -> None:
    assert _optimized_module_is_self_contained(init)


@pytest.mark.parametrize(
    "init",
    [
        "super().__init__()\n        if width > 2:\n            self.down = nn.Linear(width, 4)",
        "super().__init__()\n        if width > 2:\n            self.down = nn.Linear(width, 2)\n"
        "        else:\n            self.down = nn.Identity()",
        "super().__init__()\n        if width > 2:\n            if width > 3:\n"
        "                self.down = nn.Sequential(nn.Linear(width, width))",
    ],
)
def test_a_layer_built_under_an_if_is_registered(init: str) -> None:
    assert _optimized_module_is_self_contained(init)


@pytest.mark.parametrize(
    "init",
    [
        "super().__init__()\n        if width > 2:\n            self.down = SHARED_LAYER",
        # Built in a loop: not a construction `__init__` runs once.
        "super().__init__()\n        for _ in range(width):\n            self.down = nn.ReLU()",
    ],
)
def test_an_if_holding_an_unknown_module_or_a_loop_is_not_registered(init: str) -> None:
    assert not _optimized_module_is_self_contained(init)


def test_a_conditional_reading_an_unknown_module_is_not_registered() -> None:
    assert not _optimized_module_is_self_contained(
        "super().__init__(); self.act = nn.ELU() if width > 2 else SHARED_LAYER"
    )


def _self_contained(source: str) -> bool:
    calls = analyse_module(ast.parse(source), source).events.of(OptimizerCall)
    step = next(u for u in calls if u.method == "step")
    assert step.value.optimizes is not None
    return step.value.optimizes.module.self_contained


@pytest.mark.parametrize(
    ("loop", "detaches"),
    [
        ("for p in ema.parameters():\n    p.detach_()", True),
        ("for name, p in ema.named_parameters():\n    if name:\n        p.detach_()", True),
        ("for p in ema.parameters():\n    q = p.detach()", False),
        ("for h in hidden:\n    h.detach_()", False),
    ],
)
def test_a_loop_detaching_parameters_in_place_may_freeze(loop: str, detaches: bool) -> None:
    from gradguard.analysis.parameters import detaches_parameters

    node = ast.parse(loop).body[0]
    assert isinstance(node, ast.For)
    assert detaches_parameters(node) is detaches


def test_detaching_every_parameter_freezes_the_module() -> None:
    from gradguard.analysis.parameters import freeze_loop_owner

    node = ast.parse("for p in ema.parameters():\n    p.detach_()").body[0]
    assert isinstance(node, ast.For)
    owner = freeze_loop_owner(node)
    assert owner is not None and ast.unparse(owner) == "ema"


@pytest.mark.parametrize(
    ("body", "stepped"),
    [
        ("opt.zero_grad()\n    loss.backward()\n    opt.step()", True),
        ("sched = torch.optim.lr_scheduler.StepLR(opt, 1)\n    scaler.step(opt)", True),
        ("opt.add_param_group({'params': []})", False),
        ("opt.step()\n    log(opt)", False),
        ("opt = wrap(opt)\n    opt.step()", False),
        ("opt.param_groups[0]['lr'] = 0.1", False),
        ("make_lr_scheduler_from(opt)", False),
        ("helper.step(opt)", False),
    ],
)
def test_a_parameter_only_stepped_or_cleared(body: str, stepped: bool) -> None:
    from gradguard.analysis.parameters import steps_only

    function = ast.parse(f"def train(model, opt, loss):\n    {body}\n").body[0]
    assert isinstance(function, ast.FunctionDef)
    assert ("opt" in steps_only(function)) is stepped


_LOSS_CLASS = """
import torch
from torch import nn
class Criterion(nn.Module):
{body}
criterion = Criterion()
criterion(torch.randn(2), torch.randn(2))
"""


def _holds_no_parameters(body: str) -> bool:
    source = _LOSS_CLASS.format(body=textwrap.indent(textwrap.dedent(body), "    "))
    (call,) = analyse_module(ast.parse(source), source).events.of(ModuleCall)
    assert call.value.module is not None
    return holds_no_parameters(call.value.module)


@pytest.mark.parametrize(
    "body",
    [
        "def forward(self, a, b):\n    return ((a - b) ** 2).mean()",
        '"""Masked MSE."""\ndef __init__(self):\n    super().__init__()\n'
        "def forward(self, a, b):\n    return (a - b).abs().mean()",
        "def __init__(self):\n    nn.Module.__init__(self)\ndef forward(self, a, b):\n    return a",
    ],
)
def test_a_class_with_only_methods_holds_no_parameters(body: str) -> None:
    assert _holds_no_parameters(body)


@pytest.mark.parametrize(
    "body",
    [
        "def __init__(self):\n    super().__init__()\n    self.w = nn.Parameter(torch.ones(2))\n"
        "def forward(self, a, b):\n    return self.w * a",
        "def forward(self, a, b):\n    self.scale = nn.Linear(2, 2)\n    return a",  # built late
        "def forward(self, a, b):\n    self.register_parameter('w', None)\n    return a",
        "weight = nn.Parameter(torch.ones(2))\ndef forward(self, a, b):\n    return a",
        "def __init__(self, p):\n    super().__init__()\n    self.p = p\n"
        "def forward(self, a, b):\n    return a",
    ],
)
def test_a_class_that_may_hold_parameters_does_not_say_so(body: str) -> None:
    assert not _holds_no_parameters(body)


@pytest.mark.parametrize(
    ("text", "unfreezes"),
    [
        ('"""Unfreeze later with p.requires_grad = True."""\nx = 1\n', False),
        ("x = 1  # p.requires_grad = True once warmed up\n", False),
        ('note = "requires_grad=True"\n', False),
        ("p.requires_grad = True\n", True),
        ('s = "#"; p.requires_grad = True\n', True),  # a `#` inside a string is no comment
        ("head = nn.Parameter(w)  # trainable\n", True),
        ('f"{p.requires_grad_()}"\n', True),  # an f-string's fields are code
        ('x = "\u00e9"; p.requires_grad = True\n', True),  # non-ASCII before: code
    ],
)
def test_only_code_may_unfreeze(text: str, unfreezes: bool) -> None:
    assert may_unfreeze(text, ast.parse(text)) is unfreezes
    assert may_unfreeze(text)  # without the tree, any mention counts


_ADAPTER = """
class Adapter(nn.Module):
    def __init__(self, base, rank):
        super().__init__()
        self.base = base
        {store}
"""


@pytest.mark.parametrize(
    ("store", "unfreezes"),
    [
        # The object under construction gets it: no module frozen before holds it.
        ("self.down = nn.Parameter(torch.zeros(rank, 4))", False),
        ("self.down = torch.nn.Parameter(torch.zeros(rank, 4))", False),
        ("self.down = Parameter(torch.zeros(rank, 4))", False),
        # A module handed in (maybe frozen) gets it.
        ("base.down = nn.Parameter(torch.zeros(rank, 4))", True),
        ("self.base.down = nn.Parameter(torch.zeros(rank, 4))", True),
        # Not the parameter itself that is stored.
        ("self.down = nn.Parameter(torch.zeros(rank, 4)).to(base.weight)", True),
        ("self.down, self.up = nn.Parameter(torch.zeros(rank, 4)), None", True),
        # In a helper `__init__` defines, which may be handed any module.
        ("def grow(m):\n            m.down = nn.Parameter(torch.zeros(rank, 4))", True),
    ],
)
def test_a_constructor_giving_its_object_a_parameter_unfreezes_nothing(
    store: str, unfreezes: bool
) -> None:
    text = _ADAPTER.format(store=store)
    assert may_unfreeze(text, ast.parse(text)) is unfreezes


def test_a_parameter_given_outside_a_constructor_may_unfreeze() -> None:
    text = "class Head(nn.Module):\n    def reset(self):\n        self.w = nn.Parameter(w)\n"
    assert may_unfreeze(text, ast.parse(text))
