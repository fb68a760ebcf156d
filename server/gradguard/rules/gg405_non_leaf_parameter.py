"""GG405 `non-leaf-parameter`

## What it does
Finds a tensor handed to a `torch.optim` optimizer that is not a leaf because it was
computed from a `requires_grad=True` tensor: `torch.randn(3, requires_grad=True) * 0.01`,
`... / 10`, `.double()`, `.to(device)`.

## Why is this bad?
An optimizer can only update leaves; the constructor rejects the tensor:

    ValueError: can't optimize a non-leaf Tensor

(The scaled tensor is a result of the multiplication: the leaf that would get gradients is
the unscaled tensor, which nothing keeps.)

## Example
```python
w = torch.randn(3, 1, requires_grad=True) * 0.01
optimizer = torch.optim.SGD([w], lr=0.1)
```

## Use instead
```python
w = (torch.randn(3, 1) * 0.01).requires_grad_()
optimizer = torch.optim.SGD([w], lr=0.1)
```

## Fix safety
"Create the leaf after scaling" removes `requires_grad=True` from the factory call and
applies `.requires_grad_()` to the whole expression. The tensor has the same values and is
now the leaf the optimizer updates; the fix is safe.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from gradguard.analysis.facts import OptimizedTensor
from gradguard.core.findings import Finding, Fix, Range, Related, Safety, Severity, TextEdit
from gradguard.core.messages import compose
from gradguard.core.rule import Invalid, Rule, RuleContext
from gradguard.rewrite.expressions import expr_range, expr_text, remove_argument

ERROR = "can't optimize a non-leaf Tensor"


class NonLeafParameter(Rule):
    """An optimizer given a computed tensor instead of a leaf."""

    code = "GG405"
    name = "non-leaf-parameter"
    severity = Severity.ERROR
    summary = "optimizer given a non-leaf tensor (scaled after requires_grad=True)"

    valid = (
        """
import torch
w = (torch.randn(3, 1) * 0.01).requires_grad_()
b = torch.zeros(1, requires_grad=True)
optimizer = torch.optim.SGD([w, b], lr=0.1)
""",
        """
import torch
from torch import nn
w = nn.Parameter(torch.randn(3) * 0.01)
optimizer = torch.optim.Adam([w])
""",
    )

    invalid = (
        Invalid(
            """
import torch
w = torch.randn(3, 1, requires_grad=True) * 0.01
b = torch.zeros(1, requires_grad=True)
optimizer = torch.optim.SGD([w, b], lr=0.1)
""",
            fixed="""
import torch
w = (torch.randn(3, 1) * 0.01).requires_grad_()
b = torch.zeros(1, requires_grad=True)
optimizer = torch.optim.SGD([w, b], lr=0.1)
""",
            error=ERROR,
        ),
    )

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        """One finding per non-leaf tensor listed as an optimizer parameter."""
        for use in ctx.analysis.events.of(OptimizedTensor):
            if not use.value.has_history:
                continue
            name = expr_text(ctx.source, use.target)
            optimizer = use.optimizer.rsplit(".", 1)[-1]
            message = compose(
                f'`{name}` is not a leaf: {optimizer}(...) raises "{ERROR}"',
                f"`{name}` is computed from a tensor that requires grad, so the optimizer "
                "refuses it with a ValueError; create the leaf from the computed values "
                "instead",
            )
            origin = use.value.origin
            related = []
            fixes = []
            if origin is not None:
                related.append(Related(ctx.node_range(origin), f"`{name}` computed here"))
                fix = _fix(ctx, origin)
                if fix is not None:
                    fixes.append(fix)
            yield self.finding(message, ctx.node_range(_primary(ctx, use)), related, fixes)


def _primary(ctx: RuleContext, use: OptimizedTensor) -> ast.AST:
    """Where to report: the statement computing the tensor when it is in the function (or
    module body) that builds the optimizer (`w = ...` then `SGD([w])`); else the tensor as
    the optimizer call lists it (`SGD([model.alpha])`), or, when the call does not name it
    (a list another method returns, `SGD(model.parameters())`), the call's `params`
    argument."""
    origin = use.value.origin
    if origin is not None and ctx.grad_context.enclosing_function(origin) is use.function:
        return origin
    call = use.node
    if any(n is use.target for n in ast.walk(call)) or not isinstance(call, ast.Call):
        return use.target
    given = next((kw.value for kw in call.keywords if kw.arg == "params"), None)
    return call.args[0] if call.args else given or use.target


def _fix(ctx: RuleContext, origin: ast.stmt) -> Fix | None:
    """`w = torch.randn(n, requires_grad=True) * s` becomes
    `w = (torch.randn(n) * s).requires_grad_()`."""
    if not isinstance(origin, ast.Assign) or len(origin.targets) != 1:
        return None
    value = origin.value
    keywords = [
        (node, kw)
        for node in ast.walk(value)
        if isinstance(node, ast.Call)
        for kw in node.keywords
        if kw.arg == "requires_grad"
        and isinstance(kw.value, ast.Constant)
        and kw.value.value is True
    ]
    if len(keywords) != 1 or value is keywords[0][0]:
        return None
    call, keyword = keywords[0]
    whole = expr_range(ctx.source, value)
    edits = (
        TextEdit(Range(whole.start, whole.start), "("),
        remove_argument(ctx.source, call, keyword),
        TextEdit(Range(whole.end, whole.end), ").requires_grad_()"),
    )
    return Fix("Create the leaf after scaling", Safety.SAFE, edits)
