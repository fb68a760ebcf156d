"""GG203 `loss-accumulated-with-graph`

## What it does
Finds a running total that adds the loss tensor itself (`total_loss += loss`, or
`total_loss = total_loss + loss`) in a training loop that calls `backward()` every
iteration, when the total is never backpropagated. A loss history that stores the loss
tensor itself (`losses.append(loss)`, the list bound before the loop) keeps the graphs the
same way, when the appended name is what `backward()` runs on every iteration and no other
`backward()` of the function may run through the list; so does appending the dict or tuple
the loss is read from (`output["loss"].backward()`, then `outputs.append(output)`; no fix is
offered then: what to keep of it is the author's call). A list the instance keeps for life
does too (`self.history = []` in `__init__`, never emptied or handed on), when a method
appends a tensor with history to it on every call (`self.history.append(losses["loss"])`)
and a training loop of the class calls that method on every iteration, and no code reading
the list runs a backward or returns a value.

A total the function returns is the caller's: when a caller backpropagates what the
function returns (`loss_q = self.meta_loss(...); loss_q.backward()`, the query losses of
meta-learning summed over tasks, each task's loop computing gradients with
`torch.autograd.grad`), keeping every iteration's graph is the point, and it is not
reported.

## Why is this bad?
`loss` still holds its autograd graph, so `total_loss` becomes a tensor whose graph links
every iteration's graph: none of them can be freed. Memory grows with every batch until the
run dies with `CUDA out of memory` (or the machine swaps), and each epoch gets slower.
Nothing reports it.

## Example
```python
total_loss = 0.0
for x, y in loader:
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
    total_loss += loss
```

## Use instead
```python
    total_loss += loss.item()
```
(`loss.item()` rather than `float(loss)`, which recent PyTorch versions warn about for
tensors that require grad.)

## Fix safety
"Accumulate loss.item()" adds the Python number instead of the tensor ("Append
loss.item()" stores it). `.item()` requires a
one-element tensor and turns the total into a float, which later code may not expect, so
the fix is unsafe.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from gradguard.analysis.facts import (
    Accumulation,
    Append,
    Carry,
    Grad,
    Kind,
    LoopNode,
    StateAppend,
    callee_name,
    dotted,
    innermost_first,
    kept_list_class,
    looped_calls,
    may_feed_a_backward,
    own_nodes,
    reads_key,
    runs_on_every_call,
    within,
)
from gradguard.core.findings import Finding, Fix, Related, Safety, Severity
from gradguard.core.messages import compose
from gradguard.core.rule import Invalid, Rule, RuleContext
from gradguard.rewrite.expressions import expr_text, replace_expr, with_method


class LossAccumulatedWithGraph(Rule):
    """A running total that keeps every iteration's graph alive."""

    code = "GG203"
    name = "loss-accumulated-with-graph"
    severity = Severity.WARNING
    summary = "total += loss keeps every iteration's graph alive"

    valid = (
        """
import torch
from torch import nn
model = nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
total = 0.0
for _ in range(3):
    loss = model(torch.randn(4, 2)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    total += loss.item()
""",
        # Accumulating on purpose, then one backward over the sum.
        """
import torch
from torch import nn
model = nn.Linear(2, 1)
total = 0
for _ in range(3):
    loss = model(torch.randn(4, 2)).pow(2).mean()
    total += loss
total.backward()
""",
    )

    invalid = (
        Invalid(
            """
import torch
from torch import nn
model = nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
total = 0.0
for _ in range(3):
    loss = model(torch.randn(4, 2)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    total += loss
assert not torch.is_tensor(total), "total keeps every iteration's graph"
""",
            fixed="""
import torch
from torch import nn
model = nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
total = 0.0
for _ in range(3):
    loss = model(torch.randn(4, 2)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    total += loss.item()
assert not torch.is_tensor(total), "total keeps every iteration's graph"
""",
            unsafe_fix=True,
            error="total keeps every iteration's graph",
        ),
        Invalid(
            """
import torch
from torch import nn
model = nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
losses = []
for _ in range(3):
    loss = model(torch.randn(4, 2)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    losses.append(loss)
assert not any(torch.is_tensor(v) for v in losses), "losses keep every iteration's graph"
""",
            fixed="""
import torch
from torch import nn
model = nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
losses = []
for _ in range(3):
    loss = model(torch.randn(4, 2)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    losses.append(loss.item())
assert not any(torch.is_tensor(v) for v in losses), "losses keep every iteration's graph"
""",
            unsafe_fix=True,
            error="losses keep every iteration's graph",
        ),
    )

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        """One finding per `total += loss` that chains graphs across a training loop."""
        backpropagated = {
            carry for event in ctx.analysis.backward_calls for carry in event.value.all_carries()
        }
        training_loops = {
            loop
            for event in [*ctx.analysis.backward_calls, *ctx.analysis.backward_in_calls]
            for loop in event.every_iteration
        }
        for use in ctx.analysis.events.of(Accumulation):
            if not use.added.has_history or isinstance(use.node, ast.Call):
                # A concatenation (`xs = torch.cat([xs, out])`) keeps outputs, not a number:
                # `.item()` is no fix for it.
                continue
            total_expr = use.target.value if isinstance(use.target, ast.Subscript) else use.target
            key = dotted(total_expr)
            carries = [
                c
                for c in use.value.carries
                if c.key == key and c.loop in use.every_iteration and c.loop in training_loops
            ]
            if not carries or any(c in backpropagated for c in carries):
                continue
            if key is not None and _returned_to_a_backward(ctx, use, key):
                continue
            added_expr = _added_expression(use)
            total = expr_text(ctx.source, use.target)
            added = expr_text(ctx.source, added_expr)
            number = with_method(ctx.source, added_expr, "item()")  # `(val * n).item()`
            shown = (
                f"{total} += {added}"
                if isinstance(use.stmt, ast.AugAssign)
                else f"{total} = {expr_text(ctx.source, _addition(use))}"
            )
            # The innermost loop carrying the total (`carries` comes from a frozenset, whose
            # order follows addresses).
            loop = innermost_first([c.loop for c in carries if c.loop is not None])[0]
            message = compose(
                f"`{total}` keeps every iteration's graph alive: memory grows each iteration",
                f"`{shown}` adds a tensor that still holds its autograd graph, on "
                f"every iteration of the loop at line {loop.lineno}",
                f"Add `{number}` instead",
            )
            related = [Related(ctx.header_range(loop), "the training loop")]
            edit = replace_expr(ctx.source, added_expr, number)
            fix = Fix(f"Accumulate {number}", Safety.UNSAFE, (edit,))
            yield self.finding(message, ctx.node_range(use.stmt), related, [fix])
        yield from self._appended(ctx, backpropagated)
        yield from self._kept(ctx, training_loops)

    def _appended(self, ctx: RuleContext, backpropagated: set[Carry]) -> Iterator[Finding]:
        """`losses.append(loss)` of the very loss each iteration backpropagates, on a list
        bound before the loop, in a function whose every backward() is that one (so none
        backpropagates through the list)."""
        for use in ctx.analysis.events.of(Append):
            call = use.node
            if not (isinstance(call, ast.Call) and len(call.args) == 1):
                continue
            if use.item.grad is Grad.UNTRACKED:
                # Unknown is enough, certainly without history is not: what backward() runs
                # on every iteration has history, or that backward raises (another rule).
                continue
            item = dotted(call.args[0])
            found = _backpropagated_every_iteration(ctx, use, item)
            key = dotted(use.target)
            if found is None or key is None:
                continue
            loop, part = found
            bound = use.value.origin
            if (
                bound is None
                or within(bound, loop)  # a list bound in the loop is fresh every iteration
                or any(c.key == key and c in backpropagated for c in use.value.all_carries())
            ):
                continue
            related = [Related(ctx.header_range(loop), "the training loop")]
            if part is not None:
                # A dict or tuple holding the loss: the number is what to keep in it.
                message = compose(
                    f"`{key}` keeps every iteration's graph alive: memory grows each iteration",
                    f"`{key}.append({item})` stores `{item}`, which holds the loss tensor "
                    f"`{part}` and its autograd graph, on every iteration of the loop at line "
                    f"{loop.lineno}",
                    f"Keep `{part}.item()` (or `{part}.detach()`) in what is appended instead",
                )
                yield self.finding(message, ctx.node_range(use.stmt), related, [])
                continue
            number, fix = _append_number(ctx, call.args[0])
            message = compose(
                f"`{key}` keeps every iteration's graph alive: memory grows each iteration",
                f"`{key}.append({item})` stores the loss tensor, which still holds its "
                f"autograd graph, on every iteration of the loop at line {loop.lineno}",
                f"Append `{number}` instead",
            )
            yield self.finding(message, ctx.node_range(use.stmt), related, [fix])

    def _kept(self, ctx: RuleContext, training_loops: set[LoopNode]) -> Iterator[Finding]:
        """`self.history.append(loss)` of a tensor with history, on every call of a method
        that a training loop of its class calls on every iteration, onto a list the instance
        keeps for life (`kept_histories`), which no backward may run through."""
        backward_scopes = {
            id(event.function) if event.function is not None else id(ctx.tree)
            for event in ctx.analysis.backward_calls
        }
        seen: set[int] = set()
        for use in ctx.analysis.events.of(StateAppend):
            method, target = use.function, use.target
            if (
                id(use.node) in seen
                or method is None
                or not isinstance(target, ast.Attribute)
                or use.item.kind is not Kind.TENSOR
                or not use.item.has_history
                or not runs_on_every_call(method, use.stmt)
            ):
                continue
            cls = kept_list_class(ctx.tree, method, target.attr)
            if cls is None:
                continue
            loops = [loop for loop in looped_calls(ctx.tree, cls, method) if loop in training_loops]
            if not loops or may_feed_a_backward(ctx.tree, target.attr, backward_scopes):
                continue
            seen.add(id(use.node))
            call = use.node
            assert isinstance(call, ast.Call)  # what the interpreter records
            argument = call.args[0]
            key = expr_text(ctx.source, target)
            item = expr_text(ctx.source, argument)
            number, fix = _append_number(ctx, argument)
            loop = min(loops, key=lambda node: (node.lineno, node.col_offset))
            message = compose(
                f"`{key}` keeps every iteration's graph alive: memory grows each iteration",
                f"`{key}.append({item})` stores a tensor that still holds its autograd graph "
                f"on every call of `{method.name}`, which the loop at line {loop.lineno} "
                "calls on every iteration; the list lives as long as the instance",
                f"Append `{number}` instead",
            )
            related = [Related(ctx.header_range(loop), "the training loop")]
            yield self.finding(message, ctx.node_range(use.stmt), related, [fix])


