"""GG204 `eval-without-no-grad`

## What it does
Finds an evaluation loop that runs with gradient recording on and keeps what it computes:
after `model.eval()` (with no `.train()` in the same function), a loop calls the model and
appends an output that carries autograd history to a list made before the loop
(`preds.append(out)`), or adds it to a running total (`total_loss += criterion(out, y)`,
`total = total + loss`, `totals["loss"] += loss`) or a tensor of outputs (`preds =
torch.cat([preds, out])`), and nothing in the function, in the functions calling it or in
the functions it calls runs a backward pass or an optimizer. The function must be entered
with recording on: called in the file only from such places, or a plain module-level
function that nothing in the file calls (an entry point for other code, which calls it
with recording on unless it wraps the call in `torch.no_grad()` itself; the finding says
so). A model that arrives as a parameter
(or is kept as `self.model`) counts once `model.eval()` shows it is a module. The model may
also be switched and called inside a function of the file that the loop calls (a
`validation_step` method returning the predictions the loop keeps), when that function
switches every model it calls to eval mode before calling it, or, for a method of the same
class running `self.model`, when the loop's own method switched `self.model` before the
loop (`self.model.eval()`, then `out = self._forward(batch)` on every batch). A list kept
on an object (`self.val_outputs.append(out)`) is followed by its attribute name through the
file: a backward pass whose loss may read that attribute anywhere keeps it silent.

## Why is this bad?
`model.eval()` switches dropout and batch norm to inference behaviour; it does not stop
autograd from recording. Every stored output keeps the graph of its batch alive (the
activations saved for a backward pass that never comes): memory grows with every batch
until evaluation dies with `CUDA out of memory`, and every forward pass pays for recording.
Nothing reports it; the stored tensors simply still have `requires_grad=True` and a
`grad_fn`.

## Example
```python
model.eval()
preds = []
for x, _ in loader:
    out = model(x)
    preds.append(out)
```

## Use instead
```python
model.eval()
preds = []
with torch.no_grad():
    for x, _ in loader:
        out = model(x)
        preds.append(out)
```

## Fix safety
"Wrap the loop in torch.no_grad()" nests the loop under `with torch.no_grad():`. The values
computed do not change, and nothing GradGuard can see backpropagates through them. It is safe
when every call in the loop is one GradGuard understands; it is unsafe when the loop calls
code GradGuard cannot see, which might need gradients (an attribution method that calls
`torch.autograd.grad`, for example).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator

from gradguard.analysis.facts import (
    Accumulation,
    Append,
    FunctionNode,
    GradContext,
    LoopNode,
    ModuleCall,
    ModuleModeCall,
    OptimizerCall,
    dotted,
    holds_no_parameters,
    local_binding_counts,
    parameter_names,
)
from gradguard.analysis.torch_api import nn_module_kind
from gradguard.core.findings import (
    Finding,
    Fix,
    Position,
    Range,
    Related,
    Safety,
    Severity,
    TextEdit,
)
from gradguard.core.messages import compose
from gradguard.core.rule import Invalid, Rule, RuleContext
from gradguard.rewrite.expressions import expr_text
from gradguard.rewrite.statements import indentation, indented_block, stands_alone

_LOOPS = (ast.For, ast.AsyncFor, ast.While)
# What keeps an output: `xs.append(v)` or `total += v`.
_Store = Append | Accumulation


class EvalWithoutNoGrad(Rule):
    """An evaluation loop that stores outputs with their autograd graphs."""

    code = "GG204"
    name = "eval-without-no-grad"
    severity = Severity.WARNING
    summary = "evaluation loop keeps every output's graph alive (no torch.no_grad())"

    valid = (
        # Evaluation under no_grad.
        """
import torch
from torch import nn
model = nn.Linear(4, 2)
model.eval()
preds = []
with torch.no_grad():
    for _ in range(3):
        preds.append(model(torch.randn(8, 4)))
assert not preds[0].requires_grad
""",
        # A decorated evaluate function; numbers and detached tensors in the loop.
        """
import torch
from torch import nn
model = nn.Linear(4, 2)
criterion = nn.MSELoss()
@torch.no_grad()
def evaluate():
    model.eval()
    outs = []
    for _ in range(3):
        outs.append(model(torch.randn(8, 4)))
    return outs
