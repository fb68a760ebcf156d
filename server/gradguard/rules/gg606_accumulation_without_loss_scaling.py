"""GG606 `accumulation-without-loss-scaling`

## What it does
Finds gradient accumulation whose loss is never averaged: a loop backpropagates a loss on
every iteration, but steps the optimizer and clears the gradients only once every k
iterations (`if (i + 1) % k == 0:` around `optimizer.step()` and `zero_grad()`, possibly
or-ed with a last-batch test or computed into a flag first, `is_update_step = ...`; k a name,
a setting read by key such as `cfg["accum_steps"]`, or a literal other than 1), and the loss
reaches `backward()` undivided. The optimizer is
one the file builds, or a receiver named like one (`optimizer`, `opt`) handed in, stepped
directly or through `scaler.step(optimizer)`.

It fires only when the whole path of the loss, from the statements of the loop that compute
it to `backward()`, is visible and neither multiplies nor divides it (nor sums it), and the
file never multiplies or divides anything by k (not the loss, not the learning rate, not the
gradients after the loop: `p.grad /= k`), never rescales a `.grad`, and has no loss with
`reduction="sum"` (accumulating sums is then the convention). A function of the file whose
body only returns an expression (`return self.criterion(self.model(x), y)`) is followed into
that expression. A helper of the file that backpropagates a parameter of its own on every
call, undivided (`def backward(loss, scaler):` running `scaler.scale(loss).backward()` on one
branch, `loss.backward()` on the other), called on every iteration, is a backward of the
loss it is given; the step may sit in further `if`s inside the periodic guard (`if scaler
is not None: scaler.step(optimizer) else: optimizer.step()`). It stays silent when a loss
is computed by any other function of the file (it may divide), when the loop also steps an
optimizer or clears gradients outside the guard (a WGAN critic updated every iteration, a generator
every `n_critic`; gradients cleared every iteration do not accumulate), when the guarded
block runs a backward of its own, for a modulo guard around logging only, for `% 1`, and
for accumulation inside a helper the analysis cannot see (`accelerator.backward(loss)`
included: accelerate divides by itself), or for code it cannot see given the model in the
guarded block (it may rescale); a helper of the file that only reads (`self._grad_norm()`
for a log line: builtins, torch functions and reading methods, nothing stored or changed in
place) is not such code. Mixed precision is followed: `scaler.scale(loss)`
does not average (the factor is divided out before the step) and `scaler.step(optimizer)`
is the step.

It also finds the accumulation of a training step handed a list of micro-batches: a
function that calls `zero_grad()`, then loops over a parameter backpropagating the loss of
each item, then steps once after the loop, when the function's only call in the file passes
a list its caller filled with batches of a loader (`pending.append(batch)` inside `for
batch in dl:`, `dl` a `DataLoader` of the file whatever its name, or a loader handed in whose
batches reach a call through the list; also through `enumerate`, `zip`, `iter`/`next` or
`itertools.islice`). A list of anything else (names, tasks, pairs of a dataset) is no such
list. The same conditions on the loss apply (visible, unscaled, no `reduction="sum"`), no
`.grad` may be rescaled anywhere in the file nor written between the loop and the step,
and the message gives no k (the number of micro-batches is the list's length). Loops over
the tasks, heads or loss terms of one batch (their sum is the objective) and over pieces of
one batch (`x.split(...)` in truncated backpropagation through time) are not such windows.

It also finds micro-steps counted by a loop: `for _ in range(k):` (any `for` loop the
analysis knows runs at least twice each time it is reached, k a literal or a name bound to
one int) whose every iteration backpropagates the loss, followed in the same block by one
step, with a `zero_grad()` before the loop or after the step (clearing for the next
window). The loop's target must be unread in its body: every iteration runs the same
computation on what it draws anew, not on a head, task or time step the target picks (the
sum over those is the objective). Picking an item of a list of draws alike is drawing anew:
`micro = [get_batch() for _ in range(k)]` (a comprehension whose element never reads its
target, with at least two items, each data: tensors without certain history, not modules)
then `x, y = micro[j]`. The same conditions on the loss apply, the file must
never multiply or divide by k nor rescale a `.grad`, and a backward with arguments
(`retain_graph=True`: a chain of graphs) is not followed.

Wherever the file must never multiply or divide by k, arithmetic that is only compared
(`torch.allclose(acc, k * ref)`, `if loss / k > 3:`) does not count, nor does a count of
samples: a product used only as a slice bound, a size (`torch.randn(n, 3)`, `range(n)`) or
in an f-string, directly or through a name bound once and read nowhere else (`big = micro
* k` then `x[:big]`).

It also finds a helper handed such a list: `accumulate(model, micro)` (a function of the
file, its loop over the parameter backpropagating on every iteration, the index of
`enumerate` unread), then one step after the call in the same block, with a `zero_grad()`
before the call or after the step; the helper must neither step, clear nor write a
`.grad`, nor call code it cannot see given the model, and neither may the statements
between the call and the step.

## Why is this bad?
`backward()` adds into `.grad`, so after k micro-batches the gradient is the *sum* of k
mean-reduced micro-batch gradients: k times the gradient of the large batch the accumulation
stands for. Every step is k times too large, as if the learning rate were multiplied by k
(SGD diverges or needs a different learning rate than the one tuned; with Adam the
gradient-clipping threshold, weight decay and `eps` act k times weaker). Nothing raises.

## Example
```python
for i, (x, y) in enumerate(loader):
    loss = criterion(model(x), y)
    loss.backward()
    if (i + 1) % accumulation_steps == 0:
        optimizer.step()
        optimizer.zero_grad()
```

## Use instead
```python
for i, (x, y) in enumerate(loader):
    loss = criterion(model(x), y)
    loss = loss / accumulation_steps
    loss.backward()
    if (i + 1) % accumulation_steps == 0:
        optimizer.step()
        optimizer.zero_grad()
```

## Fix safety
"Divide the loss by k before backward()" inserts `loss = loss / k` before the statement that
calls `backward()`. The gradients become the mean over the accumulated micro-batches, which is
what accumulation stands for; but any later use of `loss` in the iteration (a running total
for logging, an early-stopping test) now sees the divided value, and a learning rate tuned
for the summed gradients would have to change. The fix is unsafe.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, replace

from gradguard.analysis.facts import (
    Append,
    BackwardCall,
    CountedWindow,
    HandedWindow,
    LoopTrips,
    LoopWindow,
    LossPath,
    ModuleCall,
    OptimizerCall,
    RepeatedDraw,
    arguments_by_parameter,
    batch_appends,
    callee_name,
    counted_window,
    dotted,
    drawn_list,
    drawn_lists,
    fewest_trips,
    handed_window,
    kept_parameters,
    local_callables,
    loop_window,
    may_name_an_optimizer,
    module_nodes_of,
    periodic_divisor,
    rescales_grad,
    returning_helpers,
    scales_by,
    sums_by_reduction,
)
from gradguard.core.findings import Finding, Fix, Related, Safety, Severity
from gradguard.core.messages import compose
from gradguard.core.rule import Invalid, Rule, RuleContext
from gradguard.rewrite.expressions import expr_text, needs_parentheses
from gradguard.rewrite.statements import insert_before, stands_alone

_LOOPS = (ast.For, ast.AsyncFor, ast.While)


class AccumulationWithoutLossScaling(Rule):
    """Gradient accumulation that sums k full-size gradients."""

    code = "GG606"
    name = "accumulation-without-loss-scaling"
    severity = Severity.WARNING
    summary = "gradient accumulation without dividing the loss by the number of steps"

    valid = (
        # The loss is divided by the number of accumulation steps.
        """
