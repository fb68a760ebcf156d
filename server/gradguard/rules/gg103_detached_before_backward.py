"""GG103 `detached-before-backward`

## What it does
Finds `.backward()` (or `torch.autograd.backward` / `torch.autograd.grad`) on a value whose
history was cut by `.detach()`, `.data` or `.detach_()` on the way to it.

## Why is this bad?
A detached tensor is a leaf with `requires_grad=False`: it no longer knows how it was
computed, so backpropagating from it raises

    RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn

Often the detach was added to silence another error (for example
`Can't call numpy() on Tensor that requires grad`) and moved the failure here.

## Example
```python
loss = criterion(model(x), y).detach()
loss.backward()
```

## Use instead
```python
loss = criterion(model(x), y)
loss.backward()
```

## Fix safety
"Remove .detach()" deletes the `.detach()` call (or `.data`, or the `.detach_()`
statement). It is unsafe: gradients then flow into everything that produced the value; if
part of it was meant to stay frozen, detach only that part instead.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from gradguard.analysis.facts import LossKind
from gradguard.core.findings import Finding, Fix, Related, Safety, Severity
from gradguard.core.messages import NO_GRAD_FN, compose, describe_backward, no_graph_summary
from gradguard.core.rule import Invalid, Rule, RuleContext
from gradguard.rewrite.expressions import expr_text, replace_expr
from gradguard.rewrite.statements import delete_statement, stands_alone

ERROR = "element 0 of tensors does not require grad and does not have a grad_fn"


class DetachedBeforeBackward(Rule):
    """Backpropagating from a detached value."""

    code = "GG103"
    name = "detached-before-backward"
    severity = Severity.ERROR
    summary = "backward() on a value cut from the graph by .detach() or .data"

    valid = (
        # Detaching a target, not the loss.
        """
import torch
from torch import nn
model = nn.Linear(3, 1)
target = model(torch.randn(4, 3)).detach() + 1.0
loss = (model(torch.randn(4, 3)) - target).pow(2).mean()
loss.backward()
""",
        # Detached copy for logging; backward on the original.
        """
import torch
from torch import nn
model = nn.Linear(3, 1)
loss = model(torch.randn(4, 3)).mean()
logged = loss.detach()
loss.backward()
print(logged)
""",
        # requires_grad_() makes the detached tensor a fresh leaf again (a different bug class).
        """
import torch
from torch import nn
model = nn.Linear(3, 1)
z = model(torch.randn(4, 3)).detach().requires_grad_()
z.sum().backward()
""",
    )

    invalid = (
        Invalid(
            """
import torch
from torch import nn
model = nn.Linear(3, 1)
criterion = nn.MSELoss()
loss = criterion(model(torch.randn(4, 3)), torch.randn(4, 1)).detach()
loss.backward()
""",
            fixed="""
import torch
from torch import nn
model = nn.Linear(3, 1)
criterion = nn.MSELoss()
loss = criterion(model(torch.randn(4, 3)), torch.randn(4, 1))
loss.backward()
""",
            unsafe_fix=True,
            error=ERROR,
        ),
        Invalid(
            """
import torch
from torch import nn
model = nn.Linear(3, 1)
out = model(torch.randn(4, 3))
loss = out.data.pow(2).mean()
loss.backward()
""",
            fixed="""
import torch
from torch import nn
model = nn.Linear(3, 1)
out = model(torch.randn(4, 3))
loss = out.pow(2).mean()
loss.backward()
""",
            unsafe_fix=True,
            error=ERROR,
        ),
        Invalid(
            """
import torch
from torch import nn
model = nn.Linear(3, 1)
loss = model(torch.randn(4, 3)).sum()
loss.detach_()
loss.backward()
""",
            fixed="""
import torch
from torch import nn
model = nn.Linear(3, 1)
loss = model(torch.randn(4, 3)).sum()
loss.backward()
""",
            unsafe_fix=True,
            error=ERROR,
        ),
    )

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        """One finding per detach that a backpropagated value comes from."""
        for event, loss in ctx.analysis.backpropagated_without_history(LossKind.DETACH):
            name = expr_text(ctx.source, event.target)
            call = describe_backward(name, event.via)
            line = ctx.node_range(loss.node).start.line + 1
            message = compose(
                no_graph_summary(name, event.via),
                f"It was cut from the autograd graph by {loss.description} (line {line}), so "
                f"{call} (line {event.call.lineno}) finds no graph to go through; backpropagate "
                "the value from before the cut",
                NO_GRAD_FN.in_full,
            )
            related = [Related(ctx.node_range(event.call), f"{call} raises: {ERROR}")]
            fix = _fix(ctx, loss.node, loss.description)
            yield self.finding(message, ctx.node_range(loss.node), related, [fix] if fix else [])


def _fix(ctx: RuleContext, node: ast.AST, description: str) -> Fix | None:
    title = f"Remove {description}"
    if isinstance(node, ast.Attribute):  # `.data`
        edit = replace_expr(ctx.source, node, expr_text(ctx.source, node.value))
        return Fix(title, Safety.UNSAFE, (edit,))
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
        return None
    if node.func.attr == "detach_":
        for stmt in ast.walk(ctx.tree):
            if isinstance(stmt, ast.Expr) and stmt.value is node and stands_alone(ctx.source, stmt):
                return Fix(title, Safety.UNSAFE, (delete_statement(ctx.source, stmt),))
        return None
    edit = replace_expr(ctx.source, node, expr_text(ctx.source, node.func.value))
    return Fix(title, Safety.UNSAFE, (edit,))
