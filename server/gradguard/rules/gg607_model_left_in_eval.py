"""GG607 `model-left-in-eval`

## What it does
Finds a training loop (typically the epoch loop, or a batch loop that validates every N
iterations) that switches a model to evaluation mode, `model.eval()` or
`model.train(False)`, directly or by calling a function of the file that does it to the
model it is given, to the same global, or to `self.model` (`validate(val_loader, model)`,
`self.validate()`), also a few calls deep (`self._maybe_evaluate()` calling
`self.evaluate()` every N steps) and through a local alias bound once (`model =
self.model; model.eval()`, not a copy or a part of it), and never switches it back: no
`.train()` anywhere in the loop, nor in the functions of the file the loop calls. The loop
must train again after the switch: a statement of the loop body (other than the one
switching) runs or hands over the model, and one runs a backward pass or an optimizer step
(directly or in a function of the file). And the model must be the one that trains: an
optimizer of the file is built from its parameters (or by its own `configure_optimizers`;
for `self.model`, also from the argument `__init__` keeps as `self.model`), the file
updates its parameters by hand from their `.grad`, or the loop calls it outside
`torch.no_grad()` and backpropagates.

It stays silent when anything may switch the model back: a `.train()` call on any receiver
in the loop or in a function it calls (the usual `def train(...): model.train()`), code the
analysis cannot see that is given the model (`torch.save` and `copy.deepcopy` excepted; an
object the trainer holds, `self.criterion(out, y)`, counts as given the model only when the
class built it from the model or from `self`, or defines no such attribute), a
`break`/`return`/`raise` right after the switch (the loop ends there), a frozen teacher
evaluated under `torch.no_grad()` beside the student that trains, and a model the analysis
knows computes the same in both modes: an `nn.Linear`, an `nn.Sequential` or a class of the
file built only from layers without dropout, batch norm or other mode-dependent behaviour
(`MODE_DEPENDENT_LAYERS`). Such a model is left in eval mode too, but harmlessly, and a user
would rightly call the finding noise (tk-rusch/coRNN#1). A model it cannot see into (a
torchvision network, a model built in another file) is reported: calling `eval()` on it is
the author's own statement that its mode matters.

## Why is this bad?
`model.train()` once before the epoch loop sets training mode for the first epoch only. The
first validation pass switches the model to evaluation mode, and every later epoch trains
with dropout switched off and batch norm normalising with its running statistics instead of
the batch's (and no longer updating them). Training runs, the loss still falls, and nothing
raises: the model silently loses its regularisation from the second epoch on, and batch-norm
models often train much worse.

## Example
```python
model.train()
for epoch in range(epochs):
    for x, y in train_loader:
        optimizer.zero_grad()
        criterion(model(x), y).backward()
        optimizer.step()
    model.eval()
    validate(model, val_loader)
```

## Use instead
```python
for epoch in range(epochs):
    model.train()
    for x, y in train_loader:
        optimizer.zero_grad()
        criterion(model(x), y).backward()
        optimizer.step()
    model.eval()
    validate(model, val_loader)
```

## Fix safety
"Switch the model back to training mode" inserts `model.train()` before the first statement
of the loop body that trains or runs the model. That puts every epoch in the mode the first
one had; but some code trains in evaluation mode on purpose (frozen batch-norm statistics
while fine-tuning), which a switch the analysis sees only inside the loop cannot rule out.
The fix is unsafe.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from gradguard.analysis.facts import (
    FunctionNode,
    LoopNode,
    ModeSwitch,
    ModeSwitches,
    ModuleCall,
    ModuleModeCall,
    calls_in,
    dotted,
    mentions,
    module_nodes_of,
    optimized_module,
    sole_assignment,
)
from gradguard.analysis.torch_api import MODULE_CONTAINERS, mode_free_layer, uncast
from gradguard.core.findings import Finding, Fix, Related, Safety, Severity
from gradguard.core.messages import compose
from gradguard.core.rule import Invalid, Rule, RuleContext
from gradguard.rewrite.statements import insert_before, stands_alone

_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
_ENDS = (ast.Break, ast.Return, ast.Raise)
# Context managers that switch grad mode, as spelt in the file (torch 2.13.0 names).
_GRAD_MODES = frozenset(
    {
        "torch.no_grad",
        "no_grad",
        "torch.inference_mode",
        "inference_mode",
        "torch.set_grad_enabled",
        "set_grad_enabled",
    }
)
# Calls that cannot switch the mode of a module they are given (they only read it, or copy
# it: `torch.save` pickles it, `copy.deepcopy` switches the copy at most).
_INERT_CALLS = frozenset(
    {"print", "len", "str", "repr", "type", "id", "isinstance", "torch.save", "copy.deepcopy"}
)
# Words in a class of the file that may make its forward depend on the mode (`F.dropout`,
# `F.batch_norm`, `self.training`...); the layers it builds are checked one by one.
_MODE_WORDS = (
    "dropout",
    "norm",
    "training",
    "rrelu",
    "train(",
    "eval(",
)


class ModelLeftInEval(Rule):
    """A model switched to eval mode inside its training loop and never switched back."""

    code = "GG607"
    name = "model-left-in-eval"
    severity = Severity.WARNING
    summary = "model.eval() inside the training loop without model.train() before training"

    valid = (
        # Models the analysis sees into, built of layers that compute the same in both
        # modes: a moved nn.Sequential switched in the loop, and a class of the file
        # trained and evaluated by helpers the loop calls.
        """