import torch
from torch import nn
model = nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
criterion = nn.MSELoss()
accumulation_steps = 2
for i in range(4):
    loss = criterion(model(torch.randn(8, 4)), torch.randn(8, 1))
    loss = loss / accumulation_steps
    loss.backward()
    if (i + 1) % accumulation_steps == 0:
        optimizer.step()
        optimizer.zero_grad()
""",
        # Divided on the way, in place or inside the backward call.
        """
import torch
from torch import nn
model = nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
accum = 4
for step in range(8):
    loss = nn.functional.mse_loss(model(torch.randn(8, 4)), torch.randn(8, 1))
    (loss / accum).backward()
    if (step + 1) % accum == 0:
        optimizer.step()
        optimizer.zero_grad()
""",
        # The mean taken by multiplying with 1/k.
        """
import torch
from torch import nn
model = nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
k = 2
for i in range(4):
    loss = model(torch.randn(8, 4)).pow(2).mean() * (1.0 / k)
    loss.backward()
    if (i + 1) % k == 0:
        optimizer.step()
        optimizer.zero_grad()
""",
        # The gradients are averaged before the step instead.
        """
import torch
from torch import nn
model = nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
k = 2
for i in range(4):
    loss = model(torch.randn(8, 4)).pow(2).mean()
    loss.backward()
    if (i + 1) % k == 0:
        for p in model.parameters():
            p.grad /= k
        optimizer.step()
        optimizer.zero_grad()
