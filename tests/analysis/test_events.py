"""The typed events of the analysis: what each snippet records, kind by kind and in order.

Each case is a snippet and the events it records, in recording order, as (class, target,
own fields): only the fields of its own kind (a `Value` shown by its grad). The index is
checked too: each kind lands in its own list, in recording order, and nothing else does.
"""

from __future__ import annotations

import ast
import dataclasses
import textwrap

import pytest

from gradguard.analysis.events import (
    KINDS,
    Accumulation,
    Append,
    ArgumentFreedByCall,
    AttributeSet,
    CheckpointInput,
    Conversion,
    Event,
    Events,
    ForwardCall,
    FreedByCall,
    GradRead,
    InferenceSaved,
    InPlaceChange,
    IntegerGradRequest,
    LoopTrips,
    LossInput,
    ModuleCall,
    ModuleMethodCall,
    ModuleModeCall,
    OptimizedTensor,
    OptimizerCall,
    RepeatedDraw,
    RequiresGradCall,
    StaleOptimizer,
    StateAppend,
)
from gradguard.analysis.graph import SavedNode
from gradguard.analysis.model import ModuleAnalysis, analyse_module
from gradguard.analysis.values import Value

PRELUDE = (
    "import torch\nimport numpy as np\nimport torch.nn as nn\nimport torch.nn.functional as F\n"
)
SHARED = {field.name for field in dataclasses.fields(Event)}

Row = tuple[type[Event], str, dict[str, object]]


def _analyse(body: str) -> ModuleAnalysis:
    source = PRELUDE + textwrap.dedent(body)
    return analyse_module(ast.parse(source), source)


def _own(event: Event) -> dict[str, object]:
    """The fields of the event's own kind; a `Value` by its grad."""
    own = {}
    for field in dataclasses.fields(event):
        if field.name not in SHARED:
            value = getattr(event, field.name)
            if isinstance(value, ast.AST):
                value = ast.unparse(value)
            elif isinstance(value, SavedNode):
                value = ast.unparse(value.node)  # a graph node, by its call
            elif isinstance(value, frozenset) and all(isinstance(v, SavedNode) for v in value):
                value = tuple(sorted(ast.unparse(v.node) for v in value))  # graph nodes
            elif isinstance(value, tuple) and all(isinstance(v, ast.AST) for v in value):
                value = tuple(ast.unparse(v) for v in value)
            own[field.name] = value.grad.name if isinstance(value, Value) else value
    return own


def _rows(events: list[Event] | Events) -> list[Row]:
    return [(type(e), ast.unparse(e.target), _own(e)) for e in events]


