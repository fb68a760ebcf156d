"""An `__init__` that hands its parameters on (to a torch factory, a layer, another class
of the file) learns them from every construction the file shows (`call_sites`), as a
constructor keeping a parameter on `self` already did: `Binning(levels=4)` everywhere makes
`levels` the int 4 inside, so `torch.arange(0, span, span // levels)` is an int64 range.
"""

from __future__ import annotations

import ast
import textwrap

from gradguard.analysis.model import learn_caller_facts

HEADER = "import torch\nfrom torch import nn\n"

BINNING = """
class Binning(nn.Module):
    def __init__(self, levels, span=12):
        super().__init__()
        self.centres = nn.Parameter(torch.arange(0, span, span // levels).float())
"""


def _levels(constructions: str) -> object:
    source = HEADER + BINNING + textwrap.dedent(constructions)
    tree = ast.parse(source)
    init = next(
        n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "__init__"
    )
    facts = learn_caller_facts(tree, source).get(id(init))
    if facts is None:
        return None
    return (facts.parameters["levels"].const, facts.parameters["span"].const)


def test_every_construction_passes_the_same_numbers() -> None:
    assert _levels("a = Binning(4)\nb = Binning(levels=4)\n") == (4, 12)


def test_constructions_passing_different_numbers_leave_them_unknown() -> None:
    assert _levels("a = Binning(4)\nb = Binning(3, span=6)\n") == (None, None)


def test_a_class_passed_around_learns_nothing() -> None:
    assert _levels("a = Binning(4)\nfactory = Binning\n") is None


def test_a_construction_in_another_constructor_passes_its_parameter() -> None:
    """`Head(levels=4)` hands `levels` to `Binning(levels)`: the second pass knows it."""
    constructions = """
    class Head(nn.Module):
        def __init__(self, levels):
            super().__init__()
            self.bins = Binning(levels)

    head = Head(4)
    """
    assert _levels(constructions) == (4, 12)


def test_a_constructor_handing_parameters_on_learns_no_flags() -> None:
    """A flag decides which of `__init__`'s code runs: the file's own construction leaving
    it at its default is not every construction an importer makes, so it stays unknown
    (the flag-guarded in-place init below is still checked); numbers are learnt."""
    source = HEADER + textwrap.dedent(
        """
        class Bias(nn.Module):
            def __init__(self, size, uniform=False):
                super().__init__()
                self.bias = nn.Parameter(torch.zeros(size))
                if uniform:
                    self.bias.uniform_(-1.0, 0.0)

        layer = Bias(4)
        """
    )
    tree = ast.parse(source)
    init = next(
        n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "__init__"
    )
    facts = learn_caller_facts(tree, source)[id(init)]
    assert facts.parameters["size"].const == 4
    assert facts.parameters["uniform"].const is None