""",
        # eriklindernoren/PyTorch-GAN wgan.py: the critic steps every iteration, the
        # generator (with its own backward) every n_critic iterations.
        """
import torch
from torch import nn
generator, critic = nn.Linear(2, 2), nn.Linear(2, 1)
optimizer_G = torch.optim.RMSprop(generator.parameters(), lr=5e-5)
optimizer_D = torch.optim.RMSprop(critic.parameters(), lr=5e-5)
n_critic = 5
for i in range(10):
    z = torch.randn(8, 2)
    optimizer_D.zero_grad()
    loss_D = -critic(torch.randn(8, 2)).mean() + critic(generator(z).detach()).mean()
    loss_D.backward()
    optimizer_D.step()
    if i % n_critic == 0:
        optimizer_G.zero_grad()
        loss_G = -critic(generator(z)).mean()
        loss_G.backward()
        optimizer_G.step()
""",
        # A modulo that guards logging, not the step; and `% 1`.
        """
import torch
from torch import nn
model = nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for i in range(4):
    optimizer.zero_grad()
    loss = model(torch.randn(8, 4)).pow(2).mean()
    loss.backward()
    optimizer.step()
    if i % 2 == 0:
        print(i, loss.item())
    if i % 1 == 0:
        optimizer.zero_grad()
""",
    )

    invalid = (
        Invalid(
            """
import torch
from torch import nn
torch.manual_seed(0)
model = nn.Linear(4, 1)
criterion = nn.MSELoss()
x, y = torch.randn(16, 4), torch.randn(16, 1)
full = criterion(model(x), y)
reference = torch.autograd.grad(full, model.weight)[0]
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
accumulation_steps = 4
for i, (xb, yb) in enumerate(zip(x.chunk(4), y.chunk(4))):
    loss = criterion(model(xb), yb)
    loss.backward()
    if (i + 1) % accumulation_steps == 0:
        ratio = float(model.weight.grad.norm() / reference.norm())
        assert abs(ratio - 1.0) < 1e-4, f"accumulated gradient is {ratio:.1f}x the batch gradient"
        optimizer.step()
        optimizer.zero_grad()
""",
            fixed="""
import torch
from torch import nn
torch.manual_seed(0)
model = nn.Linear(4, 1)
criterion = nn.MSELoss()
x, y = torch.randn(16, 4), torch.randn(16, 1)
full = criterion(model(x), y)
reference = torch.autograd.grad(full, model.weight)[0]
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
accumulation_steps = 4
for i, (xb, yb) in enumerate(zip(x.chunk(4), y.chunk(4))):
    loss = criterion(model(xb), yb)
    loss = loss / accumulation_steps
    loss.backward()
    if (i + 1) % accumulation_steps == 0:
        ratio = float(model.weight.grad.norm() / reference.norm())
        assert abs(ratio - 1.0) < 1e-4, f"accumulated gradient is {ratio:.1f}x the batch gradient"
        optimizer.step()
        optimizer.zero_grad()