CASES: list[tuple[str, str, list[Row]]] = [
    (
        "conversions",
        """
        w = torch.randn(3, requires_grad=True)
        a = w.item()
        b = w.tolist()
        c = np.array(w)
        d = np.mean([w, w])
        """,
        [
            (Conversion, "w", {"method": "item"}),
            (Conversion, "w", {"method": "tolist"}),
            (Conversion, "w", {"method": "array"}),
            (Conversion, "[w, w]", {"method": "array-items"}),
        ],
    ),
    (
        "in-place changes and attribute sets",
        """
        x = torch.randn(3)
        x += 1
        x[0] = 2
        x.mul_(3)
        x.requires_grad = True
        """,
        [
            (InPlaceChange, "x", {"operator": "Add"}),
            (InPlaceChange, "x", {"operator": "setitem"}),
            (InPlaceChange, "x", {"operator": "mul_"}),
            (AttributeSet, "x", {"attribute": "requires_grad"}),
        ],
    ),
    (
        "grad reads, plain and after an assignment",
        """
        w = torch.randn(3, requires_grad=True)
        g = w.grad
        w.grad = torch.zeros(3)
        h = w.grad
        """,
        [
            (GradRead, "w", {"bound": False}),
            (AttributeSet, "w", {"attribute": "grad"}),
            (GradRead, "w", {"bound": True}),
        ],
    ),
    (
        "requires_grad_ and tensors listed for an optimizer",
        """
        w = torch.randn(3).requires_grad_()
        b = torch.zeros(3, requires_grad=True)
        opt = torch.optim.SGD([w, b], lr=0.1)
        """,
        [
            (RequiresGradCall, "torch.randn(3)", {}),
            (OptimizedTensor, "w", {"optimizer": "torch.optim.SGD"}),
            (OptimizedTensor, "b", {"optimizer": "torch.optim.SGD"}),
        ],
    ),
    (
        "module calls, modes, forward and optimizer calls",
        """
        model = nn.Linear(3, 1)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        model.train()
        loss = model(torch.randn(2, 3)).sum()
        loss.backward()
        opt.step()
        opt.zero_grad()
        model.eval()
        y = model.forward(torch.randn(2, 3))
        """,
        [
            (ModuleModeCall, "model", {"method": "train"}),
            (ModuleCall, "model", {"layer_class": "torch.nn.Linear"}),
            (OptimizerCall, "opt", {"method": "step"}),
            (OptimizerCall, "opt", {"method": "zero_grad"}),
            (ModuleModeCall, "model", {"method": "eval"}),
            # `model.forward(x)` is a direct forward call, then the call of the module
            (ForwardCall, "model", {}),
            (ModuleCall, "model.forward", {"layer_class": "torch.nn.Linear"}),
        ],
    ),
    (
        "accumulations and appends",
        """
        w = torch.randn(3, requires_grad=True)
        total = 0
        outputs = []
        for i in range(3):
            out = (w * i).sum()
            total += out
            outputs.append(out)
        """,
        [
            # The loop is reached once, and runs three times.
            (LoopTrips, "range(3)", {"trips": 3}),
            (Accumulation, "total", {"added": "TRACKED"}),
            # From the second iteration on `total` is a tensor, and `+=` adds in place.
            (InPlaceChange, "total", {"operator": "Add"}),
            (Append, "outputs", {"item": "TRACKED"}),
        ],
    ),
    (
        # A comprehension whose element never reads its target is recorded with its count
        # (known for `range(...)` only); one reading its target, or with a condition, is not.
        "repeated draws",
        """
        k = 3
        batches = [torch.randn(2, 4) for _ in range(k)]
        noise = [torch.randn(2) for _ in batches]
        tasks = [torch.full((2,), t) for t in range(k)]
        kept = [torch.randn(2) for _ in range(k) if k > 1]
        """,
        [
            (RepeatedDraw, "torch.randn(2, 4)", {"trips": 3}),
            (RepeatedDraw, "torch.randn(2)", {"trips": 0}),
        ],
    ),
    (
        "loss inputs",
        """
        criterion = nn.CrossEntropyLoss()
        logits = torch.randn(2, 5, requires_grad=True)
        y = torch.tensor([1, 2])
        a = criterion(logits, y)
        b = F.binary_cross_entropy_with_logits(logits, y.float())
        """,
        [
            (ModuleCall, "criterion", {"layer_class": "torch.nn.CrossEntropyLoss"}),
            (LossInput, "logits", {"loss_function": "cross_entropy"}),
            (LossInput, "logits", {"loss_function": "binary_cross_entropy_with_logits"}),
        ],
    ),
    (
        # A method of a module class of the file other than its call: the receiver and the
        # method's name (after the method's own events: its body is analysed first). A
        # method of a plain class is no module's.
        "a method of a module of the file",
        """
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(3, 3)

            def embed(self, x):
                return self.fc(x)

        class Helper:
            def scale(self, x):
                return 2 * x

        net = Net()
        h = net.embed(torch.randn(2, 3))
        g = Helper().scale(h)
        """,
        [
            (ModuleCall, "self.fc", {"layer_class": "torch.nn.Linear"}),
            (ModuleMethodCall, "net", {"method": "embed"}),
        ],
    ),
    (
        "an inference tensor saved for backward",
        """
        w = torch.randn(3, requires_grad=True)
        with torch.inference_mode():
            x = torch.randn(3)
        y = x * w
        """,
        [(InferenceSaved, "x", {"operation": "Mult", "grad_operand": "TRACKED", "through": None})],
    ),
    (
        # Handed to a module of the file whose `forward` saves it: reported at the call, with
        # the operation inside. A module whose `forward` only adds saves nothing.
        "an inference tensor a local module saves",
        """
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(3, 3)

            def forward(self, x):
                return self.fc(x)

        class Shift(nn.Module):
            def __init__(self):
                super().__init__()
                self.b = nn.Parameter(torch.zeros(3))

            def forward(self, x):
                return x + self.b

        net, shift = Net(), Shift()
        with torch.inference_mode():
            feats = torch.randn(2, 3)
        y = net(feats)
        z = shift(feats)
        """,
        [
            (ModuleCall, "self.fc", {"layer_class": "torch.nn.Linear"}),
            (ModuleCall, "net", {"layer_class": ""}),
            (
                InferenceSaved,
                "feats",
                {
                    "operation": "torch.nn.Linear",
                    "grad_operand": "TRACKED",
                    "through": "self.fc(x)",
                },
            ),
            (ModuleCall, "shift", {"layer_class": ""}),
        ],
    ),
    (
        # A loss saves its target, not its input: an inference target raises, an inference
        # input with a target that requires grad does not; F.l1_loss saves neither. A view
        # of an inference tensor is one; a comparison made under inference mode is one.
        "inference tensors a loss saves as its target",
        """
        w = torch.randn(2, 3, requires_grad=True)
        ce = nn.CrossEntropyLoss()
        with torch.inference_mode():
            labels = torch.randint(0, 3, (2,))
            target = torch.rand(2, 3)
            mask = (target > 0.5).float()
        a = F.cross_entropy(w, labels)
        b = F.l1_loss(w, target)
        c = F.cross_entropy(target, w.softmax(1))
        d = ce(w, labels.view(-1))
        e = w * mask
        """,
        [
            (LossInput, "w", {"loss_function": "cross_entropy"}),
            (
                InferenceSaved,
                "labels",
                {
                    "operation": "torch.nn.functional.cross_entropy",
                    "grad_operand": "TRACKED",
                    "through": None,
                },
            ),
            (LossInput, "target", {"loss_function": "cross_entropy"}),
            (ModuleCall, "ce", {"layer_class": "torch.nn.CrossEntropyLoss"}),
            (LossInput, "w", {"loss_function": "cross_entropy"}),
            (
                InferenceSaved,
                "labels.view(-1)",
                {
                    "operation": "torch.nn.CrossEntropyLoss",
                    "grad_operand": "TRACKED",
                    "through": None,
                },
            ),
            (
                InferenceSaved,
                "mask",
                {"operation": "Mult", "grad_operand": "TRACKED", "through": None},
            ),
        ],
    ),
    (
        "checkpoint inputs",
        """
        from torch.utils.checkpoint import checkpoint, checkpoint_sequential
        layer = nn.Linear(3, 3)
        seq = nn.Sequential(nn.Linear(3, 3))
        x = torch.randn(2, 3)
        a = checkpoint(layer, x, use_reentrant=True)
        b = checkpoint_sequential(seq, 1, x)
        """,
        [
            (CheckpointInput, "x", {"sequential": False, "direct": "TRACKED", "run": 0}),
            (CheckpointInput, "x", {"sequential": True, "direct": None, "run": 0}),
        ],
    ),
    (
        "integer tensors asked to require grad",
        """
        n = 3
        c = nn.Parameter(torch.arange(n))
        ids = [3, 1]
        d = torch.tensor(ids, requires_grad=True)
        e = nn.Parameter(torch.arange(n), requires_grad=False)
        f = torch.tensor([0.5, 1], requires_grad=True)
        """,
        [
            (IntegerGradRequest, "torch.arange(n)", {"in_place": False}),
            (IntegerGradRequest, "ids", {"in_place": False}),
        ],
    ),
    (
        "integer tensors asked to require grad in place",
        """
        ids = torch.randint(0, 5, (3,))
        ids.requires_grad_(False)
        torch.arange(4).requires_grad_()
        """,
        [
            (RequiresGradCall, "ids", {}),
            (RequiresGradCall, "torch.arange(4)", {}),
            (IntegerGradRequest, "torch.arange(4)", {"in_place": True}),
        ],
    ),
    (
        "optimizers left stale by a new layer, in a function and in a method",
        """
        class Harness:
            def __init__(self):
                self.net = nn.Sequential(nn.Linear(3, 4), nn.Linear(4, 2))
                self.opt = torch.optim.SGD(self.net.parameters(), lr=0.1)

            def regrow(self):
                self.net[1] = nn.Linear(4, 5)

        model = nn.Sequential(nn.Linear(3, 4), nn.Linear(4, 2))
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        model[1] = nn.Linear(4, 5)
        """,
        [
            (StaleOptimizer, "self.net[1]", {"optimizer": "self.opt", "stale": "UNKNOWN"}),
            (StaleOptimizer, "model[1]", {"optimizer": "opt", "stale": "UNKNOWN"}),
        ],
    ),
    (
        # A list on `self` the method does not follow (its only appender is in progress);
        # a local list's append is an `Append`.
        "appends to state of the instance",
        """
        class Logger:
            def __init__(self):
                self.history = []

            def log(self, x):
                self.history.append(x * 2)
                kept = []
                kept.append(x)

        Logger().log(torch.ones(2, requires_grad=True))
        """,
        [
            (StateAppend, "self.history", {"item": "TRACKED"}),
            (Append, "kept", {"item": "TRACKED"}),
        ],
    ),
    (
        # A helper whose own backward freed the graph of what it returns: the call's node
        # stands for it, freed at the caller.
        "a helper freeing the graph of its result",
        """
        G = nn.Linear(4, 4)
        D = nn.Linear(4, 1)

        def step(x):
            fake = G(x)
            D(fake).mean().backward()
            return fake

        out = step(torch.randn(2, 4))
        """,
        [
            (ModuleCall, "G", {"layer_class": "torch.nn.Linear"}),
            (ModuleCall, "D", {"layer_class": "torch.nn.Linear"}),
            (
                FreedByCall,
                "step",
                {"freed": "step(torch.randn(2, 4))", "backwards": ("D(fake).mean().backward()",)},
            ),
        ],
    ),
    (
        # A helper whose own backward freed the graph of what it was given: that argument's
        # operations are freed at the caller.
        "a helper freeing the graph of its argument",
        """
        G = nn.Linear(4, 4)
        D = nn.Linear(4, 1)

        def critic(fake):
            D(fake).mean().backward()

        sample = G(torch.randn(2, 4))
        critic(sample)
        """,
        [
            (ModuleCall, "D", {"layer_class": "torch.nn.Linear"}),
            (ModuleCall, "G", {"layer_class": "torch.nn.Linear"}),
            (
                ArgumentFreedByCall,
                "critic",
                {
                    "freed": ("G(torch.randn(2, 4))",),
                    "parameter": "fake",
                    "backwards": ("D(fake).mean().backward()",),
                },
            ),
        ],
    ),
]


