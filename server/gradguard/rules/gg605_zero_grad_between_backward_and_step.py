"""GG605 `zero-grad-between-backward-and-step`

## What it does
Finds `optimizer.zero_grad()` placed after `loss.backward()` and before `optimizer.step()`
in the same block, for an optimizer built from `torch.optim` in the file. `model.zero_grad()`
counts too when the optimizer is built in the same function from `model.parameters()` (and
neither name is bound again there): it clears the very gradients the optimizer holds. A
`.grad` assigned between the two (`w.grad = g`, gradients computed by hand) refills what was
cleared: nothing is reported.

It also finds gradient accumulation whose gradients are cleared on every iteration: the loop
body runs `optimizer.zero_grad()`, then `backward()`, and steps only under an accumulation
guard (`if (i + 1) % k == 0:`, or a counter the body adds to and the guarded block resets,
`if seen >= k: ... seen = 0`), with that optimizer stepped and cleared nowhere else in the
loop.

## Why is this bad?
`zero_grad()` clears the gradients that `backward()` just computed, so `step()` sees no
gradient (`None` since PyTorch 2.0) and leaves every parameter unchanged. Training runs,
the loss never improves, and nothing raises. Cleared on every iteration of an accumulation
loop, the gradients of all micro-batches but the last are computed and thrown away: each
step applies one micro-batch, not the accumulated batch.

## Example
```python
loss.backward()
optimizer.zero_grad()
optimizer.step()
```

## Use instead
```python
optimizer.zero_grad()
loss.backward()
optimizer.step()
```

## Fix safety
"Move zero_grad() before backward()" moves the call to just before the statement that calls
`backward()`. That is the order the code intended, so the fix is safe. "Clear the gradients
after the step" moves the accumulation loop's `zero_grad()` into the guarded block, after
`step()`: the accumulation then happens, which changes what each step applies (k
micro-batches instead of one), so the fix is unsafe.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Callable, Iterator

from gradguard.analysis.facts import (
    OptimizerCall,
    bindings_of,
    counts_to_a_step,
    dotted,
    own_nodes,
    periodic_divisor,
)
from gradguard.core.findings import Finding, Fix, Related, Safety, Severity
from gradguard.core.messages import compose
from gradguard.core.rule import Invalid, Rule, RuleContext
from gradguard.rewrite.expressions import expr_text
from gradguard.rewrite.statements import (
    delete_statement,
    insert_after,
    insert_before,
    stands_alone,
    trailing_comment,
)


class ZeroGradBetweenBackwardAndStep(Rule):
    """Gradients cleared after backward() and before step()."""

    code = "GG605"
    name = "zero-grad-between-backward-and-step"
    severity = Severity.ERROR
    summary = "zero_grad() between backward() and step() discards the gradients"

    valid = (
        """
import torch
from torch import nn
model = nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for _ in range(2):
    opt.zero_grad()
    loss = model(torch.randn(4, 2)).pow(2).mean()
    loss.backward()
    opt.step()
""",
        # step() and zero_grad() at the end of an iteration, then backward in the next.
        """
import torch
from torch import nn
model = nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for _ in range(2):
    loss = model(torch.randn(4, 2)).pow(2).mean()
    loss.backward()
    opt.step()
    opt.zero_grad()
""",
        # A critic stepped every iteration, a generator every k with its own zero_grad.
        """
import torch
from torch import nn
gen, critic = nn.Linear(2, 2), nn.Linear(2, 1)
opt_g = torch.optim.SGD(gen.parameters(), lr=0.1)
opt_c = torch.optim.SGD(critic.parameters(), lr=0.1)
for i in range(4):
    opt_c.zero_grad()
    critic(gen(torch.randn(4, 2)).detach()).mean().backward()
    opt_c.step()
    if (i + 1) % 2 == 0:
        opt_g.zero_grad()
        (-critic(gen(torch.randn(4, 2)))).mean().backward()
        opt_g.step()
""",
        # A second backward after zero_grad recomputes the gradients.
        """