""",
            unsafe_fix=True,
            error="accumulated gradient is 4.0x the batch gradient",
        ),
    )

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        """One finding per backward whose loss an accumulation step sums k times."""
        steps = _steps(ctx)
        if not steps or sums_by_reduction(ctx.tree):
            return
        reported: set[int] = set()
        if "%" in ctx.source.text:  # every periodic guard this rule knows is a modulo test
            yield from self._periodic(ctx, steps, reported)
        for step in steps.values():
            window = _window_accumulation(ctx, step)
            if window is not None and id(window[1].call) not in reported:
                reported.add(id(window[1].call))
                yield self._window_finding(ctx, step, *window)
        for step in steps.values():
            counted = _counted_accumulation(ctx, step)
            if counted is not None and id(counted[1].call) not in reported:
                reported.add(id(counted[1].call))
                yield self._counted_finding(ctx, step, *counted)
        for step in steps.values():
            handed = _handed_accumulation(ctx, step)
            if handed is not None and id(handed[1].call) not in reported:
                reported.add(id(handed[1].call))
                yield self._handed_finding(ctx, step, *handed)

    def _periodic(
        self, ctx: RuleContext, steps: dict[int, _Step], reported: set[int]
    ) -> Iterator[Finding]:
        """Accumulation under a periodic guard (`if (i + 1) % k == 0:`)."""
        for step in steps.values():
            found = _accumulation(ctx, step, steps)
            if found is None:
                continue
            guard, divisor, backward = found
            if id(backward.call) in reported or scales_by(ctx.tree, divisor):
                continue
            if not _unscaled(ctx, backward, _loop_of(ctx, guard)):
                continue
            reported.add(id(backward.call))
            yield self._finding(ctx, step, guard, divisor, backward)

    def _window_finding(
        self, ctx: RuleContext, step: _Step, window: LoopWindow, backward: BackwardCall
    ) -> Finding:
        """A loop over gathered micro-batches between a `zero_grad()` and one step."""
        loss = expr_text(ctx.source, _loss_of(backward.target))
        stepping = expr_text(ctx.source, step.call)
        message = compose(
            f"Undivided `{loss}` sums the gradients of every micro-batch",
            f"`{stepping}` runs once after the loop over micro-batches (line "
            f"{window.loop.lineno}) that backpropagates `{loss}` undivided on each of them: "
            "the step applies the sum of their mean gradients, as many times the averaged "
            "gradient as there are micro-batches, as if the learning rate were multiplied "
            "by their number",
            "Divide the loss by the number of micro-batches before backward()",
        )
        related = [
            Related(ctx.header_range(window.loop), "backpropagates every micro-batch"),
            Related(ctx.node_range(window.cleared), "the accumulation starts here"),
            Related(ctx.node_range(step.stmt), "applies the summed gradients"),
        ]
        return self.finding(message, ctx.node_range(backward.call), related, [])

    def _counted_finding(
        self, ctx: RuleContext, step: _Step, window: CountedWindow, backward: BackwardCall
    ) -> Finding:
        """A loop run k times (k >= 2) between a clear and one step, each run backpropagating."""
        count = window.count
        k = expr_text(ctx.source, count) if count is not None else str(window.trips)
        target = _loss_of(backward.target)
        loss = expr_text(ctx.source, target)
        stepping = expr_text(ctx.source, step.call)
        message = compose(
            f"Undivided `{loss}` makes each step `{k}` times too large",
            f"`{stepping}` runs once after the loop at line {window.loop.lineno}, which runs "
            f"`{k}` times and backpropagates `{loss}` undivided each time: the step applies "
            f"the sum of `{k}` micro-batch gradients, `{k}` times the averaged gradient, as "
            f"if the learning rate were `{k}` times larger",
            f"Divide the loss by `{k}` before backward()",
        )
        related = [
            Related(ctx.header_range(window.loop), f"backpropagates `{k}` times"),
            Related(ctx.node_range(window.cleared), "clears the accumulated gradients"),
            Related(ctx.node_range(step.stmt), "applies the summed gradients"),
        ]
        fixes = []
        if isinstance(target, ast.Name) and stands_alone(ctx.source, backward.stmt):
            operand = f"({k})" if count is not None and needs_parentheses(count) else k
            edit = insert_before(
                ctx.source, backward.stmt, f"{target.id} = {target.id} / {operand}"
            )
            fixes.append(Fix("Divide the loss by k before backward()", Safety.UNSAFE, (edit,)))
        return self.finding(message, ctx.node_range(backward.call), related, fixes)

    def _handed_finding(
        self, ctx: RuleContext, step: _Step, window: HandedWindow, backward: BackwardCall
    ) -> Finding:
        """A helper handed `[get_batch() for _ in range(k)]` backpropagating each, then a
        step."""
        count = _draw_count(window)
        k = expr_text(ctx.source, count) if count is not None else str(window.draw.trips)
        target = _loss_of(backward.target)
        loss = expr_text(ctx.source, target)
        stepping = expr_text(ctx.source, step.call)
        message = compose(
            f"Undivided `{loss}` makes each step `{k}` times too large",
            f"`{stepping}` runs once after `{window.helper.name}` (line {window.stmt.lineno}) "
            f"backpropagates `{loss}` undivided for each of the `{k}` micro-batches it is "
            f"handed: the step applies the sum of `{k}` micro-batch gradients, `{k}` times "
            f"the averaged gradient, as if the learning rate were `{k}` times larger",
            f"Divide the loss by `{k}` before backward()",
        )
        related = [
            Related(ctx.header_range(window.loop), f"backpropagates `{k}` times"),
            Related(ctx.node_range(window.stmt), "hands over the micro-batches"),
            Related(ctx.node_range(window.cleared), "clears the accumulated gradients"),
            Related(ctx.node_range(step.stmt), "applies the summed gradients"),
        ]
        return self.finding(message, ctx.node_range(backward.call), related, [])

    def _finding(
        self,
        ctx: RuleContext,
        step: _Step,
        guard: ast.If,
        divisor: ast.expr,
        backward: BackwardCall,
    ) -> Finding:
        k = expr_text(ctx.source, divisor)
        target = _loss_of(backward.target)
        loss = expr_text(ctx.source, target)
        stepping = expr_text(ctx.source, step.call)
        message = compose(
            f"Undivided `{loss}` makes each step `{k}` times too large",
            f"`{stepping}` runs once every `{k}` iterations (line {guard.lineno}) but "
            f"`{loss}` is backpropagated undivided on each of them: the step applies the sum "
            f"of `{k}` micro-batch gradients, `{k}` times the averaged gradient, as if the "
            f"learning rate were `{k}` times larger",
            f"Divide the loss by `{k}` before backward()",
        )
        related = [
            Related(ctx.header_range(guard), f"the step runs every `{k}` iterations"),
            Related(ctx.node_range(step.stmt), "applies the summed gradients"),
        ]
        fixes = []
        if isinstance(target, ast.Name) and stands_alone(ctx.source, backward.stmt):
            operand = f"({k})" if needs_parentheses(divisor) else k
            edit = insert_before(
                ctx.source, backward.stmt, f"{target.id} = {target.id} / {operand}"
            )
            fixes.append(Fix("Divide the loss by k before backward()", Safety.UNSAFE, (edit,)))
        return self.finding(message, ctx.node_range(backward.call), related, fixes)


@dataclass(frozen=True)
class _Step:
    """`optimizer.step()` as a statement of its own."""

    stmt: ast.stmt
    call: ast.Call
    receiver: ast.expr


def _steps(ctx: RuleContext) -> dict[int, _Step]:
    """Every `opt.step()` statement, by id() of its call: on an optimizer the analysis knows,
    or on a receiver named like one (`optimizer`, `self.opt`: an optimizer handed in)."""
    found: dict[int, _Step] = {}
    for use in ctx.analysis.events.of(OptimizerCall):
        if (
            use.method == "step"
            and isinstance(use.node, ast.Call)
            and isinstance(use.stmt, ast.Expr)
            and use.stmt.value is use.node
        ):
            found[id(use.node)] = _Step(use.stmt, use.node, use.target)
    for node in module_nodes_of(ctx.tree, ast.Expr):
        if not isinstance(node.value, ast.Call):
            continue
        call = node.value
        func = call.func
        if not (isinstance(func, ast.Attribute) and func.attr == "step"):
            continue
        if not call.args and _named_like_optimizer(func.value):
            found.setdefault(id(call), _Step(node, call, func.value))
        elif _scaler_step(call):
            found.setdefault(id(call), _Step(node, call, call.args[0]))
    return found


def _loss_of(target: ast.expr) -> ast.expr:
    """The loss in `scaler.scale(loss)`, else the backpropagated expression itself."""
    if (
        isinstance(target, ast.Call)
        and isinstance(target.func, ast.Attribute)
        and target.func.attr == "scale"
        and len(target.args) == 1
    ):
        return target.args[0]
    return target


def _named_like_optimizer(expr: ast.expr) -> bool:
    return may_name_an_optimizer((dotted(expr) or "").rsplit(".", 1)[-1])


def _scaler_step(call: ast.Call) -> bool:
    """`scaler.step(optimizer)`: a `torch.amp.GradScaler` stepping the optimizer."""
    func = call.func
    return (
        isinstance(func, ast.Attribute)
        and "scaler" in (dotted(func.value) or "").lower()
        and len(call.args) == 1
        and _named_like_optimizer(call.args[0])
    )


def _accumulation(
    ctx: RuleContext, step: _Step, steps: dict[int, _Step]
) -> tuple[ast.If, ast.expr, BackwardCall] | None:
    """The periodic `if` the step runs in (with a zero_grad() beside it), its k, and a
    backward call of the same function run on every iteration of the loop around the `if`,
    before it."""
    context = ctx.grad_context
    parent = _periodic_guard(ctx, step.stmt)
    if parent is None:
        return None
    loop = next((a for a in context.ancestors(parent) if isinstance(a, _LOOPS)), None)
    function = context.enclosing_function(step.stmt)
    if loop is None or context.enclosing_function(loop) is not function:
        return None
    divisor = periodic_divisor(_guard_condition(loop, parent))
    if divisor is None or not _clears_gradients(parent.body):
        return None
    if _updates_outside(loop, parent, steps) or any(
        any(a is parent for a in context.ancestors(event.call))
        for event in ctx.analysis.backward_calls
    ):
        return None  # another update every iteration (a GAN's critic), or a guarded backward
    if _may_rescale(ctx, parent):
        return None
    for event in ctx.analysis.backward_calls:
        if (
            event.via == "backward"
            and not event.call.args  # not `accelerator.backward(loss)`, which may scale
            and event.function is function
            and loop in event.every_iteration
            and event.call.lineno < parent.lineno
            and not any(a is parent for a in context.ancestors(event.call))
        ):
            return parent, divisor, event
    helped = _backward_through_helper(ctx, loop, parent)
    return (parent, divisor, helped) if helped is not None else None


def _window_accumulation(ctx: RuleContext, step: _Step) -> tuple[LoopWindow, BackwardCall] | None:
    """The loop window the step closes (`loop_window`) and the one backward of the same
    function run on every iteration of its loop, on a loss that reaches it unscaled; None
    when the file rescales a `.grad` anywhere or code it cannot see, given the model, runs
    between the loop and the step (it may rescale)."""
    function = ctx.grad_context.enclosing_function(step.stmt)
    if function is None:
        return None
    appended = batch_appends(ctx.analysis.events.of(Append))
    window = loop_window(function, step.stmt, ctx.tree, appended)
    if window is None or rescales_grad(ctx.tree):
        return None
    found = [
        event
        for event in ctx.analysis.backward_calls
        if event.function is function and window.loop in event.every_iteration
    ]
    if len(found) != 1 or found[0].via != "backward" or found[0].call.args:
        return None
    if _may_rescale(ctx, window.loop, step.stmt.lineno):
        return None
    return (window, found[0]) if _unscaled(ctx, found[0], window.loop) else None


def _counted_accumulation(
    ctx: RuleContext, step: _Step
) -> tuple[CountedWindow, BackwardCall] | None:
    """The counted window the step closes (`counted_window`: a loop certainly run at least
    twice, its target unread) and the one backward of the same function run on every
    iteration of it, without arguments, on a loss that reaches it unscaled; None when the
    file divides by the loop's count or rescales a `.grad` anywhere, or code it cannot see,
    given the model, runs between the loop and the step."""
    events = ctx.analysis.events.of(LoopTrips)
    _, block = ctx.analysis.block_of(step.stmt)
    draws = drawn_lists(ctx.analysis.events.of(RepeatedDraw))
    scope = ctx.grad_context.enclosing_function(step.stmt) or ctx.tree
    window = counted_window(
        block,
        step.stmt,
        lambda loop: fewest_trips(events, loop),
        lambda listed: drawn_list(scope, listed, draws) is not None,
    )
    if window is None or rescales_grad(ctx.tree):
        return None
    if window.count is not None and scales_by(ctx.tree, window.count):
        return None
    function = ctx.grad_context.enclosing_function(step.stmt)
    found = [
        event
        for event in ctx.analysis.backward_calls
        if event.function is function and window.loop in event.every_iteration
    ]
    if len(found) != 1 or found[0].via != "backward":
        return None
    if found[0].call.args or found[0].call.keywords:
        return None  # `retain_graph=True`: a chain of graphs, not repeated micro-batches
    if _may_rescale(ctx, window.loop, step.stmt.lineno):
        return None
    return (window, found[0]) if _unscaled(ctx, found[0], window.loop) else None


def _handed_accumulation(ctx: RuleContext, step: _Step) -> tuple[HandedWindow, BackwardCall] | None:
    """The window of a helper handed a list of draws alike (`handed_window`: `accumulate(
    model, [get_batch() for _ in range(k)])` before the step) and the one backward of that
    helper run on every iteration of its loop over the list, without arguments, on a loss
    that reaches it unscaled; None when the file divides by the list's count or rescales a
    `.grad` anywhere, or code it cannot see, given the model, runs between the call and the
    step."""
    draws = drawn_lists(ctx.analysis.events.of(RepeatedDraw))
    if not draws or rescales_grad(ctx.tree):
        return None
    _, block = ctx.analysis.block_of(step.stmt)
    scope = ctx.grad_context.enclosing_function(step.stmt) or ctx.tree
    window = handed_window(block, step.stmt, scope, ctx.grad_context.defined_once, draws)
    if window is None:
        return None
    count = _draw_count(window)
    if count is not None and scales_by(ctx.tree, count):
        return None
    found = [
        event
        for event in ctx.analysis.backward_calls
        if event.function is window.helper and window.loop in event.every_iteration
    ]
    if len(found) != 1 or found[0].via != "backward":
        return None
    if found[0].call.args or found[0].call.keywords:
        return None
    after = (window.stmt.end_lineno or window.stmt.lineno) + 1
    if _may_rescale(ctx, window.helper) or _rescaling_between(ctx, after, step.stmt.lineno):
        return None  # the call itself is looked into: the helper's own code is checked
    return (window, found[0]) if _unscaled(ctx, found[0], window.loop) else None


def _draw_count(window: HandedWindow) -> ast.expr | None:
    """`k` of the `[... for _ in range(k)]` the helper was handed."""
    comprehension = window.draw.node
    if not isinstance(comprehension, ast.ListComp):
        return None
    iterated = comprehension.generators[0].iter
    if isinstance(iterated, ast.Call) and len(iterated.args) == 1:
        return iterated.args[0]
    return None


def _periodic_guard(ctx: RuleContext, stmt: ast.stmt) -> ast.If | None:
    """The `if` around the step, in whose body it runs: the innermost one, or through
    further non-loop `if`s (`if scaler is not None: scaler.step(opt) else: opt.step()`) the
    nearest one that tests a period (`% k == 0`)."""
    context = ctx.grad_context
    child: ast.AST = stmt
    parent = context.parents.get(id(stmt))
    innermost: ast.If | None = None
    while isinstance(parent, ast.If):
        if any(s is child for s in parent.body):
            innermost = innermost or parent
            loop = next((a for a in context.ancestors(parent) if isinstance(a, _LOOPS)), None)
            if loop is not None and periodic_divisor(_guard_condition(loop, parent)) is not None:
                return parent
        child, parent = parent, context.parents.get(id(parent))
    return innermost


def _backward_through_helper(ctx: RuleContext, loop: ast.AST, guard: ast.If) -> BackwardCall | None:
    """A call of a function of the file, on every iteration of `loop` before the guard,
    that backpropagates on every call (`backward(loss, scaler)` running
    `scaler.scale(loss).backward()` or `loss.backward()`), each of its backward calls on
    one parameter it never rebinds: the call as a backward of the argument it passes."""
    context = ctx.grad_context
    for seen in ctx.analysis.backward_in_calls:
        helper = seen.function
        if helper is None or loop not in seen.every_iteration or seen.value.carries:
            continue
        loss = _backpropagated_parameter(ctx, helper)
        if loss is None:
            continue
        for stmt in getattr(loop, "body", []):
            call = stmt.value if isinstance(stmt, ast.Expr) else None
            if (
                not isinstance(call, ast.Call)
                or not isinstance(call.func, ast.Name)
                or call.lineno >= guard.lineno
                or context.defined_once(call.func.id) is not helper
            ):
                continue
            passed = arguments_by_parameter(helper, call)
            argument = passed.get(loss) if passed is not None else None
            if argument is not None:
                return replace(seen, call=call, stmt=stmt, target=argument)
    return None


def _backpropagated_parameter(ctx: RuleContext, helper: ast.AST) -> str | None:
    """The one parameter of `helper` every backward call of it runs on, undivided
    (`loss.backward()`, `scaler.scale(loss).backward()`), never rebound; None otherwise."""
    if not isinstance(helper, ast.FunctionDef | ast.AsyncFunctionDef):
        return None
    names: set[str] = set()
    for event in ctx.analysis.backward_calls:
        if event.function is helper and event.via != "backward":
            return None  # `torch.autograd.grad`, `accelerator.backward(loss)`
    for node in ast.walk(helper):
        if not (isinstance(node, ast.Attribute) and node.attr == "backward"):
            continue
        loss = _loss_of(node.value)
        if not isinstance(loss, ast.Name):
            return None  # `(loss / k).backward()`, or a backward not called here
        names.add(loss.id)
        if not isinstance(node.ctx, ast.Load) or _called_with_arguments(helper, node):
            return None  # `backward(gradient)`, `retain_graph=True`: not followed
    if len(names) != 1:
        return None
    (name,) = names
    return name if name in kept_parameters(helper) else None


def _called_with_arguments(helper: ast.AST, func: ast.Attribute) -> bool:
    """True when `func` (a `.backward` of `helper`) is called with any argument."""
    return any(
        isinstance(node, ast.Call) and node.func is func and bool(node.args or node.keywords)
        for node in ast.walk(helper)
    )


def _may_rescale(ctx: RuleContext, guard: ast.stmt, last: int | None = None) -> bool:
    """Code the analysis cannot see, given the model, its parameters or the optimizer in the
    guarded block (`self._grad_scaler(list(model.parameters()), 1 / n)`, torchtune's alias
    of `scale_grads_`), may rescale the gradients before the step. A GradScaler's own
    `step`/`update`/`unscale_` do not divide by k."""
    return _rescaling_between(ctx, guard.lineno, last or guard.end_lineno or guard.lineno)


def _rescaling_between(ctx: RuleContext, first: int, last: int) -> bool:
    """`_may_rescale` for the lines `first` to `last`."""
    return any(
        first <= call.lineno <= last
        and id(call) in ctx.analysis.opaque_with_training_state
        and callee_name(call.func) not in _STEP_CALLS
        and not _reads_only(ctx, call)
        for call in ctx.analysis.opaque_calls
    )


_STEP_CALLS = frozenset({"step", "update", "unscale_", "zero_grad"})


def _reads_only(ctx: RuleContext, call: ast.Call) -> bool:
    """A call of a helper of the file (defined once) that certainly changes no gradient:
    it stores nothing into an attribute or an item, changes nothing in place (no method or
    torch function ending in `_`) and calls only builtins, torch functions and methods
    (`self._grad_norm()` measuring the norm for a log line)."""
    defined = ctx.grad_context.defined_once(callee_name(call.func))
    if defined is None:
        return False
    for node in ast.walk(defined):
        if isinstance(node, ast.Attribute | ast.Subscript) and not isinstance(node.ctx, ast.Load):
            return False
        if isinstance(node, ast.Call) and not _reading_call(ctx, node.func):
            return False
    return True


def _reading_call(ctx: RuleContext, func: ast.expr) -> bool:
    """A builtin, torch function or tensor/container method that only reads."""
    called = callee_name(func)
    if called is None or called.endswith("_") or called in ctx.grad_context.functions:
        return False  # in place, or more code of the file
    if isinstance(func, ast.Name):
        return func.id in _READING_BUILTINS
    spelled = dotted(func)
    return (spelled is not None and spelled.startswith("torch.")) or called in _READING_METHODS


# Methods that read a tensor, a module's parameters or a container without changing them.
_READING_METHODS = frozenset(
    "norm item abs sum mean max min detach clone cpu numel tolist float pow sqrt parameters "
    "named_parameters items values keys get append size dim".split()
)
# Builtins that compute from what they are given without changing it.
_READING_BUILTINS = frozenset(
    "sum max min len list tuple float int abs round sorted print str repr zip enumerate any "
    "all".split()
)


def _guard_condition(loop: ast.AST, guard: ast.If) -> ast.expr:
    """The guard's test, or what the flag it tests was set to: `is_update_step = (i + 1) %
    k == 0` bound once in the loop before `if is_update_step:` (LLMs-from-scratch, timm)."""
    test = guard.test
    if not isinstance(test, ast.Name):
        return test
    bindings = [
        node
        for node in ast.walk(loop)
        if isinstance(node, ast.Name) and node.id == test.id and not isinstance(node.ctx, ast.Load)
    ]
    if len(bindings) != 1:
        return test
    for node in ast.walk(loop):
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and node.targets[0] is bindings[0]
            and node.lineno < guard.lineno
        ):
            return node.value
    return test


def _updates_outside(loop: ast.AST, guard: ast.If, steps: dict[int, _Step]) -> bool:
    """True when the loop steps an optimizer or clears gradients outside the guard: the
    backward on every iteration may feed that update (a WGAN's critic is updated every
    iteration, its generator every n_critic), and cleared gradients do not accumulate."""
    inside = {id(n) for n in ast.walk(guard)}
    for node in ast.walk(loop):
        if id(node) in inside or not isinstance(node, ast.Call):
            continue
        if id(node) in steps:
            return True
        if isinstance(node.func, ast.Attribute) and node.func.attr == "zero_grad":
            return True
    return False


def _clears_gradients(body: list[ast.stmt]) -> bool:
    """A `zero_grad()` (or `p.grad = None`) among the statements: the accumulation restarts."""
    for stmt in body:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Attribute) and node.attr == "zero_grad":
                return True
            if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Attribute) and t.attr == "grad" for t in node.targets
            ):
                return True
    return False


def _loop_of(ctx: RuleContext, guard: ast.If) -> ast.For | ast.AsyncFor | ast.While:
    """The innermost loop around a periodic guard."""
    return next(a for a in ctx.grad_context.ancestors(guard) if isinstance(a, _LOOPS))


def _unscaled(
    ctx: RuleContext, backward: BackwardCall, loop: ast.For | ast.AsyncFor | ast.While
) -> bool:
    """True when the loss reaches backward() with every step visible and none scaling it."""
    torch_calls = {id(call.call) for call in ctx.analysis.torch_calls}
    module_calls = {id(u.node) for u in ctx.analysis.events.of(ModuleCall)}
    path = LossPath(
        loop,
        backward.call.lineno,
        torch_calls,
        module_calls,
        local_callables(ctx.tree),
        returning_helpers(ctx.tree),
    )
    return path.unscaled(backward.target)