def validate():
    model.eval()
    total = 0.0
    kept = []
    for _ in range(3):
        out = model(torch.randn(8, 4))
        total += criterion(out, torch.zeros(8, 2)).item()
        kept.append(out.detach())
        kept.append(out.argmax(dim=1))
    return total, kept
evaluate()
validate()
""",
        # Test-time adaptation: the eval-mode loop backpropagates.
        """
import torch
from torch import nn
model = nn.Linear(4, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
model.eval()
losses = []
for _ in range(3):
    loss = model(torch.randn(8, 4)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    losses.append(loss.item())
""",
        # eval() on another model than the one called in the loop.
        """
import torch
from torch import nn
teacher = nn.Linear(4, 2)
student = nn.Linear(4, 2)
teacher.eval()
outs = []
for _ in range(3):
    outs.append(student(torch.randn(8, 4)))
""",
    )

    invalid = (
        Invalid(
            """
import torch
from torch import nn
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 2))
criterion = nn.CrossEntropyLoss()
model.eval()
preds = []
total_loss = 0.0
for _ in range(3):
    x = torch.randn(4, 8)
    y = torch.randint(0, 2, (4,))
    out = model(x)
    preds.append(out)
    total_loss += criterion(out, y)
assert not preds[0].requires_grad, "the stored outputs still require grad"
""",
            fixed="""
import torch
from torch import nn
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 2))
criterion = nn.CrossEntropyLoss()
model.eval()
preds = []
total_loss = 0.0
with torch.no_grad():
    for _ in range(3):
        x = torch.randn(4, 8)
        y = torch.randint(0, 2, (4,))
        out = model(x)
        preds.append(out)
        total_loss += criterion(out, y)