import torch
from torch import nn
device = "cpu"
X, y = torch.randn(8, 1), torch.randn(8, 1)
model_2 = nn.Sequential(nn.Linear(1, 10), nn.Linear(10, 1)).to(device)
optimizer = torch.optim.SGD(model_2.parameters(), lr=0.1)
for epoch in range(3):
    loss = nn.functional.l1_loss(model_2(X), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    model_2.eval()
    with torch.inference_mode():
        test_loss = nn.functional.l1_loss(model_2(X), y)
""",
        """
import torch
from torch import nn
class Regressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.stack = nn.Sequential(nn.Flatten(), nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
    def forward(self, x):
        return self.stack(x)
def train_step(model, optimizer, x, y):
    loss = nn.functional.mse_loss(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
def test_step(model, x, y):
    model.eval()
    with torch.inference_mode():
        return nn.functional.mse_loss(model(x), y)
model_1 = Regressor().to("cpu")
optimizer = torch.optim.SGD(model_1.parameters(), lr=0.1)
x, y = torch.randn(6, 4), torch.randn(6, 1)
for epoch in range(3):
    train_step(model=model_1, optimizer=optimizer, x=x, y=y)
    test_step(model=model_1, x=x, y=y)
""",
        # pytorch/examples mnist: the training function switches the model back itself.
        """
import torch
from torch import nn
import torch.nn.functional as F

def train(model, optimizer, data):
    model.train()
    for x, y in data:
        optimizer.zero_grad()
        F.mse_loss(model(x), y).backward()
        optimizer.step()

def test(model, data):
    model.eval()
    with torch.no_grad():
        return sum(float(F.mse_loss(model(x), y)) for x, y in data)

model = nn.Sequential(nn.Linear(4, 8), nn.Dropout(0.2), nn.Linear(8, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
data = [(torch.randn(8, 4), torch.randn(8, 1))]
for epoch in range(2):
    train(model, optimizer, data)
    test(model, data)
""",
        # model.train() at the top of every epoch.
        """
import torch
from torch import nn
model = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.Linear(8, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(8, 4), torch.randn(8, 1)
for epoch in range(2):
    model.train()
    optimizer.zero_grad()
    nn.functional.mse_loss(model(x), y).backward()
    optimizer.step()
    model.eval()
    with torch.no_grad():
        model(x)
""",
        # A frozen teacher kept in evaluation mode is not the model that trains.
        """
import torch
from torch import nn
teacher = nn.Sequential(nn.Linear(4, 8), nn.Dropout(0.2), nn.Linear(8, 1))
student = nn.Linear(4, 1)
optimizer = torch.optim.SGD(student.parameters(), lr=0.1)
x = torch.randn(8, 4)
for epoch in range(2):
    teacher.eval()
    with torch.no_grad():
        target = teacher(x)
    optimizer.zero_grad()
    nn.functional.mse_loss(student(x), target).backward()
    optimizer.step()
""",
        # A model without dropout or batch norm computes the same in both modes.
        """
import torch
from torch import nn
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(8, 4), torch.randn(8, 1)
model.train()
for epoch in range(2):
    optimizer.zero_grad()
    nn.functional.mse_loss(model(x), y).backward()
    optimizer.step()
    model.eval()
""",
        # Evaluation ends the loop (early stopping): nothing trains after it.
        """
import torch
from torch import nn
model = nn.Sequential(nn.Linear(4, 8), nn.Dropout(0.2), nn.Linear(8, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(8, 4), torch.randn(8, 1)
model.train()
for epoch in range(5):
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    optimizer.step()
    if loss.item() < 10.0:
        model.eval()
        break
""",
    )

    invalid = (
        Invalid(
            """
import torch
from torch import nn
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.5), nn.Linear(8, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
x, y = torch.randn(32, 8), torch.randn(32, 1)
model.train()
for epoch in range(2):
    for _ in range(3):
        dropped = float((model[1](torch.ones(1000)) == 0).float().mean())
        assert dropped > 0.3, f"dropout zeroes {dropped:.0%} of activations in epoch {epoch}"
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
    model.eval()
    with torch.no_grad():
        validation = nn.functional.mse_loss(model(x), y)
""",
            fixed="""
import torch
from torch import nn
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.5), nn.Linear(8, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
x, y = torch.randn(32, 8), torch.randn(32, 1)
model.train()
for epoch in range(2):
    model.train()
    for _ in range(3):
        dropped = float((model[1](torch.ones(1000)) == 0).float().mean())
        assert dropped > 0.3, f"dropout zeroes {dropped:.0%} of activations in epoch {epoch}"
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
    model.eval()
    with torch.no_grad():
        validation = nn.functional.mse_loss(model(x), y)
""",
            unsafe_fix=True,
            error="dropout zeroes 0% of activations in epoch 1",
        ),
    )

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        """One finding per switch to evaluation mode that later training steps inherit."""
        if not mentions(_SWITCHES_OFF, ctx.source.text):
            return  # no `.eval()` / `.train(False)` anywhere: nothing to follow
        switches = ModeSwitches(ctx.tree, ctx.grad_context.parents)
        functions: list[FunctionNode] = sorted(
            (f for same in ctx.grad_context.functions.values() for f in same),
            key=lambda f: (f.lineno, f.col_offset),
        )
        # A switch matters only inside a loop of its own scope: the others are never walked.
        looping = {
            id(ctx.grad_context.enclosing_function(node) or ctx.tree)
            for node in module_nodes_of(ctx.tree, *_LOOPS)
        }
        scopes = [scope for scope in (ctx.tree, *functions) if id(scope) in looping]
        optimized: dict[str, bool] = {}  # by model key: a walk of the file each
        for scope in scopes:
            for switch in switches.switches(scope):
                found = _left_in_eval(ctx, switches, switch, optimized)
                if found is not None:
                    yield self._finding(ctx, switch, *found)

    def _finding(
        self, ctx: RuleContext, switch: ModeSwitch, loop: LoopNode, first: ast.stmt
    ) -> Finding:
        key = switch.key
        how = (
            f"`{key}.eval()`"
            if switch.via is None
            else f"`{switch.via.name}()` (line {switch.via.lineno})"
        )
        message = compose(
            f"`{key}` trains in eval mode from the second pass: dropout is off",
            f"{how} switches `{key}` to evaluation mode inside the training loop at line "
            f"{loop.lineno}, and nothing switches it back before it trains again (line "
            f"{first.lineno}): dropout is off and batch norm uses its running statistics "
            "while training",
            f"Call `{key}.train()` at the start of the training phase",
        )
        related = [
            Related(ctx.header_range(loop), "the loop that trains again"),
            Related(ctx.node_range(first), f"trains `{key}` in evaluation mode on later passes"),
        ]
        fixes = []
        if stands_alone(ctx.source, first):
            edit = insert_before(ctx.source, first, f"{key}.train()")
            fixes.append(Fix("Switch the model back to training mode", Safety.UNSAFE, (edit,)))
        return self.finding(message, ctx.node_range(switch.call), related, fixes)


# The text every switch to evaluation mode needs somewhere in the file.
_SWITCHES_OFF = re.compile(r"\.\s*eval\s*\(|\.\s*train\s*\(\s*(?:mode\s*=\s*)?False")


def _left_in_eval(
    ctx: RuleContext, switches: ModeSwitches, switch: ModeSwitch, known: dict[str, bool]
) -> tuple[LoopNode, ast.stmt] | None:
    """The innermost loop around the switch that trains the model again without switching
    it back, and its first statement that runs or trains the model."""
    if _ends_after(ctx, switch.call):
        return None
    keys = _spellings(switch)
    for key in keys:
        if key not in known:
            known[key] = optimized_module(ctx.tree, key)
    trained = any(known[key] for key in keys)
    for loop in _loops_around(ctx, switch.call):
        first = _first_training_statement(switches, loop, switch)
        if first is None:
            continue
        if not trained and not any(_runs_with_grad(ctx, loop, key) for key in keys):
            return None
        if switches.may_switch_on(loop) or any(
            _handed_to_unknown(ctx, switches, loop, key) for key in keys
        ):
            return None
        function = ctx.grad_context.enclosing_function(switch.call)
        if any(_mode_free(ctx, key, function, loop) for key in keys):
            return None
        return loop, first
    return None


def _spellings(switch: ModeSwitch) -> tuple[str, ...]:
    """The keys the switched module goes by in the scope of the loop: its own, and what a
    local alias of it names (`model` and `self.model` after `model = self.model`)."""
    return (switch.key,) if switch.aliased is None else (switch.key, switch.aliased)


def _loops_around(ctx: RuleContext, node: ast.AST) -> Iterator[LoopNode]:
    """The loops enclosing `node` inside its function, innermost first."""
    for parent in ctx.grad_context.ancestors(node):
        if isinstance(parent, _SCOPES):
            return
        if isinstance(parent, _LOOPS):
            yield parent


def _first_training_statement(
    switches: ModeSwitches, loop: LoopNode, switch: ModeSwitch
) -> ast.stmt | None:
    """The first statement of the loop body that runs or trains the model (not the one
    holding the switch), when the loop trains it at all."""
    body = [s for s in loop.body if not _contains(s, switch.call)]
    keys = _spellings(switch)
    uses = [s for s in body if any(_uses(switches, s, key) for key in keys)]
    trains = [s for s in body if switches.trains(s)]
    if not uses or not trains:
        return None
    return next(s for s in body if any(s is t for t in (*uses, *trains)))


def _contains(stmt: ast.stmt, node: ast.AST) -> bool:
    return any(n is node for n in ast.walk(stmt))


def _uses(switches: ModeSwitches, node: ast.AST, key: str) -> bool:
    """The model is called or handed over in `node`, or a function of the file called there
    works on it (a parameter bound to it, the same global, or a method of its class)."""
    root = key.split(".", 1)[0]
    for call in calls_in(node):
        if dotted(call.func) in (key, f"{key}.forward") or switches.hands_over(call, key):
            return True
        for arg in [*call.args, *(k.value for k in call.keywords)]:
            name = dotted(arg)
            if name == key or (root == "self" and name == "self"):
                return True
        if root == "self" and _self_method(call):
            return True
    return False


def _self_method(call: ast.Call) -> bool:
    return isinstance(call.func, ast.Attribute) and dotted(call.func.value) == "self"


def _handed_to_unknown(ctx: RuleContext, switches: ModeSwitches, loop: LoopNode, key: str) -> bool:
    """Code the analysis cannot see is given the model `key` (or `self`) in the loop: it may
    switch the model back. Calling the model itself, or a torch.nn module kept on `self`
    (`self.criterion(out, y)`), switches nothing."""
    root = key.split(".", 1)[0]
    torch_modules = {
        id(event.node) for event in ctx.analysis.events.of(ModuleCall) if event.layer_class
    }
    for call in calls_in(loop):
        if switches.resolve(call) is not None or dotted(call.func) in _INERT_CALLS:
            continue
        if dotted(call.func) == key or id(call) in torch_modules:
            continue
        if root == "self" and _self_method(call) and not switches.instance_attribute(call, key):
            return True  # a method the class inherits
        for arg in [*call.args, *(k.value for k in call.keywords)]:
            name = dotted(arg)
            if name is not None and (name == key or name == root == "self"):
                return True
    return False


def _ends_after(ctx: RuleContext, node: ast.AST) -> bool:
    """A `break`, `return` or `raise` follows the switch in its block or an enclosing one
    inside the loop: the loop does not train again after it."""
    child: ast.AST = node
    for parent in ctx.grad_context.ancestors(node):
        if isinstance(parent, _SCOPES):
            return False
        if isinstance(child, ast.stmt):
            for name in ("body", "orelse", "finalbody"):
                block = getattr(parent, name, None)
                if isinstance(block, list) and any(s is child for s in block):
                    index = next(i for i, s in enumerate(block) if s is child)
                    if any(isinstance(s, _ENDS) for s in block[index + 1 :]):
                        return True
        if isinstance(parent, _LOOPS):
            return False
        child = parent
    return False


def _runs_with_grad(ctx: RuleContext, loop: LoopNode, key: str) -> bool:
    """The loop calls the model (`model(x)`, `model.forward(x)`) outside any grad-mode
    block and runs a backward pass: the model is being trained (an optimizer handed in as a
    parameter steps it), not a teacher queried under `torch.no_grad()`."""
    calls = list(calls_in(loop))
    if not any(isinstance(c.func, ast.Attribute) and c.func.attr == "backward" for c in calls):
        return False
    return any(
        dotted(c.func) in (key, f"{key}.forward") and not _under_grad_mode(ctx, c, loop)
        for c in calls
    )


def _under_grad_mode(ctx: RuleContext, node: ast.AST, loop: LoopNode) -> bool:
    """`node` is inside a `with` block of the loop that switches grad mode (no_grad...)."""
    for parent in ctx.grad_context.ancestors(node):
        if parent is loop:
            return False
        if isinstance(parent, ast.With | ast.AsyncWith) and any(
            (dotted(i.context_expr.func) if isinstance(i.context_expr, ast.Call) else None)
            in _GRAD_MODES
            for i in parent.items
        ):
            return True
    return False


def _mode_free(ctx: RuleContext, key: str, function: FunctionNode | None, loop: LoopNode) -> bool:
    """True when the analysis knows the model computes the same in both modes: every call
    and mode switch of it in the loop (what trains in eval mode) sees the same module."""
    context = ctx.grad_context
    uses = [
        u
        for u in ctx.analysis.events.of(ModuleCall, ModuleModeCall)
        if u.function is function
        and dotted(u.target) == key
        and any(a is loop for a in context.ancestors(u.node))
    ]
    if not uses:
        # Called and switched only by the functions the loop calls (`train_step(model=m)`,
        # `test_step(model=m)`): what the name was built as, when it is bound once.
        return _built_once_mode_free(ctx, key, function)
    refs = {id(u.value.module): u.value for u in uses if u.value.module is not None}
    if len(refs) != 1:
        return False
    value = next(iter(refs.values()))
    module = value.module
    assert module is not None
    if module.local is not None:
        return _class_mode_free(ctx, module.local.node)
    # Where a container was built, as any use that knows it says (a call's value may have
    # lost its origin on the way; the module is the same one).
    origins = {id(u.value.origin): u.value.origin for u in uses if u.value.origin}
    origin = next(iter(origins.values())) if len(origins) == 1 else None
    built = uncast(origin.value) if isinstance(origin, ast.Assign) else None
    return _torch_module_mode_free(module.qualified, built)


def _built_once_mode_free(ctx: RuleContext, key: str, function: FunctionNode | None) -> bool:
    """`model = Net(...).to(device)`, the only binding of `key` in its scope, builds a
    class of the file, a container or a layer of torch.nn that computes the same in both
    modes."""
    body = function.body if function is not None else ctx.tree.body
    assignment = sole_assignment(key, body)
    built = uncast(assignment.value) if assignment is not None else None
    if not isinstance(built, ast.Call):
        return False
    local = ctx.grad_context.classes.get(ast.unparse(built.func))
    if local is not None:
        return _class_mode_free(ctx, local)
    qualified = ctx.name_flow.qualified(built.func)
    return _torch_module_mode_free(qualified, None if built.keywords else built)


def _torch_module_mode_free(qualified: str | None, built: ast.expr | None) -> bool:
    """A torch.nn module that computes the same in both modes: a mode-free layer, or a
    container whose construction `built` (`nn.Sequential(...)`, moved or not; None when
    unknown) holds only such layers."""
    if qualified is None or not qualified.startswith("torch.nn."):
        return False
    name = qualified.rsplit(".", 1)[-1]
    if name in MODULE_CONTAINERS:
        return isinstance(built, ast.Call) and _built_mode_free(built.args)
    return mode_free_layer(name)


def _built_mode_free(args: list[ast.expr]) -> bool:
    """Every argument is `nn.X(...)` for a mode-free X (or a container of such)."""
    for arg in args:
        if not isinstance(arg, ast.Call) or not isinstance(arg.func, ast.Attribute):
            return False
        name = arg.func.attr
        if name in MODULE_CONTAINERS:
            if not _built_mode_free(arg.args):
                return False
        elif not mode_free_layer(name):
            return False
    return True


def _class_mode_free(ctx: RuleContext, node: ast.ClassDef) -> bool:
    """A class of the file whose text mentions nothing mode-dependent and whose `__init__`
    builds only mode-free torch.nn layers."""
    text = ctx.source.slice(ctx.node_range(node)).lower()
    if any(word in text for word in _MODE_WORDS):
        return False
    init = next(
        (s for s in node.body if isinstance(s, ast.FunctionDef) and s.name == "__init__"), None
    )
    if init is None:
        return False
    for call in calls_in(init):
        func = call.func
        if isinstance(func, ast.Name) and func.id == "super":
            continue
        if isinstance(func, ast.Attribute) and func.attr == "__init__":
            continue
        if isinstance(func, ast.Attribute) and (
            func.attr in MODULE_CONTAINERS or mode_free_layer(func.attr)
        ):
            continue
        return False
    return True
