"""`ModeSwitches` follows only calls of functions that may switch a module off: the names of
the file's functions with a switch of their own, or calling such a name at any depth. A
call of any other name is not resolved (it cannot lead to a switch); the switches found
through calls are the same."""

from __future__ import annotations

import ast
import textwrap

from gradguard.analysis.grad_context import GradContext
from gradguard.analysis.mode_switches import ModeSwitches, _switching_names
from gradguard.analysis.walk import module_nodes_of

_CODE = """
def evaluate(model):
    model.eval()

def validate(model):
    evaluate(model)

def report(model):
    log(model)

def log(model):
    print(model)

def train(model, batches):
    for x in batches:
        model(x).sum().backward()
        report(model)
        validate(model)
"""


def _tree(code: str) -> ast.Module:
    return ast.parse(textwrap.dedent(code))


def test_names_of_switching_functions_are_closed_over_calls() -> None:
    tree = _tree(_CODE)
    defs = module_nodes_of(tree, ast.FunctionDef, ast.AsyncFunctionDef)
    assert _switching_names(defs) == {"evaluate", "validate", "train"}


def test_switch_through_a_chain_of_calls_is_still_found() -> None:
    tree = _tree(_CODE)
    switches = ModeSwitches(tree, GradContext(tree).parents)
    train = next(f for f in tree.body if isinstance(f, ast.FunctionDef) and f.name == "train")
    found = [(s.key, s.via.name if s.via else None) for s in switches.switches(train)]
    assert found == [("model", "validate")]


def test_a_call_of_a_name_that_never_switches_is_not_resolved() -> None:
    tree = _tree(_CODE)
    switches = ModeSwitches(tree, GradContext(tree).parents)
    train = next(f for f in tree.body if isinstance(f, ast.FunctionDef) and f.name == "train")
    list(switches.switches(train))
    resolved = {call.func.id for call in ast.walk(train) if id(call) in switches._resolved}  # type: ignore[attr-defined]
    assert resolved == {"validate"}
