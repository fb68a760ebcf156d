"""GG605 `zero-grad-between-backward-and-step`

## What it does
Finds `optimizer.zero_grad()` placed after `loss.backward()` and before `optimizer.step()`
in the same block, for an optimizer built from `torch.optim` in the file. `model.zero_grad()`
counts too when the optimizer is built in the same function from `model.parameters()` (and
neither name is bound again there): it clears the very gradients the optimizer holds.

## Why is this bad?
`zero_grad()` clears the gradients that `backward()` just computed, so `step()` sees no
gradient (`None` since PyTorch 2.0) and leaves every parameter unchanged. Training runs,
the loss never improves, and nothing raises.

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
`backward()`. That is the order the code intended, so the fix is safe.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Callable, Iterator

from gradguard.analysis.facts import OptimizerCall, bindings_of, dotted
from gradguard.core.findings import Finding, Fix, Related, Safety, Severity
from gradguard.core.messages import compose
from gradguard.core.rule import Invalid, Rule, RuleContext
from gradguard.rewrite.expressions import expr_text
from gradguard.rewrite.statements import (
    delete_statement,
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
            backward = next(
                (
                    s
                    for s in reversed(block[:zero_index])
                    if any(id(n) in backward_statements for n in ast.walk(s))
                ),
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
