"""GG403 `non-leaf-grad-access`

## What it does
Finds reads of `y.grad` where `y` is a computed tensor (a non-leaf: an output of a module or
an operation on tensors that require grad) and `retain_grad()` was never called on it.

## Why is this bad?
`backward()` fills `.grad` only for leaf tensors (parameters, tensors created with
`requires_grad=True`). For a non-leaf, `.grad` stays `None` and PyTorch only warns:

    UserWarning: The .grad attribute of a Tensor that is not a leaf Tensor is being accessed.

Code that then uses the gradient fails later with `'NoneType' object has no attribute ...`,
or silently logs nothing.

## Example
```python
hidden = encoder(x)
loss = head(hidden).sum()
loss.backward()
print(hidden.grad.norm())
```

## Use instead
```python
hidden = encoder(x)
hidden.retain_grad()
loss = head(hidden).sum()
loss.backward()
print(hidden.grad.norm())
```

## Fix safety
"Call retain_grad()" inserts `y.retain_grad()` right after the statement that computes `y`.
It only makes autograd keep a gradient it computes anyway; the fix is safe.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from gradguard.analysis.facts import Carry, Grad, GradRead, carried_history
from gradguard.core.findings import Finding, Fix, Related, Safety, Severity
from gradguard.core.messages import compose
from gradguard.core.rule import Invalid, Rule, RuleContext
from gradguard.rewrite.expressions import expr_text
from gradguard.rewrite.statements import insert_after, stands_alone


class NonLeafGradAccess(Rule):
    """Reading `.grad` of a computed tensor."""

    code = "GG403"
    name = "non-leaf-grad-access"
    severity = Severity.WARNING
    summary = ".grad of a non-leaf tensor is None without retain_grad()"

    valid = (
        """
import torch
w = torch.ones(2, requires_grad=True)
y = w * 2
y.retain_grad()
y.sum().backward()
print(w.grad, y.grad)
""",
        """
import torch
from torch import nn
model = nn.Linear(2, 1)
model(torch.randn(3, 2)).sum().backward()
for p in model.parameters():
    print(p.grad.norm())
""",
    )

    invalid = (
        Invalid(
            """
import torch
from torch import nn
encoder = nn.Linear(3, 4)
head = nn.Linear(4, 1)
hidden = encoder(torch.randn(2, 3))
loss = head(hidden).sum()
loss.backward()
assert hidden.grad is not None, "hidden.grad is None"
""",
            fixed="""
import torch
from torch import nn
encoder = nn.Linear(3, 4)
head = nn.Linear(4, 1)
hidden = encoder(torch.randn(2, 3))
hidden.retain_grad()
loss = head(hidden).sum()
loss.backward()
assert hidden.grad is not None, "hidden.grad is None"
""",
            error="hidden.grad is None",
        ),
    )

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        """One finding per tensor whose `.grad` is read while it can only be None."""
        if "retain_grad" in ctx.source.text and any(
            isinstance(node, ast.Attribute) and node.attr == "retain_grad"
            for node in ast.walk(ctx.tree)
        ):
            # retain_grad() on an alias or inside a helper would make .grad real: stay silent
            # (the word in a comment or docstring does not count).
            return
        reported: set[str] = set()
        for use in ctx.analysis.events.of(GradRead):
            if use.bound or use.value.retains_grad:
                continue
            carried = None if use.value.has_history else _carried_non_leaf(use)
            if not use.value.has_history and carried is None:
                continue
            name = expr_text(ctx.source, use.target)
            origin = use.value.origin if carried is None else carried.stmt
            key = f"{name}@{id(origin)}"
            if key in reported:
                continue
            reported.add(key)
            message = _message(name, carried)
            related = []
            fixes = []
            if origin is not None:
                related.append(Related(ctx.node_range(origin), f"`{name}` computed here"))
                # Of a loop's update (`w = w - lr * w.grad`), retain_grad() would silence the
                # read but keep growing one graph through every step: no fix offered.
                alone = carried is None and stands_alone(ctx.source, origin)
                if isinstance(use.target, ast.Name) and alone:
                    edit = insert_after(ctx.source, origin, f"{name}.retain_grad()")
                    fixes.append(Fix("Call retain_grad()", Safety.SAFE, (edit,)))
            yield self.finding(message, ctx.node_range(use.node), related, fixes)


def _carried_non_leaf(use: GradRead) -> Carry | None:
    """A read of a tensor that requires grad, a leaf on the first iteration of a loop and
    what the previous iteration computed from it on every later one (`w = w - lr * w.grad`
    outside no_grad): the computed tensor, when it certainly has history and does not
    retain its gradient. From the second iteration on, the read sees None."""
    value = use.value
    if value.grad is not Grad.TRACKED or value.leaf is not None:
        return None
    carried = carried_history(use)
    if carried is None or carried.value.retains_grad:
        return None
    return carried


def _message(name: str, carried: Carry | None) -> str:
    """Of a tensor computed here, or of one a loop's previous iteration computed."""
    fix = f"Call `{name}.retain_grad()` before backward()"
    if carried is None:
        return compose(
            f"`{name}.grad` is None: `{name}` is not a leaf and does not retain its gradient",
            f"`{name}` is computed from tensors that require grad, and backward() keeps "
            "gradients only for leaves",
            fix,
        )
    assert carried.loop is not None and carried.stmt is not None
    return compose(
        f"`{name}.grad` is None from the second iteration on: `{name}` is then not a leaf",
        f"In the loop at line {carried.loop.lineno}, line {carried.stmt.lineno} computes "
        f"`{name}` from tensors that require grad and the next iteration reads `{name}.grad` "
        "of that tensor: backward() keeps gradients only for leaves",
        f"To update a leaf, change it in place under `torch.no_grad()`; to read this "
        f"gradient, {fix[0].lower()}{fix[1:]}",
    )
