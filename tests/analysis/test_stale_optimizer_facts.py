"""Facts behind GG604's newer cases: the names `setattr` certainly sets
(`set_attributes`), empty subclasses (`empty_subclasses`), one-line optimizer builders
(`optimizer_builders`), and replacements made by a submodule's method, seen by the
optimizer of the whole model (`StaleOptimizer` events)."""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.analysis.empty_subclasses import code_class
from gradguard.analysis.events import StaleOptimizer
from gradguard.analysis.model import analyse_module
from gradguard.analysis.optimizer_builders import optimizer_builder
from gradguard.analysis.set_attributes import set_names

PRELUDE = "import torch\nimport torch.nn as nn\n"


def _setattr_names(body: str) -> tuple[str, ...]:
    """The names the only `setattr(...)` statement of `body` certainly sets."""
    tree = ast.parse(textwrap.dedent(body))
    for node in ast.walk(tree):
        for field in ("body", "orelse"):
            block = getattr(node, field, None)
            if not isinstance(block, list):
                continue
            for stmt in block:
                if (
                    isinstance(stmt, ast.Expr)
                    and isinstance(stmt.value, ast.Call)
                    and isinstance(stmt.value.func, ast.Name)
                    and stmt.value.func.id == "setattr"
                ):
                    return set_names(stmt.value, node, block)
    raise AssertionError("no setattr statement")


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ('setattr(model, "fc", layer)', ("fc",)),
        (
            """
            for name in ("a", "b", "a"):
                new = make(name)
                setattr(model, name, new)
            """,
            ("a", "b"),
        ),
        (
            """
            for name in ["enc", "dec"]:
                setattr(self.net, name, make(name))
                print(name)
            """,
            ("enc", "dec"),
        ),
    ],
    ids=["literal", "loop over a tuple", "loop over a list, on an attribute"],
)
def test_setattr_sets_these_names(body: str, expected: tuple[str, ...]) -> None:
    assert _setattr_names(body) == expected


@pytest.mark.parametrize(
    "body",
    [
        "setattr(model, name, layer)",
        'setattr(model, "not a name", layer)',
        "setattr(model, *pair)",
        """
        for name in names:
            setattr(model, name, make(name))
        """,
        """
        for name in ("a", "b"):
            if skip(name):
                continue
            setattr(model, name, make(name))
        """,
        """
        for name in ("a", "b"):
            if done():
                break
            setattr(model, name, make(name))
        """,
        """
        for name in ("a", "b"):
            if ready():
                setattr(model, name, make(name))
        """,
        """
        for name in ("a", "b"):
            name = name.upper()
            setattr(model, name, make(name))
        """,
        """
        for name in ("a", "b"):
            setattr(model, name, make(name))
            model = model.inner
        """,
        """
        for name, child in model.named_children():
            setattr(model, name, make(child))
        """,
        """
        for name in ("a", "b"):
            setattr(model, other, make(name))
        """,
    ],
    ids=[
        "runtime name",
        "not an identifier",
        "starred",
        "loop over a name",
        "continue before",
        "break before",
        "under an if",
        "loop name re-bound",
        "object re-bound",
        "named_children",
        "another name",
    ],
)
def test_setattr_sets_no_certain_name(body: str) -> None:
    assert _setattr_names(body) == ()


def _code_class_name(source: str, name: str) -> str:
    tree = ast.parse(textwrap.dedent(source))
    classes = {s.name: s for s in tree.body if isinstance(s, ast.ClassDef)}
    counts: dict[str, int] = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.ClassDef | ast.FunctionDef):
            counts[stmt.name] = counts.get(stmt.name, 0) + 1
        elif isinstance(stmt, ast.Assign):
            for target in stmt.targets:
                if isinstance(target, ast.Name):
                    counts[target.id] = counts.get(target.id, 0) + 1
    found = code_class(classes[name], classes.get, lambda n: counts.get(n) == 1)
    return found.name


