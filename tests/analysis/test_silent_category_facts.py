"""Facts behind the silent categories (GG203, GG204, GG106, GG607), tested directly.

* `total = total + x` and `xs = torch.cat([xs, x])` are recorded as the same `Accumulation`
  as `total += x`.
* `m.eval()` on an attribute of unknown value (`self.model`) makes it a module, as on a name.
* A module known only from `.eval()` returns inference tensors under `torch.inference_mode()`.
* `ModeSwitches.instance_attribute`: `self.criterion(...)` is an object the instance holds,
  unless the class defines a method of that name or built it around the model.
"""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.analysis.events import Accumulation
from gradguard.analysis.grad_context import GradContext
from gradguard.analysis.interpreter.statements import FunctionInterpreter
from gradguard.analysis.mode_switches import ModeSwitches
from gradguard.analysis.model import analyse_module
from gradguard.analysis.values import Grad, Kind, Value

PRELUDE = "import torch\nfrom torch import nn\nmodel = nn.Linear(2, 2)\nx = torch.randn(3, 2)\n"


def _accumulations(body: str) -> list[tuple[str, str, Grad]]:
    source = PRELUDE + textwrap.dedent(body)
    analysis = analyse_module(ast.parse(source), source)
    return [
        (ast.unparse(e.target), type(e.node).__name__, e.added.grad)
        for e in analysis.events.of(Accumulation)
    ]


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("total = 0\nfor _ in range(3):\n    total = total + model(x).sum()\n",
         [("total", "BinOp", Grad.TRACKED)]),
        ("total = 0\nfor _ in range(3):\n    total = model(x).sum() + total\n",
         [("total", "BinOp", Grad.TRACKED)]),
        ("total = 0\nfor _ in range(3):\n    total += model(x).sum()\n",
         [("total", "AugAssign", Grad.TRACKED)]),
        # A number added, another name, a scaled total, a subtraction: not accumulations.
        ("total = 0\nfor _ in range(3):\n    total = total + model(x).sum().item()\n", []),
        ("t = 0\nfor _ in range(3):\n    total = t + model(x).sum()\n", []),
        ("total = 0\nfor _ in range(3):\n    total = 0.9 * total + model(x).sum()\n", []),
        ("total = 0\nfor _ in range(3):\n    total = total - model(x).sum()\n", []),
        # A tensor grown by concatenation keeps what it joins.
        ("p = torch.empty(0, 2)\nfor _ in range(3):\n    p = torch.cat([p, model(x)])\n",
         [("p", "Call", Grad.TRACKED)]),
        ("p = None\nfor _ in range(3):\n    o = model(x)\n"
         "    p = o if p is None else torch.cat((p, o), dim=0)\n",
         [("p", "Call", Grad.TRACKED)]),
        ("p = torch.empty(0, 2)\nfor _ in range(3):\n    p = torch.cat([p, model(x)]).detach()\n",
         []),
        ("a = torch.empty(0, 2)\nfor _ in range(3):\n    p = torch.cat([a, model(x)])\n", []),
    ],
)  # fmt: skip
def test_the_assignment_spelling_is_an_accumulation(
    body: str, expected: list[tuple[str, str, Grad]]
) -> None:
    assert _accumulations(body) == expected


def _bound(snippet: str, line_text: str, name: str, monkeypatch: pytest.MonkeyPatch) -> Value:
    """The value of `name` after the (last run of the) statement whose text is `line_text`."""
    source = textwrap.dedent(snippet)
    line = next(i for i, text in enumerate(source.splitlines(), 1) if text.strip() == line_text)
    seen: list[Value] = []
    run_stmt = FunctionInterpreter.run_stmt

    def recording(self: FunctionInterpreter, stmt: ast.stmt) -> None:
        run_stmt(self, stmt)
        if stmt.lineno == line and self.env is not None and name in self.env:
            seen.append(self.env[name])

    monkeypatch.setattr(FunctionInterpreter, "run_stmt", recording)
    analyse_module(ast.parse(source), source)
    assert seen, f"`{name}` is not bound after line {line}"
    return seen[-1]


TRAINER = """
import torch
class Trainer:
    def __init__(self, model):
        self.model = model
    def predict(self, x):
        self.model.eval()
        out = self.model(x)
        return out
"""


def test_eval_on_an_attribute_makes_it_a_module(monkeypatch: pytest.MonkeyPatch) -> None:
    model = _bound(TRAINER, "self.model.eval()", "self.model", monkeypatch)
    assert model.kind is Kind.MODULE
    out = _bound(TRAINER, "out = self.model(x)", "out", monkeypatch)
    assert out.grad is Grad.TRACKED


ENCODER = """
import torch
def features(encoder, x):
    encoder.eval()
    with torch.inference_mode():
        feats = encoder(x)
    with torch.no_grad():
        plain = encoder(x)
    return feats, plain
"""


def test_a_module_known_by_use_returns_inference_tensors_in_inference_mode(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    feats = _bound(ENCODER, "feats = encoder(x)", "feats", monkeypatch)
    assert feats.inference and feats.grad is Grad.UNTRACKED
    plain = _bound(ENCODER, "plain = encoder(x)", "plain", monkeypatch)
    assert not plain.inference and plain.grad is Grad.UNTRACKED


def test_an_unknown_callable_in_inference_mode_is_not_an_inference_tensor(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    snippet = "import torch\ndef f(fn, x):\n    with torch.inference_mode():\n        y = fn(x)\n"
    assert not _bound(snippet, "y = fn(x)", "y", monkeypatch).inference


HOLDER = """
class Trainer:
    def __init__(self, model, criterion, make_check):
        self.model = model
        self.criterion = criterion
        self.loss = nn.MSELoss()
        self.check = Validator(model)
        self.hook = self.on_batch
        self.built = make_check(self.model)

    def helper(self):
        pass

    def step(self, x, y):
        self.criterion(x, y)
        self.loss(x, y)
        self.check()
        self.hook()
        self.built()
        self.helper()
        self.unset()
"""


@pytest.mark.parametrize(
    ("callee", "held"),
    [
        ("self.criterion", True),  # a parameter stored on the instance
        ("self.loss", True),  # a torch.nn loss built here
        ("self.check", False),  # built around the model
        ("self.hook", False),  # a bound method of self
        ("self.built", False),  # built from self.model
        ("self.helper", False),  # a method of the class
        ("self.unset", False),  # never stored: an inherited method
    ],
)
def test_objects_the_instance_holds(callee: str, held: bool) -> None:
    tree = ast.parse(textwrap.dedent(HOLDER))
    switches = ModeSwitches(tree, GradContext(tree).parents)
    call = next(
        n for n in ast.walk(tree) if isinstance(n, ast.Call) and ast.unparse(n.func) == callee
    )
    assert switches.instance_attribute(call, "self.model") is held
