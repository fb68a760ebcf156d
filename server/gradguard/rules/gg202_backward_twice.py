"""GG202 `backward-twice`

## What it does
Finds a second backward pass through a graph that an earlier `backward()` already freed:

* two `backward()` calls on losses that share part of their graph (the same model output,
  the generator's output in a GAN), the first without `retain_graph=True`; the second loss
  may come from a helper function of the file (`loss_div = diversity(feats)`), whose result
  runs through the graph of the argument it is computed from; the two backward calls may
  sit in two methods of one object that a third calls in turn (`self.backward_D()` then
  `self.backward_G()`, both through the `self.fake_B` that `self.forward()` left), the
  finding then offering no fix;
* the same across helper functions of the file: one whose own backward freed the graph of
  what it returns (`fake = discriminator_step(...)` scoring `fake` undetached), then a
  backward through that result, in the caller or in a helper it is handed to
  (`generator_step(netD, fake)`); or one whose own backward freed the graph of what it
  was handed (`discriminator_step(netD, real, fake)` scoring `fake` undetached), then a
  backward through that argument again; no fix is offered either;
* a `backward()` that runs on every iteration of a loop on a loss (or model output)
  computed once, before the loop.

Only graph nodes that keep tensors for their backward count (`nn.Linear`, `*`, `exp`,
`sigmoid`, loss functions...; `+`, `sum`, `mean` and views keep nothing, so a second
backward through them alone works), and only values the analysis knows certainly went
through them.

## Why is this bad?
`backward()` frees the tensors the graph saved, unless asked to keep them. The second pass
fails:

    RuntimeError: Trying to backward through the graph a second time (or directly access
    saved tensors after they have already been freed). Saved intermediate values of the
    graph are freed when you call .backward() or autograd.grad(). Specify
    retain_graph=True if you need to backward through the graph a second time or if you
    need to access saved tensors after calling backward.

In a loop over a loss computed before the loop, even `retain_graph=True` only hides the
bug: every iteration backpropagates the same, stale forward pass.

## Example
```python
out = model(x)
loss_a = out.pow(2).mean()
loss_b = out.abs().mean()
loss_a.backward()
loss_b.backward()
```

## Use instead
```python
out = model(x)
loss_a = out.pow(2).mean()
loss_b = out.abs().mean()
(loss_a + loss_b).backward()
```
or keep the graph for the second pass with `loss_a.backward(retain_graph=True)`. In a
loop, compute the forward pass and the loss inside the loop.

## Fix safety
"Keep the graph for the second backward" adds `retain_graph=True` to the first call. It is
unsafe: the graph stays in memory until the second pass, and the fix is only offered when
no optimizer step runs between the two calls (a step would change weights the kept graph
still needs). The loop case has no automatic fix: the forward pass has to move into the
loop.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from gradguard.analysis.facts import (
    ArgumentFreedByCall,
    BackwardCall,
    FreedByCall,
    LoopNode,
    OptimizerCall,
    SavedNode,
    within,
)
from gradguard.core.findings import Finding, Fix, Related, Safety, Severity
from gradguard.core.messages import compose
from gradguard.core.rule import Invalid, Rule, RuleContext
from gradguard.rewrite.expressions import add_keyword, expr_text

_ERROR = "Trying to backward through the graph a second time"


class BackwardTwice(Rule):
    """A backward pass through a graph an earlier backward freed."""

    code = "GG202"
    name = "backward-twice"
    severity = Severity.ERROR
    summary = "second backward() through a graph the first backward() freed"

    valid = (
        # The first backward keeps the graph for the second.
        """
import torch
from torch import nn
model = nn.Linear(4, 1)
out = model(torch.randn(8, 4))
out.pow(2).mean().backward(retain_graph=True)
out.abs().mean().backward()
""",
        # A fresh forward pass every iteration.
        """
import torch
from torch import nn
model = nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(8, 4), torch.randn(8, 1)
for epoch in range(3):
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    optimizer.step()
""",
        # sum() and + keep no tensors: backward through them twice works.
        """
import torch
w = torch.ones(3, requires_grad=True)
total = (w + 1).sum()
total.backward()
total.backward()
print(w.grad)
""",
        # GAN: the discriminator's loss uses the generator output detached.
        """
