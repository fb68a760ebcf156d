"""`interpreter.reporting_helpers`: which functions hand what they are given to a short
helper of the file that reports in context (a checkpoint or a loss called by name), so
that a call of them with known arguments is run in context."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

from gradguard.analysis.interpreter.module import ModuleInterpreter
from gradguard.analysis.interpreter.reporting_helpers import (
    _bound_names,
    calls_reporting_helper,
    short_reporting_helper,
)
from gradguard.analysis.model import ModuleAnalysis

HEADER = "from torch.utils.checkpoint import checkpoint\n"


def _asks(source: str, name: str = "forward") -> bool:
    text = HEADER + textwrap.dedent(source)
    tree = ast.parse(text)
    module = ModuleInterpreter(tree, ModuleAnalysis(tree), text)
    function = next(
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == name
    )
    return calls_reporting_helper(module, function)


METHOD = """
class Net:
    def _run(self, block, h):
        if self.enabled:
            return checkpoint(block, h)
        return block(h)

    def forward(self, h):
        return self._run(self.block, h)
"""

INHERITED = """
class Base:
    def _run(self, block, h):
        return checkpoint(block, h)

class Net(Base):
    def forward(self, h):
        return self._run(self.block, h)
"""

FUNCTION = """
def run(block, h):
    return checkpoint(block, h)

class Net:
    def forward(self, h):
        return run(self.block, h)
"""

# Look-alikes: nothing of the file that reports, or not found for certain.
PLAIN_HELPER = """
class Net:
    def _run(self, block, h):
        return block(h)

    def forward(self, h):
        return self._run(self.block, h)
"""

REBOUND = """
def run(block, h):
    return checkpoint(block, h)

run = make_runner()

class Net:
    def forward(self, h):
        return run(self.block, h)
"""

# Bound again inside a function (`global`) or imported there: not bound once.
REBOUND_IN_A_FUNCTION = """
def run(block, h):
    return checkpoint(block, h)

def use_other():
    global run
    run = make_runner()

class Net:
    def forward(self, h):
        return run(self.block, h)
"""

IMPORTED_IN_A_FUNCTION = """
def run(block, h):
    return checkpoint(block, h)

def setup():
    from runners import run

class Net:
    def forward(self, h):
        return run(self.block, h)
"""

STATIC_CALLER = """
class Net:
    def _run(self, block, h):
        return checkpoint(block, h)

    @staticmethod
    def forward(h):
        return h._run(h.block, h)
"""

LONG_HELPER = (
    "\nclass Net:\n    def _run(self, block, h):\n"
    + "".join(f"        h{i} = h\n" for i in range(9))
    + "        return checkpoint(block, h)\n\n"
    + "    def forward(self, h):\n        return self._run(self.block, h)\n"
)

OTHER_OBJECT = """
class Net:
    def _run(self, block, h):
        return checkpoint(block, h)

    def forward(self, h):
        return self.inner._run(self.block, h)
"""


@pytest.mark.parametrize(
    ("source", "wanted"),
    [
        (METHOD, True),
        (INHERITED, True),
        (FUNCTION, True),
        (PLAIN_HELPER, False),
        (REBOUND, False),
        (REBOUND_IN_A_FUNCTION, False),
        (IMPORTED_IN_A_FUNCTION, False),
        (STATIC_CALLER, False),
        (LONG_HELPER, False),
        (OTHER_OBJECT, False),
    ],
)
def test_a_caller_of_a_short_reporting_helper(source: str, wanted: bool) -> None:
    assert _asks(source) is wanted


def test_a_helper_is_short_and_reports() -> None:
    tree = ast.parse(HEADER + METHOD)
    helper = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "_run")
    forward = next(
        n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "forward"
    )
    assert short_reporting_helper(helper)
    assert not short_reporting_helper(forward)


CORPUS = sorted((Path(__file__).resolve().parents[1] / "corpus").rglob("*.py"))


@pytest.mark.parametrize("path", CORPUS[::7], ids=lambda p: p.name)
def test_bound_names_are_the_union_of_each_statements(path: Path) -> None:
    """An edit inside one function is checked on that function's names alone
    (`incremental._BY_PARTS`): the whole module's answer is the union of its parts'."""
    tree = ast.parse(path.read_text())
    parts = [_bound_names(ast.Module([stmt], [])) for stmt in tree.body]
    assert _bound_names(tree) == frozenset().union(*parts)
