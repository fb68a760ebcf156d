"""Which calls may run a method: a call on a module whose class the analysis knows runs
that class's method, not a same-named method of an unrelated class of the file."""

from __future__ import annotations

import ast
import textwrap

from gradguard.analysis.grad_context import GradContext
from gradguard.analysis.model import analyse_module
from gradguard.core.rule import RuleContext
from gradguard.core.text import SourceText

_TRAINER = """
import torch
from torch import nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)
    def forward(self, x):
        return self.fc(x)

class Trainer:
    def __init__(self, net):
        self.model = Net()
        self.head = nn.Linear(2, 2)
        self.given = net
    def _epoch(self):
        self.model.train()
        self.head.train()
        self.given.eval()
        self.given.train()
    def train(self):
        self._epoch()
"""


def _context(code: str) -> tuple[GradContext, dict[str, list[ast.FunctionDef]]]:
    """The file's GradContext as rules get it (with the interpreter's events), and its
    functions by name."""
    source = textwrap.dedent(code)
    tree = ast.parse(source)
    context = RuleContext(SourceText(source), tree, analyse_module(tree, source)).grad_context
    functions: dict[str, list[ast.FunctionDef]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            functions.setdefault(node.name, []).append(node)
    return context, functions


def _calls(context: GradContext, function: ast.FunctionDef) -> list[str]:
    sites = context.call_sites(function)
    assert sites is not None
    return [ast.unparse(call) for call in sites]


def test_a_module_of_another_class_does_not_run_the_method() -> None:
    """`self.model.train()` (a `Net` of the file) and `self.head.train()` (an nn.Linear)
    run nn.Module.train; `self.given`, a parameter known as a module by use only, may be a
    Trainer and stays a possible call."""
    context, functions = _context(_TRAINER)
    (train,) = functions["train"]
    assert _calls(context, train) == ["self.given.train()"]


def test_without_the_interpreter_every_call_of_the_name_counts() -> None:
    tree = ast.parse(textwrap.dedent(_TRAINER))
    (train,) = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "train"]
    assert len(GradContext(tree).call_sites(train) or []) == 3


def test_a_method_called_only_on_other_modules_is_an_entry_point() -> None:
    context, functions = _context(_TRAINER.replace("self.given.train()", "pass"))
    (train,) = functions["train"]
    assert _calls(context, train) == []
    assert context.uncalled_entry_point(train)
    assert context.callers(functions["_epoch"][0]) == {train}


def test_self_in_a_module_overriding_train_runs_the_override() -> None:
    """`self.train()` in a module class that defines `train`, and in a subclass of it, may
    run the override; so may a call on an instance of a subclass (and `super().train(mode)`,
    whose receiver the analysis does not follow)."""
    context, functions = _context(
        """
        import torch
        from torch import nn
        class Learner(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 2)
            def train(self, mode=True):
                super().train(mode)
                self.fc.eval()
                return self
            def fit(self):
                self.train()
        class Child(Learner):
            def again(self):
                self.train()
        class Owner:
            def __init__(self):
                self.learner = Child()
            def run(self):
                self.learner.train()
        """
    )
    (train,) = functions["train"]
    assert _calls(context, train) == [
        "super().train(mode)",
        "self.train()",
        "self.train()",
        "self.learner.train()",
    ]


def test_a_module_of_an_unrelated_class_of_the_file_does_not_run_its_method() -> None:
    context, functions = _context(
        """
        from torch import nn
        class Encoder(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 2)
            def forward(self, x):
                return self.fc(x)
        class Probe(nn.Module):
            def __init__(self):
                super().__init__()
                self.encoder = Encoder()
            def forward(self, x):
                return x
            def measure(self, x):
                return self.encoder.forward(x)
        """
    )
    forwards = functions["forward"]
    probe_forward = forwards[1]
    assert _calls(context, probe_forward) == []
    assert _calls(context, forwards[0]) == ["self.encoder.forward(x)"]