import torch
from torch import nn
G, D = nn.Linear(2, 2), nn.Linear(2, 1)
opt_g = torch.optim.SGD(G.parameters(), lr=0.1)
opt_d = torch.optim.SGD(D.parameters(), lr=0.1)
fake = G(torch.randn(4, 2))
d_loss = D(fake.detach()).mean()
opt_d.zero_grad()
d_loss.backward()
opt_d.step()
g_loss = -D(fake).mean()
opt_g.zero_grad()
g_loss.backward()
opt_g.step()
""",
        # The two calls are on different paths.
        """
import random
import torch
from torch import nn
model = nn.Linear(4, 1)
out = model(torch.randn(8, 4))
if random.random() < 0.5:
    out.pow(2).mean().backward()
else:
    out.abs().mean().backward()
""",
    )

    invalid = (
        Invalid(
            """
import torch
from torch import nn
model = nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(8, 4), torch.randn(8, 1)
loss = nn.functional.mse_loss(model(x), y)
for epoch in range(3):
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
""",
            error=_ERROR,
        ),
        Invalid(
            """
import torch
from torch import nn
model = nn.Linear(4, 1)
out = model(torch.randn(8, 4))
loss_a = out.pow(2).mean()
loss_b = out.abs().mean()
loss_a.backward()
loss_b.backward()
""",
            fixed="""
import torch
from torch import nn
model = nn.Linear(4, 1)
out = model(torch.randn(8, 4))
loss_a = out.pow(2).mean()
loss_b = out.abs().mean()
loss_a.backward(retain_graph=True)
loss_b.backward()
""",
            unsafe_fix=True,
            error=_ERROR,
        ),
        Invalid(
            """