BASE = "class Net(nn.Module):\n    pass\n"


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (BASE + 'class Wide(Net):\n    """Wider."""\n', "Net"),
        (BASE + "class A(Net):\n    pass\nclass Wide(A):\n    ...\n", "Net"),
        (BASE + "class Wide(Net):\n    def forward(self, x):\n        return x\n", "Wide"),
        (BASE + "class Wide(Net):\n    width = 3\n", "Wide"),
        (BASE + "class Mix:\n    pass\nclass Wide(Net, Mix):\n    pass\n", "Wide"),
        (BASE + "class Wide(Net, metaclass=M):\n    pass\n", "Wide"),
        (BASE + "Net = other\nclass Wide(Net):\n    pass\n", "Wide"),
        ("class Wide(nn.Linear):\n    pass\n", "Wide"),
    ],
    ids=[
        "docstring only",
        "a chain of empty classes",
        "a method of its own",
        "a class attribute",
        "two bases",
        "a metaclass",
        "base name re-bound",
        "base of another module",
    ],
)
def test_the_class_whose_code_instances_run(source: str, expected: str) -> None:
    assert _code_class_name(source, "Wide") == expected


def _builder(source: str) -> tuple[str, str] | None:
    tree = ast.parse(PRELUDE + textwrap.dedent(source))
    function = next(s for s in tree.body if isinstance(s, ast.FunctionDef))

    def resolve(expr: ast.expr) -> str | None:
        text = ast.unparse(expr)
        return text if text.startswith("torch.") else None

    found = optimizer_builder(function, resolve)
    return (found.qualified, found.parameter) if found is not None else None


SGD = "torch.optim.SGD"


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (f"def make(model, lr):\n    return {SGD}(model.parameters(), lr=lr)\n", (SGD, "model")),
        (
            'def make(lr, net):\n    """Adam."""\n'
            "    return torch.optim.Adam(params=net.parameters(), lr=lr)\n",
            ("torch.optim.Adam", "net"),
        ),
        (
            "def make(model):\n    model.fc = nn.Linear(2, 2)\n"
            f"    return {SGD}(model.parameters())\n",
            None,
        ),
        (f"def make(model):\n    return {SGD}(model.parameters(), lr=model.lr)\n", None),
        (f"def make(model):\n    return {SGD}(model.fc.parameters())\n", None),
        (f"def make(model):\n    return {SGD}([p for p in model.parameters()])\n", None),
        (
            "def make(model):\n    return torch.optim.lr_scheduler.StepLR(model.parameters(), 2)\n",
            None,
        ),
        (f"@cache\ndef make(model):\n    return {SGD}(model.parameters())\n", None),
        (f"def make(lr):\n    return {SGD}(model.parameters(), lr=lr)\n", None),
    ],
    ids=[
        "positional",
        "keyword, with a docstring",
        "another statement",
        "mentions the model again",
        "a submodule's parameters",
        "a comprehension",
        "not an optimizer",
        "decorated",
        "a global model",
    ],
)
def test_optimizer_builders(source: str, expected: tuple[str, str] | None) -> None:
    assert _builder(source) == expected


SUBMODULE = """
class Gain(nn.Module):
    def __init__(self):
        super().__init__()
        self.g = nn.Parameter(torch.ones(1))

    def reset(self):
        self.g = nn.Parameter(torch.zeros(1))

    def forward(self, x):
        return x * self.g

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(2, 2)
        self.gain = Gain()
        self.spare = Gain()

    def forward(self, x):
        return self.gain(self.lin(x))

def make(model):
    return torch.optim.SGD(model.parameters(), lr=0.1)

def touch(model):
    model.{attr}.reset()

model = Net()
opt = {built}
touch(model)
"""


def _stale(attr: str, built: str) -> list[tuple[str, str]]:
    source = PRELUDE + SUBMODULE.format(attr=attr, built=built)
    analysis = analyse_module(ast.parse(source), source)
    return [(e.optimizer, ast.unparse(e.target)) for e in analysis.events.of(StaleOptimizer)]


@pytest.mark.parametrize("built", ["torch.optim.SGD(model.parameters(), lr=0.1)", "make(model)"])
def test_a_submodule_method_run_through_a_helper_stales_the_models_optimizer(built: str) -> None:
    assert _stale("gain", built) == [("opt", "self.g")]


def test_a_submodule_the_forward_never_runs_stales_nothing() -> None:
    assert _stale("spare", "make(model)") == []