import torch
from torch import nn
model = nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
model(torch.randn(4, 2)).sum().backward()
opt.zero_grad()
model(torch.randn(4, 2)).pow(2).mean().backward()
opt.step()
""",
    )

    invalid = (
        Invalid(
            """
import torch
from torch import nn
model = nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
before = model.weight.detach().clone()
loss = model(torch.randn(4, 2)).pow(2).mean()
loss.backward()
opt.zero_grad()
opt.step()
assert not torch.equal(before, model.weight), "the step changed nothing"
""",
            fixed="""
import torch
from torch import nn
model = nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
before = model.weight.detach().clone()
loss = model(torch.randn(4, 2)).pow(2).mean()
opt.zero_grad()
loss.backward()
opt.step()
assert not torch.equal(before, model.weight), "the step changed nothing"
""",
            error="the step changed nothing",
        ),
        # Accumulation over two micro-batches whose gradients are cleared every iteration:
        # the step applies the second micro-batch's gradient alone.
        Invalid(
            """
import torch
w = torch.zeros(1, requires_grad=True)
opt = torch.optim.SGD([w], lr=1.0)
for i, target in enumerate([1.0, 3.0]):
    opt.zero_grad()
    loss = (w - target).pow(2).sum() / 2
    loss.backward()
    if (i + 1) % 2 == 0:
        opt.step()
assert torch.allclose(w, torch.tensor([4.0])), "only the last micro-batch was applied"
""",
            fixed="""
import torch
w = torch.zeros(1, requires_grad=True)
opt = torch.optim.SGD([w], lr=1.0)
for i, target in enumerate([1.0, 3.0]):
    loss = (w - target).pow(2).sum() / 2
    loss.backward()
    if (i + 1) % 2 == 0:
        opt.step()
        opt.zero_grad()
