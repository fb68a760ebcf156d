"""GG301 `inplace-on-leaf`

## What it does
Finds an in-place operation on a leaf tensor that requires grad, outside `torch.no_grad()`:
`w -= lr * w.grad`, `w[0] = 0`, `w.add_(...)`, `w.zero_()`, also on the parameters of a
known module (`for p in model.parameters(): p -= lr * p.grad`). Typical in hand-written SGD
updates and initialisation loops.

## Why is this bad?
Autograd cannot record an in-place change to a leaf it must compute gradients for:

    RuntimeError: a leaf Variable that requires grad is being used in an in-place operation.

(for `w[i] = ...`: `a view of a leaf Variable that requires grad is being used in an in-place
operation.`)

## Example
```python
w = torch.randn(3, requires_grad=True)
loss = (w * x).sum()
loss.backward()
w -= 0.1 * w.grad
```

## Use instead
```python
with torch.no_grad():
    w -= 0.1 * w.grad
```

## Fix safety
"Wrap in torch.no_grad()" puts the statement (and the flagged statements right next to it)
in a `with torch.no_grad():` block. A parameter update is not meant to be recorded, so the
fix is safe.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from gradguard.analysis.facts import Grad, InPlaceChange
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
from gradguard.core.messages import TorchError, compose
from gradguard.core.rule import Invalid, Rule, RuleContext
from gradguard.rewrite.expressions import expr_text
from gradguard.rewrite.statements import indentation, indented_block, stands_alone

ERROR = "a leaf Variable that requires grad is being used in an in-place operation"

_LEAF_IN_PLACE = TorchError(ERROR, "a leaf Variable that requires grad is being used")


class InplaceOnLeaf(Rule):
    """In-place update of a leaf that requires grad, with gradient recording on."""

    code = "GG301"
    name = "inplace-on-leaf"
    severity = Severity.ERROR
    summary = "in-place operation on a leaf tensor that requires grad"

    valid = (
        # A parameter created with requires_grad=False is a buffer in all but name.
        """
import torch
from torch import nn
steps = nn.Parameter(torch.tensor(0.0), requires_grad=False)
steps.add_(1.0)
""",
        """
import torch
w = torch.randn(3, requires_grad=True)
loss = (w * 2).sum()
loss.backward()
with torch.no_grad():
    w -= 0.1 * w.grad
w.grad.zero_()
""",
        # Out of place, or through .data.
        """
import torch
w = torch.randn(3, requires_grad=True)
w.data -= 0.1
v = torch.zeros(3)
v += 1
w2 = w - 0.1
""",
        # A decorated update function.
        """
import torch
from torch import nn
model = nn.Linear(2, 1)
@torch.no_grad()
def sgd(lr):
    for p in model.parameters():
        p -= lr * p.grad
""",
    )

    invalid = (
        Invalid(
            """
import torch
w = torch.randn(3, requires_grad=True)
b = torch.zeros(1, requires_grad=True)
for step in range(3):
    loss = (w.sum() + b).pow(2).sum()
    loss.backward()
    w -= 0.1 * w.grad
    b -= 0.1 * b.grad
    w.grad = None
    b.grad = None
""",
            fixed="""
import torch
w = torch.randn(3, requires_grad=True)
b = torch.zeros(1, requires_grad=True)
for step in range(3):
    loss = (w.sum() + b).pow(2).sum()
    loss.backward()
    with torch.no_grad():
        w -= 0.1 * w.grad
        b -= 0.1 * b.grad
    w.grad = None
    b.grad = None
""",
            error=ERROR,
        ),
        Invalid(
            """
import torch
from torch import nn
model = nn.Linear(2, 1)
for p in model.parameters():
    p.uniform_(-0.1, 0.1)
""",
            fixed="""
import torch
from torch import nn
model = nn.Linear(2, 1)
for p in model.parameters():
    with torch.no_grad():
        p.uniform_(-0.1, 0.1)
""",
            error=ERROR,
        ),
    )

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        """One finding per in-place statement on a leaf that requires grad."""
        flagged = [use for use in ctx.analysis.events.of(InPlaceChange) if _is_flagged(use)]
        statements = {id(use.stmt) for use in flagged}
        alias = ctx.torch_alias
        reported: set[int] = set()
        for use in flagged:
            if id(use.stmt) in reported:
                continue
            reported.add(id(use.stmt))
            name = expr_text(ctx.source, use.target)
            message = compose(
                f"Changing leaf `{name}` in place raises {_LEAF_IN_PLACE.quoted}",
                f"`{name}` is a leaf tensor that requires grad, and gradient recording is on here; "
                "make the change under torch.no_grad()",
                _LEAF_IN_PLACE.in_full,
            )
            related = []
            if use.value.origin is not None:
                related.append(Related(ctx.node_range(use.value.origin), f"`{name}` created here"))
            fix = _fix(ctx, use.stmt, statements, alias)
            yield self.finding(message, ctx.node_range(use.stmt), related, [fix] if fix else [])


def _is_flagged(use: InPlaceChange) -> bool:
    return use.value.grad is Grad.TRACKED and use.value.leaf is True and use.grad_enabled is True


def _fix(ctx: RuleContext, stmt: ast.stmt, flagged: set[int], alias: str | None) -> Fix | None:
    """Wrap `stmt` and its flagged neighbours in one `with torch.no_grad():` block."""
    if alias is None or not stands_alone(ctx.source, stmt):
        return None
    _, block = ctx.analysis.block_of(stmt)
    index = next(i for i, s in enumerate(block) if s is stmt)
    first = last = index
    while (
        first > 0 and id(block[first - 1]) in flagged and stands_alone(ctx.source, block[first - 1])
    ):
        first -= 1
    while (
        last + 1 < len(block)
        and id(block[last + 1]) in flagged
        and stands_alone(ctx.source, block[last + 1])
    ):
        last += 1
    indent = indentation(ctx.source, block[first])
    body = indented_block(ctx.source, block[first : last + 1], indent)
    start_line = block[first].lineno - 1
    end_line = (block[last].end_lineno or block[last].lineno) - 1
    text = f"{indent}with {alias}.no_grad():{ctx.source.newline}{body}"
    region = Range(Position(start_line, 0), Position(end_line, len(ctx.source.line(end_line))))
    return Fix(f"Wrap in {alias}.no_grad()", Safety.SAFE, (TextEdit(region, text),))
