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

from gradguard.analysis.facts import GradRead
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
            if use.bound or not use.value.has_history or use.value.retains_grad:
                continue
            name = expr_text(ctx.source, use.target)
            origin = use.value.origin
            key = f"{name}@{id(origin)}"
            if key in reported:
                continue
            reported.add(key)
            message = compose(
                f"`{name}.grad` is None: `{name}` is not a leaf and does not retain its gradient",
                f"`{name}` is computed from tensors that require grad, and backward() keeps "
                "gradients only for leaves",
                f"Call `{name}.retain_grad()` before backward()",
            )
            related = []
            fixes = []
            if origin is not None:
                related.append(Related(ctx.node_range(origin), f"`{name}` computed here"))
                if isinstance(use.target, ast.Name) and stands_alone(ctx.source, origin):
                    edit = insert_after(ctx.source, origin, f"{name}.retain_grad()")
                    fixes.append(Fix("Call retain_grad()", Safety.SAFE, (edit,)))
            yield self.finding(message, ctx.node_range(use.node), related, fixes)
