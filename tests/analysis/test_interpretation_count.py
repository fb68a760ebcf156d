"""How often the analysis interprets each function body and builds each scope: a guard on
the analysis's cost that counts work instead of timing it (the machines running the tests
are shared, a timed assertion would be noise).

A file whose calls teach nothing about parameters is interpreted once; when its calls do
teach something, a call-site pass (`model._analyse`) interprets again only the functions
that learnt something and what read their results; the syntactic facts of a file (scopes,
callee order, text scans: `FileSyntax`) are computed once per check whatever the number of
passes.
"""

from __future__ import annotations

import ast
import textwrap
from collections import Counter

import pytest

from gradguard.analysis import model
from gradguard.analysis.interpreter import file_syntax
from gradguard.analysis.interpreter.statements import FunctionInterpreter
from gradguard.analysis.node_cache import tree_scope

# No call says anything about a parameter: `helper(x)` gets an unknown value.
SILENT = textwrap.dedent(
    """
    import torch

    def helper(x):
        return x * 2

    def train(data):
        for x in data:
            helper(x)
    """
)

# `train(net, data)` is called once with a module: the call-site pass binds it to `train`'s
# parameter, a second pass, which interprets again only `train` and `main`, whose step reads
# `train`'s summary; `helper`'s step is replayed (see `gradguard.analysis.interpreter.replay`).
TEACHING = textwrap.dedent(
    """
    import torch
    from torch import nn

    def train(model, data):
        for x in data:
            loss = model(x).sum()
            loss.backward()

    def helper(x):
        return x + 1

    def main():
        net = nn.Linear(2, 1)
        train(net, [])

    main()
    """
)

# `load` hands a dict holding its own parameters to `fetch`: what `fetch` learns holds the
# parameters' stand-ins (`graph_inputs.stand_in_of`). They are the same objects in every
# pass, so the second pass learns what the first did and is the last.
HANDED_ON = textwrap.dedent(
    """
    import torch

    def fetch(options):
        return torch.load(options["path"])

    def load(path, device):
        options = {"path": path, "device": device}
        return fetch(options)

    def main():
        model = torch.nn.Linear(2, 2)
        model.load_state_dict(load("weights.pt", "cpu"))

    main()
    """
)


def _count(source: str, monkeypatch: pytest.MonkeyPatch) -> tuple[Counter[str], Counter[int]]:
    """How many times each function body was interpreted (by name), and how many times
    each scope was built (by id() of its node)."""
    bodies: Counter[str] = Counter()
    scopes: Counter[int] = Counter()
    enter = FunctionInterpreter.enter_function
    build = file_syntax.build_scope

    def counting_enter(self: FunctionInterpreter, node: model.FunctionNode) -> None:
        bodies[node.name] += 1
        enter(self, node)

    def counting_build(node: ast.AST, *args: object, **kwargs: object) -> object:
        scopes[id(node)] += 1
        return build(node, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(FunctionInterpreter, "enter_function", counting_enter)
    monkeypatch.setattr(file_syntax, "build_scope", counting_build)
    tree = ast.parse(source)
    with tree_scope():
        model.analyse_module(tree, source)
    return bodies, scopes


def test_a_file_whose_calls_teach_nothing_is_interpreted_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    bodies, scopes = _count(SILENT, monkeypatch)
    assert bodies == Counter({"helper": 1, "train": 1})
    assert set(scopes.values()) == {1}


def test_a_pass_that_learns_reinterprets_only_what_depends_on_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    bodies, scopes = _count(TEACHING, monkeypatch)
    assert bodies == Counter({"train": 2, "main": 2, "helper": 1})
    # Scopes (module, train, helper, main) are built once for both passes.
    assert len(scopes) == 4
    assert set(scopes.values()) == {1}


def test_facts_holding_a_callers_parameters_settle_in_the_second_pass(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    bodies, _ = _count(HANDED_ON, monkeypatch)
    assert bodies == Counter({"fetch": 2, "load": 2, "main": 2})


def test_without_replay_every_pass_interprets_every_body(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(model, "REPLAY_STEPS", False)
    bodies, _ = _count(TEACHING, monkeypatch)
    assert bodies == Counter({"train": 2, "main": 2, "helper": 2})


def _nested_loops(depth: int) -> str:
    """A function of `depth` nested loops with one statement in the innermost."""
    lines = ["import torch", "def f(w):"]
    for level in range(depth):
        lines.append("    " * (level + 1) + f"for i{level} in range(2):")
    lines.append("    " * (depth + 1) + "w = w * 2")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("depth", [12, 30])
def test_deeply_nested_loops_cost_linear_work_past_the_probed_depth(
    depth: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each probed loop runs its body twice; past `_PROBED_DEPTH` levels a loop runs once,
    so 30 nested loops (which parse, though Python refuses to compile them) cost what 6 do,
    plus one run per deeper level, instead of 2**30 runs of the innermost statement."""
    from gradguard.analysis.interpreter import statements

    runs = Counter[int]()
    run_stmt = FunctionInterpreter.run_stmt

    def counting(self: FunctionInterpreter, stmt: ast.stmt) -> None:
        if isinstance(stmt, ast.Assign):
            runs[stmt.lineno] += 1
        run_stmt(self, stmt)

    monkeypatch.setattr(FunctionInterpreter, "run_stmt", counting)
    source = _nested_loops(depth)
    tree = ast.parse(source)
    with tree_scope():
        model.analyse_module(tree, source)
    assert sum(runs.values()) == 2**statements._PROBED_DEPTH
