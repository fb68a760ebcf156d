"""GG401 `requires-grad-on-non-leaf`

## What it does
Finds `y.requires_grad = True` on a tensor that was computed from tensors requiring grad
(a non-leaf: it has a `grad_fn`). (`y.requires_grad_()` on such a tensor is a harmless
no-op and is not reported.)

## Why is this bad?
Only leaves carry a user-settable `requires_grad` flag; a computed tensor already requires
grad through its inputs. Changing the flag raises

    RuntimeError: you can only change requires_grad flags of leaf variables.

Usually the intent is to read `y.grad` after `backward()`: that needs `y.retain_grad()`.

## Example
```python
y = x * 2
y.requires_grad = True
```

## Use instead
```python
y = x * 2
y.retain_grad()  # y.grad is filled in by backward()
```

## Fix safety
"Use retain_grad()" replaces the statement with `y.retain_grad()`. `y` already requires
grad, so the only effect left to keep is getting its gradient; the fix is safe.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from gradguard.analysis.facts import AttributeSet
from gradguard.core.findings import Finding, Fix, Related, Safety, Severity, TextEdit
from gradguard.core.messages import compose
from gradguard.core.rule import Invalid, Rule, RuleContext
from gradguard.rewrite.expressions import expr_text
from gradguard.rewrite.statements import stands_alone

ERROR = "you can only change requires_grad flags of leaf variables"


class RequiresGradOnNonLeaf(Rule):
    """Setting requires_grad on a computed tensor."""

    code = "GG401"
    name = "requires-grad-on-non-leaf"
    severity = Severity.ERROR
    summary = "requires_grad set on a tensor computed from tensors that require grad"

    valid = (
        """
import torch
x = torch.ones(2)
x.requires_grad = True
w = torch.ones(2).requires_grad_()
y = (w * 2).detach()
y.requires_grad_()
z = w * 3
z.retain_grad()
z.sum().backward()
""",
    )

    invalid = (
        Invalid(
            """
import torch
x = torch.ones(2, requires_grad=True)
y = x * 2
y.requires_grad = True
y.sum().backward()
print(y.grad)
""",
            fixed="""
import torch
x = torch.ones(2, requires_grad=True)
y = x * 2
y.retain_grad()
y.sum().backward()
print(y.grad)
""",
            error=ERROR,
        ),
    )

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        """One finding per requires_grad change on a tensor with history."""
        for use in ctx.analysis.events.of(AttributeSet):
            if not use.value.has_history:
                continue
            if use.attribute != "requires_grad":
                continue
            statement = use.stmt
            if not (isinstance(statement, ast.Assign) and _is_true(statement.value)):
                continue
            name = expr_text(ctx.source, use.target)
            message = compose(
                f'`{name}` is not a leaf: this raises "{ERROR}"',
                f"`{name}` is computed from tensors that require grad (it has a grad_fn), so "
                f"its requires_grad cannot change; to read `{name}.grad`, call "
                f"`{name}.retain_grad()`",
            )
            related = []
            if use.value.origin is not None:
                related.append(Related(ctx.node_range(use.value.origin), f"`{name}` computed here"))
            fixes = []
            if stands_alone(ctx.source, statement):
                rng = ctx.node_range(statement)
                fixes.append(
                    Fix(
                        "Use retain_grad()",
                        Safety.SAFE,
                        (TextEdit(rng, f"{name}.retain_grad()"),),
                    )
                )
            yield self.finding(message, ctx.node_range(statement), related, fixes)


def _is_true(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is True