@pytest.mark.parametrize(("body", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_a_snippet_records_these_events_in_order(body: str, expected: list[Row]) -> None:
    assert _rows(_analyse(body).events) == expected


@pytest.mark.parametrize("body", [c[1] for c in CASES], ids=[c[0] for c in CASES])
def test_each_kind_lands_in_its_own_list_in_recording_order(body: str) -> None:
    events = _analyse(body).events
    everything = list(events)
    for kind in KINDS:
        assert events.of(kind) == [e for e in everything if type(e) is kind]
    assert sum(len(events.of(kind)) for kind in KINDS) == len(events) == len(everything)


def test_events_of_two_kinds_keep_the_recording_order() -> None:
    events = _analyse(CASES[4][1]).events
    both = events.of(ModuleCall, ModuleModeCall)
    assert [(type(e), _own(e)) for e in both] == [
        (ModuleModeCall, {"method": "train"}),
        (ModuleCall, {"layer_class": "torch.nn.Linear"}),
        (ModuleModeCall, {"method": "eval"}),
        (ModuleCall, {"layer_class": "torch.nn.Linear"}),
    ]


def test_every_kind_is_covered_by_a_case() -> None:
    covered = {row[0] for _, _, rows in CASES for row in rows}
    assert covered == set(KINDS)


def test_the_index_returns_a_copy() -> None:
    """Recording while walking one kind's events (as the interpreter does when it records a
    method's events again for a loop) walks only those recorded before."""
    events = _analyse(CASES[4][1]).events
    seen = 0
    for event in events.of(OptimizerCall):
        events.add(dataclasses.replace(event, every_iteration=frozenset()))
        seen += 1
    assert seen == 2 and len(events.of(OptimizerCall)) == 4


def test_an_event_knows_where_it_happened() -> None:
    body = """
    def train(model, xs):
        for x in xs:
            model.eval()
    """
    (switch,) = _analyse(body).events.of(ModuleModeCall)
    assert switch.function is not None and switch.function.name == "train"
    assert isinstance(switch.stmt, ast.Expr) and switch.stmt.value is switch.node
    assert [loop.lineno for loop in switch.every_iteration] == [7]
    assert switch.grad_enabled is True


def test_an_event_records_the_grad_mode_it_runs_under() -> None:
    body = """
    def evaluate(model, xs):
        with torch.no_grad():
            model.eval()
    """
    (switch,) = _analyse(body).events.of(ModuleModeCall)
    assert switch.grad_enabled is False and switch.every_iteration == frozenset()