def _append_number(ctx: RuleContext, argument: ast.expr) -> tuple[str, Fix]:
    """`loss.item()` for the appended `argument`, and the fix appending it instead."""
    number = with_method(ctx.source, argument, "item()")
    edit = replace_expr(ctx.source, argument, number)
    return number, Fix(f"Append {number}", Safety.UNSAFE, (edit,))


def _returned_to_a_backward(ctx: RuleContext, use: Accumulation, key: str) -> bool:
    """Whether the function holding `use` returns its total (`return total / n`) and a
    backward of the file runs on what a call of that function gave."""
    function = use.function
    if function is None or not any(
        isinstance(node, ast.Return) and node.value is not None and reads_key(node.value, key)
        for node in own_nodes(function.body)
    ):
        return False
    for event in ctx.analysis.backward_calls:
        origin = event.value.origin
        sources: list[ast.AST] = [event.target]
        if isinstance(origin, ast.Assign | ast.AnnAssign) and origin.value is not None:
            sources.append(origin.value)
        if any(
            isinstance(node, ast.Call) and callee_name(node.func) == function.name
            for source in sources
            for node in ast.walk(source)
        ):
            return True
    return False


def _backpropagated_every_iteration(
    ctx: RuleContext, use: Append, item: str | None
) -> tuple[LoopNode, str | None] | None:
    """The loop, of the append's function, on whose every iteration both the append and a
    backward() of the appended name run; with the loss's spelling when the appended value
    only holds it (`output["loss"].backward()`, then `outputs.append(output)`)."""
    if item is None:
        return None
    found: LoopNode | None = None
    parts: set[str | None] = set()
    for event in [*ctx.analysis.backward_calls, *ctx.analysis.backward_in_calls]:
        if event.function is not use.function:
            continue
        spelled = dotted(event.target)
        if spelled != item and _holder(event.target) != item:
            return None  # another backward, which may run through the list
        parts.add(None if spelled == item else expr_text(ctx.source, event.target))
        shared = event.every_iteration & use.every_iteration
        if shared:
            found = max(shared, key=lambda loop: loop.lineno)  # the innermost
    if found is None or len(parts) != 1:
        return None
    return found, parts.pop()


def _holder(target: ast.expr) -> str | None:
    """The dict or tuple a backpropagated loss is read from by a constant key or index
    (`output` of `output["loss"].backward()`): appending it keeps the loss."""
    if isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Constant):
        return dotted(target.value)
    return None


def _added_expression(use: Accumulation) -> ast.expr:
    """What is added to the total: the right side of `total += x`, or the operand of
    `total = total + x` (`x + total`) that is not the total."""
    if isinstance(use.stmt, ast.AugAssign):
        return use.stmt.value
    node = _addition(use)
    return node.right if dotted(node.left) == dotted(use.target) else node.left


def _addition(use: Accumulation) -> ast.BinOp:
    """The `total + x` of an accumulation written `total = total + x`."""
    node = use.node
    assert isinstance(node, ast.BinOp)  # what the interpreter records for that spelling
    return node