assert torch.allclose(w, torch.tensor([4.0])), "only the last micro-batch was applied"
""",
            unsafe_fix=True,
            error="only the last micro-batch was applied",
        ),
    )

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        """One finding per zero_grad() that clears gradients right before step()."""
        backward_statements = {id(event.stmt) for event in ctx.analysis.backward_calls}
        calls = ctx.analysis.events.of(OptimizerCall)
        zero_grads = {id(u.stmt): u for u in calls if _is_call(u, "zero_grad")}
        for step in calls:
            if not _is_call(step, "step"):
                continue
            _, block = ctx.analysis.block_of(step.stmt)
            index = next(i for i, s in enumerate(block) if s is step.stmt)
            receiver = expr_text(ctx.source, step.target)
            owners = functools.partial(_modules_optimized, ctx, step)
            zero = _previous_zero_grad(ctx, block, index, receiver, zero_grads, owners)
            if zero is None:
                continue
            zero_index = next(i for i, s in enumerate(block) if s is zero)
            if any(_sets_grad(s) for s in block[zero_index + 1 : index]):
                continue  # the gradients are set by hand after clearing (`p.grad = g`)
            backward = next(
                (s for s in reversed(block[:zero_index]) if _runs_backward(s, backward_statements)),
                None,
            )
            if backward is None:
                continue
            cleared_expr = _zero_grad_receiver(zero)
            cleared = expr_text(ctx.source, cleared_expr) if cleared_expr else receiver
            message = compose(
                f"`{cleared}.zero_grad()` discards the new gradients: `{receiver}.step()` "
                "updates nothing",
                f"It clears the gradients that backward() (line {backward.lineno}) just "
                f"computed, before `{receiver}.step()` (line {step.stmt.lineno})",
                "Clear the gradients before backward() or after the step",
            )
            related = [
                Related(ctx.node_range(backward), "gradients are computed here"),
                Related(ctx.node_range(step.stmt), "the step that finds no gradients"),
            ]
            fixes = []
            if stands_alone(ctx.source, zero) and stands_alone(ctx.source, backward):
                text = ctx.source.slice(ctx.node_range(zero))
                text += trailing_comment(ctx.source, zero)
                edits = (
                    delete_statement(ctx.source, zero),
                    insert_before(ctx.source, backward, text),
                )
                fixes.append(Fix("Move zero_grad() before backward()", Safety.SAFE, edits))
            yield self.finding(message, ctx.node_range(zero), related, fixes)
        yield from self._cleared_while_accumulating(ctx, calls, zero_grads, backward_statements)

    def _cleared_while_accumulating(
        self,
        ctx: RuleContext,
        calls: list[OptimizerCall],
        zero_grads: dict[int, OptimizerCall],
        backward_statements: set[int],
    ) -> Iterator[Finding]:
        """Accumulation whose gradients are cleared on every iteration: the loop body runs
        `opt.zero_grad()`, then backward(), and `opt.step()` only under an accumulation
        guard (`if (i + 1) % k == 0:`, or a counter the body adds to and the guarded block
        resets). Each step then applies the last micro-batch's gradients alone."""
        for step in calls:
            if not _is_call(step, "step"):
                continue
            found = _accumulation_cleared(ctx, step, zero_grads, backward_statements)
            if found is None:
                continue
            zero, backward, guard = found
            receiver = expr_text(ctx.source, step.target)
            message = compose(
                f"`{receiver}.zero_grad()` on every iteration discards the accumulated gradients",
                f"`{receiver}.step()` runs only when the guard at line {guard.lineno} holds, "
                f"but every iteration first clears what the earlier ones' backward() (line "
                f"{backward.lineno}) accumulated: each step applies one micro-batch's "
                "gradients, the others are computed and thrown away",
                f"Clear the gradients after `{receiver}.step()`, inside the guarded block",
            )
            related = [
                Related(ctx.header_range(guard), "the step runs only when this holds"),
                Related(ctx.node_range(step.stmt), "the step that sees one micro-batch"),
            ]
            fixes = []
            if stands_alone(ctx.source, zero) and stands_alone(ctx.source, step.stmt):
                text = ctx.source.slice(ctx.node_range(zero)) + trailing_comment(ctx.source, zero)
                edits = (
                    delete_statement(ctx.source, zero),
                    insert_after(ctx.source, step.stmt, text),
                )
                fixes.append(Fix("Clear the gradients after the step", Safety.UNSAFE, edits))
            yield self.finding(message, ctx.node_range(zero), related, fixes)


def _accumulation_cleared(
    ctx: RuleContext,
    step: OptimizerCall,
    zero_grads: dict[int, OptimizerCall],
    backward_statements: set[int],
) -> tuple[ast.stmt, ast.stmt, ast.If] | None:
    """For a step in an accumulation guard written in a loop body: the same optimizer's
    `zero_grad()` statement of that body and the backward() statement after it, both run
    on every iteration before the guard (statements of the body itself). None when the
    optimizer steps or is cleared anywhere else in the loop."""
    parents = ctx.grad_context.parents
    guard = parents.get(id(step.stmt))
    if not isinstance(guard, ast.If) or not any(s is step.stmt for s in guard.body):
        return None
    loop = parents.get(id(guard))
    if not isinstance(loop, ast.For | ast.While) or not any(s is guard for s in loop.body):
        return None
    if periodic_divisor(guard.test) is None and not counts_to_a_step(guard, loop.body):
        return None
    receiver = expr_text(ctx.source, step.target)
    same = [
        u
        for u in ctx.analysis.events.of(OptimizerCall)
        if u.method in ("step", "zero_grad")
        and expr_text(ctx.source, u.target) == receiver
        and any(a is loop for a in ctx.grad_context.ancestors(u.node))
    ]
    zero: ast.stmt | None = None
    backward: ast.stmt | None = None
    for stmt in loop.body[: next(i for i, s in enumerate(loop.body) if s is guard)]:
        use = zero_grads.get(id(stmt))
        if use is not None and expr_text(ctx.source, use.target) == receiver:
            if zero is not None:
                return None
            zero = stmt
        elif zero is not None and _runs_backward(stmt, backward_statements):
            backward = backward or stmt
    if zero is None or backward is None:
        return None
    expected = {id(zero_grads[id(zero)].node), id(step.node)}
    if any(id(u.node) not in expected for u in same):
        return None  # stepped or cleared elsewhere in the loop too
    return zero, backward, guard


