"""GG406 `legacy-constructor-requires-grad`

## What it does
Finds the legacy constructors `torch.Tensor(...)`, `torch.FloatTensor(...)` and
`torch.DoubleTensor(...)` called with `requires_grad=...`.

## Why is this bad?
The legacy constructors do not take `requires_grad`; the call fails with

    TypeError: new() received an invalid combination of arguments - got (list, requires_grad=bool)

## Example
```python
w = torch.FloatTensor([0.5, -0.5], requires_grad=True)
b = torch.Tensor(2, 3, requires_grad=True)
```

## Use instead
```python
w = torch.tensor([0.5, -0.5], dtype=torch.float32, requires_grad=True)
b = torch.empty(2, 3, requires_grad=True)
```

## Fix safety
"Use torch.tensor(...)" rewrites data constructors to `torch.tensor(data, dtype=...)` with
the dtype the legacy constructor used (`float32` for `FloatTensor`, `float64` for
`DoubleTensor`, `torch.get_default_dtype()` for `Tensor` unless the data are float
literals), and size constructors (`torch.Tensor(2, 3)`) to `torch.empty(2, 3)`. The result
has the same dtype and shape, so the fix is safe.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from gradguard.core.findings import Finding, Fix, Safety, Severity
from gradguard.core.messages import compose
from gradguard.core.rule import Invalid, Rule, RuleContext
from gradguard.rewrite.expressions import expr_text, replace_expr

ERROR = "new() received an invalid combination of arguments"
_DTYPES = {"torch.FloatTensor": "float32", "torch.DoubleTensor": "float64", "torch.Tensor": None}


class LegacyConstructorRequiresGrad(Rule):
    """`requires_grad=` passed to a legacy tensor constructor."""

    code = "GG406"
    name = "legacy-constructor-requires-grad"
    severity = Severity.ERROR
    summary = "requires_grad passed to torch.Tensor/FloatTensor(...)"

    valid = (
        """
import torch
a = torch.Tensor([1.0, 2.0])
a.requires_grad_()
b = torch.tensor([1.0, 2.0], requires_grad=True)
c = torch.empty(2, 3, requires_grad=True)
""",
    )

    invalid = (
        Invalid(
            """
import torch
w = torch.FloatTensor([0.5, -0.5], requires_grad=True)
""",
            fixed="""
import torch
w = torch.tensor([0.5, -0.5], dtype=torch.float32, requires_grad=True)
""",
            error=ERROR,
        ),
        Invalid(
            """
import torch
b = torch.Tensor(2, 3, requires_grad=True)
""",
            fixed="""
import torch
b = torch.empty(2, 3, requires_grad=True)
""",
            error=ERROR,
        ),
        Invalid(
            """
import torch
v = torch.Tensor([1, 2], requires_grad=True)
""",
            fixed="""
import torch
v = torch.tensor([1, 2], dtype=torch.get_default_dtype(), requires_grad=True)
""",
            error=ERROR,
        ),
    )

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        """One finding per legacy constructor call given `requires_grad`."""
        alias = ctx.torch_alias
        for torch_call in ctx.analysis.torch_calls:
            call = torch_call.call
            if torch_call.qualified not in _DTYPES:
                continue
            if not any(kw.arg == "requires_grad" for kw in call.keywords):
                continue
            constructor = torch_call.qualified
            message = compose(
                f'{constructor.rsplit(".", 1)[-1]}(requires_grad=...) raises "{ERROR}"',
                f"The legacy constructor {constructor}(...) does not accept requires_grad: the "
                "call raises a TypeError; use torch.tensor(...) or torch.empty(...)",
            )
            fix = _fix(ctx, call, constructor, alias) if alias is not None else None
            yield self.finding(message, ctx.node_range(call), (), [fix] if fix else [])


def _fix(ctx: RuleContext, call: ast.Call, constructor: str, alias: str) -> Fix | None:
    keywords = ", ".join(expr_text(ctx.source, kw) for kw in call.keywords)
    args = call.args
    if args and all(isinstance(a, ast.Constant) and isinstance(a.value, int) for a in args):
        sizes = ", ".join(expr_text(ctx.source, a) for a in args)
        text = f"{alias}.empty({sizes}, {keywords})"
        if constructor != "torch.Tensor":
            text = f"{alias}.empty({sizes}, dtype={alias}.{_DTYPES[constructor]}, {keywords})"
        return Fix("Use torch.empty(...)", Safety.SAFE, (replace_expr(ctx.source, call, text),))
    if len(args) != 1 or not isinstance(args[0], ast.List | ast.Tuple):
        return None
    data = expr_text(ctx.source, args[0])
    dtype = _DTYPES[constructor]
    if dtype is not None:
        dtype_text = f"{alias}.{dtype}"
    elif _all_floats(args[0]):
        dtype_text = None
    else:
        dtype_text = f"{alias}.get_default_dtype()"
    parts = [data] + ([f"dtype={dtype_text}"] if dtype_text else []) + [keywords]
    text = f"{alias}.tensor({', '.join(parts)})"
    return Fix("Use torch.tensor(...)", Safety.SAFE, (replace_expr(ctx.source, call, text),))


def _all_floats(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant):
        return isinstance(node.value, float)
    if isinstance(node, ast.UnaryOp):
        return _all_floats(node.operand)
    if isinstance(node, ast.List | ast.Tuple):
        return bool(node.elts) and all(_all_floats(e) for e in node.elts)
    return False