assert not preds[0].requires_grad, "the stored outputs still require grad"
""",
            error="the stored outputs still require grad",
        ),
    )

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        """One finding per evaluation loop that stores outputs with their graphs."""
        stores = [u for u in ctx.analysis.events.of(Append, Accumulation) if _stores_history(u)]
        if not stores:
            return
        context = ctx.grad_context
        by_loop: dict[int, tuple[LoopNode, list[_Store], ModuleModeCall]] = {}
        for store in stores:
            loop = _outliving_loop(context, store)
            if loop is None or context.in_mode_region(store.stmt):
                continue
            evaluated = _evaluated_model(ctx, context, loop, store.function)
            if evaluated is None:
                continue
            entry = by_loop.setdefault(id(loop), (loop, [], evaluated))
            entry[1].append(store)
        if not by_loop:
            return
        alias = ctx.torch_alias
        for loop, loop_stores, evaluated in by_loop.values():
            function = loop_stores[0].function
            if _runs_backward(ctx, context, function, loop):
                continue
            reached = _backward_may_reach(ctx, loop_stores)
            if reached is None and _runs_backward(ctx, context, function, None):
                continue
            if reached or (reached is None and _caller_may_backpropagate(ctx, context, function)):
                continue
            if not context.entered_with_grad_on(function):
                continue
            yield self._finding(ctx, loop, loop_stores, evaluated, alias)

    def _finding(
        self,
        ctx: RuleContext,
        loop: LoopNode,
        stores: list[_Store],
        evaluated: ModuleModeCall,
        alias: str | None,
    ) -> Finding:
        model = expr_text(ctx.source, evaluated.target)
        first = stores[0]
        target = expr_text(ctx.source, first.target)
        stored = _stored_text(ctx, first, target)
        message = compose(
            f"Evaluation without torch.no_grad(): `{target}` keeps every batch's graph and "
            "memory grows",
            f"`{model}.eval()` does not turn off autograd: this loop records a graph for "
            f"every batch and `{stored}` keeps it alive (the stored outputs still require grad)",
            "Run the loop under torch.no_grad()",
        )
        related = [Related(ctx.node_range(evaluated.node), f"`{model}` put in eval mode here")]
        related.extend(
            Related(ctx.node_range(s.stmt), "keeps an output that still has its graph")
            for s in stores
        )
        function = first.function
        if function is not None and ctx.grad_context.uncalled_entry_point(function):
            related.append(
                Related(
                    ctx.header_range(function),
                    f"nothing in this file calls `{function.name}()`: code elsewhere calls it "
                    "with recording on unless it wraps the call in torch.no_grad()",
                )
            )
        fix = _wrap_fix(ctx, loop, alias)
        return self.finding(message, ctx.header_range(loop), related, [fix] if fix else [])


def _stored_text(ctx: RuleContext, store: _Store, target: str) -> str:
    """How the store reads: `preds.append(...)`, `total += ...`, `total = total + ...`,
    `preds = torch.cat(...)`."""
    node = store.node
    if isinstance(store, Append):
        return f"{target}.append(...)"
    if isinstance(node, ast.Call):
        return f"{target} = {expr_text(ctx.source, node.func)}(...)"
    if isinstance(node, ast.BinOp):
        return f"{target} = {target} + ..."
    return f"{target} += ..."


def _stores_history(use: _Store) -> bool:
    """`xs.append(v)` or `total += v` of a value that certainly has autograd history, or of a
    tuple or list holding such a tensor (`xs.append((f0, f1))`)."""
    stored = use.item if isinstance(use, Append) else use.added
    return (
        use.grad_enabled is True
        and (stored.has_history or stored.holds_history())
        and dotted(_kept_in(use)) is not None
    )


def _kept_in(use: _Store) -> ast.expr:
    """The list or total that keeps what is stored: the container of `totals["loss"] +=
    x` (whose value the accumulation records), the target itself otherwise."""
    target = use.target
    if isinstance(use, Accumulation) and isinstance(target, ast.Subscript):
        return target.value
    return target


def _outliving_loop(context: GradContext, store: _Store) -> LoopNode | None:
    """The innermost loop around the store whose iterations all add to the same list or
    total (a list made before the loop; a total carried from iteration to iteration)."""
    loop = next(
        (
            node
            for node in context.ancestors(store.stmt)
            if isinstance(node, (*_LOOPS, ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
        ),
        None,
    )
    if not isinstance(loop, _LOOPS):
        return None
    if isinstance(store, Accumulation):
        key = dotted(_kept_in(store))
        carried = any(c.key == key and c.loop is loop for c in store.value.carries)
        return loop if carried else None
    origin = store.value.origin
    if origin is None and _given_by_the_caller(store):
        return loop
    if origin is None or origin is loop or any(a is loop for a in context.ancestors(origin)):
        return None
    return loop


def _given_by_the_caller(store: _Store) -> bool:
    """The list appended to is a parameter of the function, never rebound in it
    (`def evaluate(model, loader, predictions)`): the caller made it, before any loop of
    this function ran."""
    target = _kept_in(store)
    function = store.function
    if not isinstance(target, ast.Name) or function is None or isinstance(store, Accumulation):
        return False
    if target.id not in parameter_names(function):
        return False
    return local_binding_counts(function).get(target.id) == 1


def _evaluated_model(
    ctx: RuleContext, context: GradContext, loop: LoopNode, function: FunctionNode | None
) -> ModuleModeCall | None:
    """The `model.eval()` call that covers the loop: a model called in the loop, put in eval
    mode before it, never back in train mode in the function; every other model with
    parameters called in the loop must be covered too. A model called instead inside a
    function of the file that the loop calls (`step = self.validation_step(x, y)`) counts
    when that function itself puts it in eval mode before calling it, and every model with
    parameters it calls is covered so. None when there is no such call."""
    calls = ctx.analysis.events.of(ModuleCall)
    modes = ctx.analysis.events.of(ModuleModeCall)
    inside = [
        u
        for u in calls
        if u.function is function and any(a is loop for a in context.ancestors(u.node))
    ]
    own_modes = [m for m in modes if m.function is function]
    covered, found = _covered(ctx, context, inside, own_modes, loop)
    if not covered:
        return None
    return found if found is not None else _evaluated_in_callee(ctx, context, loop, own_modes)


def _covered(
    ctx: RuleContext,
    context: GradContext,
    inside: list[ModuleCall],
    modes: list[ModuleModeCall],
    region: ast.stmt,
) -> tuple[bool, ModuleModeCall | None]:
    """Whether every model with parameters called `inside` is put in eval mode by one of
    `modes` before `region` and never switched back, and the first such eval() call (None
    when no model is called)."""
    found: ModuleModeCall | None = None
    for call in inside:
        key = dotted(call.target)
        kind = nn_module_kind(call.layer_class) if call.layer_class else None
        module = call.value.module
        has_parameters = (kind is None or kind.has_parameters) and not (
            module is not None and holds_no_parameters(module)
        )
        same = [m for m in modes if key is not None and dotted(m.target) == key]
        covering = next(
            (
                m
                for m in same
                if m.method == "eval"
                and _dominates(ctx, context, m.stmt, region)
                and not any(
                    _may_undo(context, t.stmt, m.stmt, region) for t in same if t.method == "train"
                )
            ),
            None,
        )
        if covering is None:
            if has_parameters:
                return False, None
            continue
        found = found or covering
    return True, found


def _evaluated_in_callee(
    ctx: RuleContext, context: GradContext, loop: LoopNode, own_modes: list[ModuleModeCall]
) -> ModuleModeCall | None:
    """The eval() that covers the models called inside the functions of the file that the
    loop calls directly, each defined once (`step = self.validation_step(x, y)`): every
    model with parameters such a function calls is put in eval mode by that function before
    the statement calling it, and nothing there switches it back. A model the callee reads
    from `self` may also be covered by the loop's own function (`own_modes`), when both are
    methods of one class: `self.model.eval()` in `validate`, then `out =
    self._forward(batch)` in its loop calling `self.model(x)`. None otherwise."""
    found: ModuleModeCall | None = None
    owner = _class_of(context, loop)
    for callee in _called_in(context, loop):
        calls = [u for u in ctx.analysis.events.of(ModuleCall) if u.function is callee]
        modes = [u for u in ctx.analysis.events.of(ModuleModeCall) if u.function is callee]
        if any(m.method == "train" for m in modes):
            return None
        shares_self = owner is not None and _class_of(context, callee) is owner
        for call in calls:
            covered, covering = _covered(ctx, context, [call], modes, call.stmt)
            key = dotted(call.target) or ""
            if not covered and shares_self and key.startswith("self."):
                covered, covering = _covered(ctx, context, [call], own_modes, loop)
            if not covered:
                return None
            found = found or covering
    return found


def _class_of(context: GradContext, node: ast.AST) -> ast.ClassDef | None:
    """The class whose method holds `node` (directly, not in a nested function)."""
    for parent in context.ancestors(node):
        if isinstance(parent, ast.ClassDef):
            return parent
        if isinstance(parent, ast.FunctionDef | ast.AsyncFunctionDef) and parent is not node:
            inner = next(iter(context.ancestors(parent)), None)
            return inner if isinstance(inner, ast.ClassDef) else None
    return None


def _called_in(context: GradContext, loop: LoopNode) -> list[FunctionNode]:
    """Functions of the file called by name in the loop (`f(x)`, `self.step(x)`), when the
    name has one definition."""
    found: list[FunctionNode] = []
    for node in ast.walk(loop):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
        defined = context.functions.get(name or "", [])
        if len(defined) == 1 and defined[0] not in found:
            found.append(defined[0])
    return found


def _may_undo(context: GradContext, switch: ast.stmt, covering: ast.stmt, loop: ast.stmt) -> bool:
    """True when `switch` (a `train()` call) may run after `covering` (the `eval()`) and
    before an iteration of `loop`: between them in the text, or anywhere inside a loop that
    runs both `switch` and `loop` but not `covering` (`model.eval()` once, then
    `for epoch: evaluate...; model.train()`)."""
    if covering.lineno <= switch.lineno <= (loop.end_lineno or loop.lineno):
        return True
    around_switch = {id(a) for a in context.ancestors(switch) if isinstance(a, _LOOPS)}
    around_covering = {id(a) for a in context.ancestors(covering) if isinstance(a, _LOOPS)}
    return any(
        isinstance(a, _LOOPS) and id(a) in around_switch and id(a) not in around_covering
        for a in context.ancestors(loop)
    )


def _dominates(ctx: RuleContext, context: GradContext, stmt: ast.stmt, loop: ast.stmt) -> bool:
    """True when `stmt` runs before `loop` (a loop or a statement) on every path: it
    precedes, in the same block, `loop` itself or a statement enclosing it."""
    _, block = ctx.analysis.block_of(stmt)
    position = next(i for i, s in enumerate(block) if s is stmt)
    for node in (loop, *context.ancestors(loop)):
        if any(s is node for s in block[position + 1 :]):
            return True
    return False


def _runs_backward(
    ctx: RuleContext, context: GradContext, function: FunctionNode | None, loop: LoopNode | None
) -> bool:
    """True when a backward pass or an optimizer runs in anything the function calls, or in
    the function itself: inside `loop` when one is given (the loop may be test-time
    adaptation, not evaluation), anywhere in it otherwise."""
    callees = context.callees(function)

    def runs_here(node: ast.AST, owner: FunctionNode | None) -> bool:
        if owner in callees:
            return True
        if owner is not function:
            return False
        return loop is None or any(a is loop for a in context.ancestors(node))

    return _trains(ctx, runs_here)


def _backward_may_reach(ctx: RuleContext, stores: list[_Store]) -> bool | None:
    """Whether a backward pass of the file may run through what the loop keeps: True when
    one may (by the file's name flow, which follows returns, arguments, stores and
    attributes by name), False when none can, None when the container is neither a name
    nor an attribute the flow follows (`outputs[k]`, or attributes reached by computed
    names)."""
    flow = ctx.name_flow
    kept = set()
    for store in stores:
        kept_in = _kept_in(store)
        if isinstance(kept_in, ast.Name):
            key = flow.key_of(kept_in)
        else:  # `self.val_outputs`
            key = flow.attribute_key(kept_in) if isinstance(kept_in, ast.Attribute) else None
        if key is None:
            return None
        kept.add(key)
    for event in ctx.analysis.backward_calls:
        if kept & flow.reaches(flow.reads(event.target)):
            return True
    return False


def _caller_may_backpropagate(
    ctx: RuleContext, context: GradContext, function: FunctionNode | None
) -> bool:
    """True when a backward pass or an optimizer may use what the function keeps: one runs
    in a function that (indirectly) calls it, or in a function such a caller hands the
    results to."""
    if function is None:
        return False
    reach: set[FunctionNode | None] = set()
    callers = context.callers(function)
    if callers is None:
        return True
    reach.update(callers)
    for caller in callers:
        siblings = context.handed_results(caller, function)
        if siblings is None:
            return True
        for sibling in siblings:
            reach.add(sibling)
            reach.update(context.callees(sibling))
    return _trains(ctx, lambda _node, owner: owner in reach)


def _trains(ctx: RuleContext, where: Callable[[ast.AST, FunctionNode | None], bool]) -> bool:
    """True when a backward call or an optimizer call of the file runs `where` says (given
    its statement and the function holding it)."""
    if any(where(event.stmt, event.function) for event in ctx.analysis.backward_calls):
        return True
    return any(where(u.stmt, u.function) for u in ctx.analysis.events.of(OptimizerCall))


def _wrap_fix(ctx: RuleContext, loop: LoopNode, alias: str | None) -> Fix | None:
    """Nest the loop under `with torch.no_grad():`."""
    if alias is None or not stands_alone(ctx.source, loop):
        return None
    indent = indentation(ctx.source, loop)
    body = indented_block(ctx.source, [loop], indent)
    start_line = loop.lineno - 1
    end_line = (loop.end_lineno or loop.lineno) - 1
    text = f"{indent}with {alias}.no_grad():{ctx.source.newline}{body}"
    region = Range(Position(start_line, 0), Position(end_line, len(ctx.source.line(end_line))))
    opaque = {id(call) for call in ctx.analysis.opaque_calls}
    unseen = any(id(node) in opaque for node in ast.walk(loop))
    safety = Safety.UNSAFE if unseen else Safety.SAFE
    title = f"Wrap the loop in {alias}.no_grad()"
    return Fix(title, safety, (TextEdit(region, text),))