import torch
from torch import nn
G, D = nn.Linear(2, 2), nn.Linear(2, 1)
opt_g = torch.optim.SGD(G.parameters(), lr=0.1)
opt_d = torch.optim.SGD(D.parameters(), lr=0.1)
fake = G(torch.randn(4, 2))
d_loss = D(fake).mean()
opt_d.zero_grad()
d_loss.backward()
opt_d.step()
g_loss = -D(fake).mean()
opt_g.zero_grad()
g_loss.backward()
opt_g.step()
""",
            error=_ERROR,
        ),
    )

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        """One finding per backward call that frees a graph a later call runs through, and
        per backward call in a loop that runs through a graph built before the loop."""
        calls = [c for c in ctx.analysis.backward_calls if c.via != "torch.autograd.grad"]
        # Backward calls of methods seen from a method calling them one after the other
        # (`self.backward_D()` then `self.backward_G()` through the same `self.fake_B`).
        across = [c for c in ctx.analysis.backward_across_methods if c.via != "torch.autograd.grad"]
        reported: set[int] = set()
        freed_by_calls = ctx.analysis.events.of(FreedByCall, ArgumentFreedByCall)
        for second in [*calls, *across]:
            if not second.through_freed:
                continue
            first = _freeing_call([*calls, *across], second)
            fixable = first not in across and second not in across
            if first is None:
                # A function of the file freed the graph of what it returned
                # (`fake = d_step(...)`, then `loss_g.backward()` through `fake`), or of
                # what it was given (`d_step(netD, fake)`, then the same).
                first = _freeing_callee(calls, freed_by_calls, second)
                fixable = False
            if first is None or id(first.call) in reported:
                continue
            reported.add(id(first.call))
            yield self._second_pass(ctx, first, second, fixable=fixable)
        for event in [*calls, *across]:
            loop = _repeating_loop(event)
            if loop is None or id(event.call) in reported:
                continue
            before = [n for n in event.value.graph if not within(n.node, loop)]
            if before:
                reported.add(id(event.call))
                yield self._stale_graph(ctx, event, loop, before)

    def _second_pass(
        self, ctx: RuleContext, first: BackwardCall, second: BackwardCall, *, fixable: bool
    ) -> Finding:
        name = expr_text(ctx.source, first.target)
        other = expr_text(ctx.source, second.target)
        line = second.call.lineno
        message = compose(
            f'Backward of `{other}` raises "{_ERROR}"',
            f"`{name}.backward()` frees the graph that `{other}` (line {line}) backpropagates "
            "through again",
            "Backpropagate once through the sum of both, or pass `retain_graph=True` here",
        )
        related = [Related(ctx.node_range(second.call), "the second backward pass")]
        for node in sorted(second.through_freed, key=_position)[:1]:
            related.append(Related(ctx.node_range(node.node), "the shared part of the graph"))
        fixes = []
        if (
            fixable
            and first.via == "backward"
            and first.retain_graph is None
            and not _steps_between(ctx, first, second)
        ):
            fixes.append(
                Fix(
                    "Keep the graph for the second backward",
                    Safety.UNSAFE,
                    (add_keyword(ctx.source, first.call, "retain_graph=True"),),
                )
            )
        return self.finding(message, ctx.node_range(first.call), related, fixes)

    def _stale_graph(
        self, ctx: RuleContext, event: BackwardCall, loop: LoopNode, before: list[SavedNode]
    ) -> Finding:
        name = expr_text(ctx.source, event.target)
        node = min(before, key=_position)
        message = compose(
            f'Backward of `{name}` in a loop raises "{_ERROR}"',
            f"`{name}.backward()` runs on every iteration through a graph built once, before "
            "the loop, so the second iteration finds it freed",
            "Compute the forward pass and the loss inside the loop",
        )
        built = "computed once, before the loop"
        if node.brought and isinstance(node.node, ast.arg):
            built = f"`{node.node.arg}` brings a graph its callers built before the call"
        related = [
            Related(ctx.node_range(node.node), built),
            Related(ctx.header_range(loop), "the loop"),
        ]
        return self.finding(message, ctx.node_range(event.call), related)


def _freeing_call(calls: list[BackwardCall], second: BackwardCall) -> BackwardCall | None:
    """The earlier backward call that freed part of the graph `second` runs through."""
    for first in calls:
        if first is not second and first.frees_graph and first.value.graph & second.through_freed:
            return first
    return None


def _freeing_callee(
    calls: list[BackwardCall],
    freed_by_calls: list[FreedByCall | ArgumentFreedByCall],
    second: BackwardCall,
) -> BackwardCall | None:
    """The backward call of a function of the file that freed the graph of a result
    `second` runs through (`FreedByCall`), or of an argument (`ArgumentFreedByCall`), when
    it is recorded."""
    for event in freed_by_calls:
        freed = event.freed if isinstance(event, ArgumentFreedByCall) else {event.freed}
        if freed & second.through_freed:
            for first in calls:
                if first.call in event.backwards and first.frees_graph:
                    return first
    return None


def _repeating_loop(event: BackwardCall) -> LoopNode | None:
    """The innermost loop that runs `event` on every one of at least two iterations."""
    if not event.frees_graph or not event.loops:
        return None
    loop = event.loops[-1]
    if loop not in event.every_iteration or _runs_at_most_once(loop):
        return None
    return loop


def _runs_at_most_once(loop: LoopNode) -> bool:
    """`for _ in range(1)`, or a body that always leaves the loop at its end."""
    if loop.body and isinstance(loop.body[-1], ast.Break | ast.Return | ast.Raise):
        return True
    if isinstance(loop, ast.For | ast.AsyncFor) and isinstance(loop.iter, ast.Call):
        func, args = loop.iter.func, loop.iter.args
        if isinstance(func, ast.Name) and func.id == "range" and len(args) == 1:
            count = args[0]
            return (
                isinstance(count, ast.Constant)
                and isinstance(count.value, int)
                and (count.value <= 1)
            )
    return False


def _position(node: SavedNode) -> tuple[int, int]:
    return getattr(node.node, "lineno", 0), getattr(node.node, "col_offset", 0)


def _steps_between(ctx: RuleContext, first: BackwardCall, second: BackwardCall) -> bool:
    """Whether an optimizer step (or a call the analysis cannot see into) may run between
    the two calls, in source order."""
    start, end = first.call.lineno, second.call.lineno
    if any(
        use.method == "step" and start <= use.stmt.lineno <= end
        for use in ctx.analysis.events.of(OptimizerCall)
    ):
        return True
    return any(start < call.lineno <= end for call in ctx.analysis.opaque_calls)
