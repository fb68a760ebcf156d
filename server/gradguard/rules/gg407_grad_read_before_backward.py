"""GG407 `grad-read-before-backward`

## What it does
Finds a use of `w.grad` that fails on None (`w.grad.zero_()`, `lr * w.grad`, `w.grad[0]`,
`-w.grad`) at a point where no backward pass can have run since `w` was created: `w` is a
leaf created in the same function (`torch.randn(..., requires_grad=True)`,
`nn.Parameter(...)`, a parameter of a module built there, a tensor a helper of the file
creates and returns: `w1, w2 = init_weights()`, a tensor the `__init__` of a plain class of
the file makes, `net.w1` of `net = TwoLayerNet()`), or such a leaf handed down to the
function reading it, and nothing on the way from its
creation to the read calls `backward()`, `torch.autograd.backward` or code the analysis
cannot see into. A read at the top of a training loop, before the loop's own backward, fails
on the first iteration. A helper walking a module-level list of such leaves (`params =
G_params + D_params`, the parameters of networks built at module level, bound once and never
changed; `def reset_grad(): for p in params: p.grad.data.zero_()`) fails when some call of it
runs before any backward: at module level, or at the top of a function so called (a `try`
around that call does not change that the read fails).

It also finds a use of `p.grad` for `p` in `model.parameters()` (or `named_parameters()`,
or a submodule's) right after `optimizer.zero_grad()` or `model.zero_grad()`, with nothing
in between that may run backward, there or in a helper called there: since torch 2.0 both
set every gradient to None by default, so the read fails on every iteration. The optimizer
must be a torch one made over `model.parameters()` in the same function, a module reset by
itself one built there; `zero_grad(set_to_none=False)` (which leaves zeros) is never
reported.

`if w.grad is not None:`, `w.grad = None`, `print(w.grad)` and any read after a call that
might run backward are never reported.

## Why is this bad?
A leaf's `.grad` is None until the first backward pass reaches it. Zeroing it "to be safe"
before the first backward raises

    AttributeError: 'NoneType' object has no attribute 'zero_'

and a hand-written update before backward raises

    TypeError: unsupported operand type(s) for *: 'float' and 'NoneType'

## Example
```python
w = torch.randn(3, requires_grad=True)
for x, y in batches:
    w.grad.zero_()
    loss = ((x @ w - y) ** 2).mean()
    loss.backward()
    with torch.no_grad():
        w -= 0.1 * w.grad
```

## Use instead
```python
w = torch.randn(3, requires_grad=True)
for x, y in batches:
    if w.grad is not None:
        w.grad.zero_()
    loss = ((x @ w - y) ** 2).mean()
    loss.backward()
    with torch.no_grad():
        w -= 0.1 * w.grad
```
(or `w.grad = None`, or zero the gradient after the update).

## Fix safety
"Skip when .grad is None" wraps a statement that only zeroes or detaches the gradient
(`w.grad.zero_()`, `w.grad.data.zero_()`, `w.grad.detach_()`) in `if w.grad is not None:`.
A gradient that does not exist yet has nothing to clear; `torch.optim.Optimizer.zero_grad()`
makes the same check. The fix is safe. Other uses (an update computed from a gradient that
was never computed) have no mechanical fix: the code must run backward first.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from gradguard.analysis.facts import UnfilledRead
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
from gradguard.core.messages import capitalized, compose
from gradguard.core.rule import Invalid, Rule, RuleContext
from gradguard.rewrite.expressions import expr_text
from gradguard.rewrite.statements import indentation, indented_block, stands_alone

# Methods that only clear a gradient: skipping them when there is none changes nothing.
_CLEARING = frozenset({"zero_", "detach_"})


class GradReadBeforeBackward(Rule):
    """A `.grad` used before any backward could have filled it."""

    code = "GG407"
    name = "grad-read-before-backward"
    severity = Severity.ERROR
    summary = ".grad used before any backward ran (it is None)"

    valid = (
        # Guarded, or read after backward, or only looked at.
        """
import torch
w = torch.randn(3, requires_grad=True)
if w.grad is not None:
    w.grad.zero_()
print(w.grad)
assert w.grad is None
(w * 2).sum().backward()
w.grad.zero_()
""",
        # Zeroing after the update, at the end of the loop body.
        """
