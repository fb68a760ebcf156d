"""Functions of the file whose every result is a module they build right there
(`module_builders.builds_module`), and what GG608 makes of them: `student = mlp(16)` is a
new module of its own, `teacher = pick()` returning a module held elsewhere is not."""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.analysis.model import analyse_module
from gradguard.analysis.module_builders import builds_module
from gradguard.analysis.name_flow import NameFlow
from gradguard.analysis.optimizer_reach import unreached_optimizers


def _capitalized(call: ast.Call) -> bool:
    """A stand-in for the caller's test of a module construction."""
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    return name[:1].isupper()


def _builds(source: str) -> bool:
    function = ast.parse(textwrap.dedent(source)).body[-1]
    assert isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef)
    return builds_module(function, _capitalized)


@pytest.mark.parametrize(
    "source",
    [
        "def mlp(w):\n    return nn.Sequential(nn.Linear(4, w), nn.ReLU())\n",
        '"""Doc."""\ndef f():\n    """Doc."""\n    return Net()\n',
        "def f(w):\n    net = Net(w)\n    net.apply(init)\n    return net\n",
        "def f(dev):\n    net = Net()\n    net = net.to(dev)\n    return net\n",
        "def f(dev):\n    net = Net()\n    return net.to(dev)\n",
        "def f(big):\n    if big:\n        return Wide()\n    return Narrow()\n",
        "def f():\n    def g():\n        return shared\n    return Net()\n",
    ],
)
def test_a_function_returning_what_it_constructs_builds_a_module(source: str) -> None:
    assert _builds(source)


@pytest.mark.parametrize(
    "source",
    [
        "def f(m):\n    return m\n",  # the caller's module
        "def f(m):\n    return m.to('cpu')\n",
        "def f():\n    return SHARED\n",  # a module held elsewhere
        "def f():\n    net = SHARED\n    return net\n",
        "def f():\n    return make()\n",  # another function's result
        "def f():\n    return self.net\n",
        "def f():\n    net = Net()\n    net = other\n    return net\n",
        "def f():\n    for net in nets:\n        pass\n    return net\n",
        "def f():\n    net, x = Net(), 1\n    return net\n",
        "def f():\n    try:\n        pass\n    except E as net:\n        pass\n    return Net()\n"
        "    return net\n",
        "def f():\n    global net\n    net = Net()\n    return net\n",
        "def f(big):\n    if big:\n        return Net()\n",  # may fall off the end
        "def f(big):\n    if big:\n        return\n    return Net()\n",
        "def f():\n    yield Net()\n    return Net()\n",
        "@cache\ndef f():\n    return Net()\n",
        "async def f():\n    return Net()\n",
        "def f():\n    return build(Net())\n",  # lower-case: not a construction
    ],
)
def test_anything_else_is_no_builder(source: str) -> None:
    assert not _builds(source)


TRAINING = """
import torch
import torch.nn.functional as F
from torch import nn

{definitions}

def main():
    teacher = {teacher}
    student = {student}
    optimizer = torch.optim.Adam(teacher.parameters(), lr=1e-3)
    for step in range(5):
        x = torch.randn(8, 20)
        with torch.no_grad():
            target = teacher(x)
        loss = F.mse_loss(student(x), target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
"""

MLP = "def mlp(width):\n    return nn.Sequential(nn.Linear(20, width), nn.Linear(width, 5))\n"
SHARED = "SHARED = nn.Linear(20, 5)\n\ndef pick(width):\n    net = SHARED\n    return net\n"


def _unreached(definitions: str, teacher: str, student: str) -> list[str]:
    text = TRAINING.format(definitions=definitions, teacher=teacher, student=student)
    tree = ast.parse(text)
    found = unreached_optimizers(analyse_module(tree, text), NameFlow(tree))
    return [u.module for u in found]


def test_a_student_built_by_a_function_of_the_file_is_another_module() -> None:
    assert _unreached(MLP, "mlp(128)", "mlp(16)") == ["teacher"]
    assert _unreached(MLP, "nn.Linear(20, 5)", "mlp(16)") == ["teacher"]


def test_a_function_returning_a_module_held_elsewhere_builds_nothing_new() -> None:
    assert _unreached(SHARED, "pick(128)", "pick(16)") == []  # one module, trained
    # A fresh teacher is still not the module `pick` hands out: the loss never reaches it.
    assert _unreached(SHARED, "nn.Linear(20, 5)", "pick(16)") == ["teacher"]