def _runs_backward(stmt: ast.stmt, backward_statements: set[int]) -> bool:
    """Whether running `stmt` runs one of the backward() statements: not one inside a
    function, class or lambda it defines (an LBFGS `closure` backpropagates only when
    `step(closure)` calls it)."""
    return any(id(n) in backward_statements for n in own_nodes([stmt]))


def _is_call(use: OptimizerCall, name: str) -> bool:
    """`opt.<name>()` as a statement of its own."""
    stmt = use.stmt
    return use.method == name and isinstance(stmt, ast.Expr) and stmt.value is use.node


def _previous_zero_grad(
    ctx: RuleContext,
    block: list[ast.stmt],
    index: int,
    receiver: str,
    zero_grads: dict[int, OptimizerCall],
    owners: Callable[[], frozenset[str]],
) -> ast.stmt | None:
    """The `receiver.zero_grad()` statement before `block[index]`, or `model.zero_grad()` of
    a module whose parameters the optimizer was built from, if only call-free statements
    stand between them (`owners()`, computed only when such a call is found)."""
    for stmt in reversed(block[:index]):
        use = zero_grads.get(id(stmt))
        if use is not None and expr_text(ctx.source, use.target) == receiver:
            return stmt
        cleared = _zero_grad_receiver(stmt)
        if cleared is not None and dotted(cleared) in owners():
            return stmt
        if any(isinstance(node, ast.Call) for node in ast.walk(stmt)):
            return None
    return None


def _sets_grad(stmt: ast.stmt) -> bool:
    """Whether the statement assigns a `.grad` attribute (`w.grad = g`, `p.grad += g`)."""
    return any(
        isinstance(node, ast.Attribute) and node.attr == "grad" and isinstance(node.ctx, ast.Store)
        for node in ast.walk(stmt)
    )


def _zero_grad_receiver(stmt: ast.stmt) -> ast.expr | None:
    """`x` of a statement `x.zero_grad()` (no arguments but `set_to_none`)."""
    if not isinstance(stmt, ast.Expr) or not isinstance(stmt.value, ast.Call):
        return None
    call = stmt.value
    if not (isinstance(call.func, ast.Attribute) and call.func.attr == "zero_grad"):
        return None
    if call.args or any(k.arg != "set_to_none" for k in call.keywords):
        return None
    return call.func.value


def _modules_optimized(ctx: RuleContext, step: OptimizerCall) -> frozenset[str]:
    """`model` when the stepped optimizer is built in the same function (or both at module
    level), once, as `torch.optim.X(model.parameters(), ...)`, and `model` is bound at most
    once there:
    `model.zero_grad()` then clears every gradient the step would use."""
    key = dotted(step.target)
    function = step.function
    if key is None:
        return frozenset()
    bound = bindings_of(function if function is not None else ctx.tree)
    built = [
        t
        for t in ctx.analysis.torch_calls
        if t.function is function
        and t.qualified.startswith("torch.optim.")
        and isinstance(t.stmt, ast.Assign)
        and t.stmt.value is t.call
        and len(t.stmt.targets) == 1
        and dotted(t.stmt.targets[0]) == key
    ]
    if len(built) != 1 or len(bound.get(key, [])) != 1:
        return frozenset()
    call = built[0].call
    source = call.args[0] if call.args else None
    if not (
        isinstance(source, ast.Call)
        and isinstance(source.func, ast.Attribute)
        and source.func.attr == "parameters"
        and not source.args
        and not source.keywords
    ):
        return frozenset()
    owner = dotted(source.func.value)
    if owner is None or len(bound.get(owner, [])) > 1:
        return frozenset()
    return frozenset({owner})