import torch
w = torch.randn(3, requires_grad=True)
for step in range(3):
    loss = (w ** 2).sum()
    loss.backward()
    with torch.no_grad():
        w -= 0.1 * w.grad
    w.grad.zero_()
""",
        # A tensor from elsewhere (a parameter), or a call that may have run backward.
        """
import torch
def update(w, lr):
    w.data -= lr * w.grad
def closure(w):
    (w * 3).sum().backward()
v = torch.ones(2, requires_grad=True)
closure(v)
v.grad.zero_()
update(v, 0.1)
""",
    )

    invalid = (
        Invalid(
            """
import torch
w = torch.randn(3, requires_grad=True)
x = torch.randn(8, 3)
for step in range(3):
    w.grad.zero_()
    loss = (x @ w).pow(2).mean()
    loss.backward()
    with torch.no_grad():
        w -= 0.1 * w.grad
""",
            fixed="""
import torch
w = torch.randn(3, requires_grad=True)
x = torch.randn(8, 3)
for step in range(3):
    if w.grad is not None:
        w.grad.zero_()
    loss = (x @ w).pow(2).mean()
    loss.backward()
    with torch.no_grad():
        w -= 0.1 * w.grad
""",
            error="AttributeError: 'NoneType' object has no attribute 'zero_'",
        ),
        Invalid(
            """
import torch
from torch import nn
model = nn.Linear(4, 1)
for p in model.parameters():
    p.grad.data.zero_()
loss = model(torch.randn(2, 4)).sum()
loss.backward()
""",
            fixed="""
import torch
from torch import nn
model = nn.Linear(4, 1)
for p in model.parameters():
    if p.grad is not None:
        p.grad.data.zero_()
loss = model(torch.randn(2, 4)).sum()
loss.backward()
""",
            error="AttributeError: 'NoneType' object has no attribute 'data'",
        ),
        Invalid(
            """
import torch
lr = 0.1
w = torch.zeros(2, requires_grad=True)
w.data -= lr * w.grad
""",
            error="TypeError: unsupported operand type(s) for *: 'float' and 'NoneType'",
        ),
    )

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        """One finding per failing `.grad` read that no backward can precede."""
        for read in ctx.unfilled_grad_reads:
            use = read.use
            name = expr_text(ctx.source, use.target)
            if read.reset:
                created = f"`{read.created}` set it to None (line {read.creation.lineno})"
                label = f"`{read.created}` sets the gradients to None here"
            else:
                created = f"`{read.created}` was created (line {read.creation.lineno})"
                label = f"`{read.created}` created here"
            if read.loop is not None:
                when = (
                    f"on the first iteration of the loop (line {read.loop.lineno}) no backward "
                    f"has run yet since {created}"
                )
            else:
                when = f"no backward can have run since {created}"
            message = compose(
                f'`{name}.grad` is None: this raises "{read.error}"',
                capitalized(when),
                f"Check `{name}.grad is not None` or use it after backward()",
            )
            related = [Related(ctx.node_range(read.creation), label)]
            if read.loop is not None:
                related.append(
                    Related(ctx.header_range(read.loop), "backward runs later in this loop")
                )
            fix = _guard(ctx, read, name)
            yield self.finding(message, ctx.node_range(use.node), related, [fix] if fix else [])


def _guard(ctx: RuleContext, read: UnfilledRead, name: str) -> Fix | None:
    """`if w.grad is not None:` around a statement that only clears the gradient."""
    stmt = read.use.stmt
    if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)):
        return None
    func = stmt.value.func
    if not isinstance(func, ast.Attribute) or func.attr not in _CLEARING or stmt.value.args:
        return None
    inner = func.value
    if isinstance(inner, ast.Attribute) and inner.attr == "data":
        inner = inner.value  # w.grad.data.zero_()
    if inner is not read.use.node or not stands_alone(ctx.source, stmt):
        return None
    if "\n" in name:
        return None
    indent = indentation(ctx.source, stmt)
    body = indented_block(ctx.source, [stmt], indent)
    line = stmt.lineno - 1
    last = (stmt.end_lineno or stmt.lineno) - 1
    text = f"{indent}if {name}.grad is not None:{ctx.source.newline}{body}"
    region = Range(Position(line, 0), Position(last, len(ctx.source.line(last))))
    return Fix("Skip when .grad is None", Safety.SAFE, (TextEdit(region, text),))
