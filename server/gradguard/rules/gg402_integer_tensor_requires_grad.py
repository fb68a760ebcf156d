"""GG402 `integer-tensor-requires-grad`

## What it does
Finds tensors created with `requires_grad=True` whose dtype is an integer (or bool) type:
`torch.tensor([1, 2, 3], requires_grad=True)` (integer literals infer `int64`),
`torch.arange(5, requires_grad=True)`, `torch.full((2,), 3, requires_grad=True)`,
`torch.randint(...)`, `torch.randperm(...)`, and factories given `dtype=torch.long` (or any
integer dtype); the same with data or bounds held by names the analysis knows the ints of
(`ids = [3, 1, 2]; torch.tensor(ids, requires_grad=True)`, `Variable(torch.arange(n),
requires_grad=True)`); `nn.Parameter(t)` of a tensor `t` certainly of an integer dtype (a
parameter requires grad unless given `requires_grad=False`); and `x.requires_grad = True` on
a tensor that is certainly integer or bool: the indices of `torch.max(x, 1)` (`_, predicted =
torch.max(out, 1)`), an `argmax`, a comparison, a `.long()` cast; and the in-place
`t.requires_grad_()` (or `requires_grad_(True)`) on such a tensor or on one made by an
integer factory (`torch.randint(...)`, `torch.arange(n)` of ints), copied or reshaped
(`ids.detach().clone()`) or taken from a list of known tensors element by element
(`[x.requires_grad_() for x in (ids, embeds)]`, or a loop over them); also the int64
`num_batches_tracked` of a BatchNorm layer built with running statistics, read directly or
reached by a loop over its (or its nn.Sequential's) `buffers()`, `named_buffers()` or
`state_dict().values()`/`.items()` that asks each tensor to require grad. A guard
`x.is_floating_point()` is followed: `x.requires_grad_() if x.is_floating_point() else x`
is fine.

## Why is this bad?
Gradients are only defined for floating point and complex tensors. Creating the tensor raises

    RuntimeError: Only Tensors of floating point and complex dtype can require gradients

(`t.requires_grad_()` raises "only Tensors of floating point dtype can require gradients").

## Example
```python
weights = torch.tensor([1, 2, 3], requires_grad=True)
```

## Use instead
```python
weights = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
# or
weights = torch.tensor([1, 2, 3], dtype=torch.float32, requires_grad=True)
```

## Fix safety
"Use a floating-point dtype" adds `dtype=torch.float32` (or replaces the integer dtype).
The values are the same numbers as floats; the fix is safe.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from gradguard.analysis.facts import AttributeSet, IntegerGradRequest, LossKind, passed_keyword
from gradguard.core.findings import Finding, Fix, Range, Related, Safety, Severity, TextEdit
from gradguard.core.messages import TorchError, capitalized, compose
from gradguard.core.rule import Invalid, Rule, RuleContext
from gradguard.rewrite.expressions import expr_text, replace_expr

ERROR = "Only Tensors of floating point and complex dtype can require gradients"

_INTEGER_DTYPES = frozenset(
    [
        "long",
        "int",
        "int64",
        "int32",
        "int16",
        "int8",
        "uint8",
        "uint16",
        "uint32",
        "uint64",
        "short",
        "bool",
    ]
)
_FROM_DATA = frozenset({"torch.tensor", "torch.as_tensor"})
_ALWAYS_INTEGER = frozenset({"torch.randint", "torch.randint_like", "torch.randperm"})
_FROM_BOUNDS = frozenset({"torch.arange"})
_FROM_FILL = frozenset({"torch.full"})
_WITH_DTYPE = frozenset(
    f"torch.{n}"
    for n in ["zeros", "ones", "empty", "full", "eye", "zeros_like", "ones_like", "empty_like"]
)
# Factories that take `dtype=` (not `Variable`, whose data decides).
_TAKES_DTYPE = _WITH_DTYPE | _FROM_DATA | _FROM_BOUNDS | _ALWAYS_INTEGER

# Losses whose description says where an integer dtype came from (`torch.randint(...)`,
# `.argmax()`); a `.detach()` or a move does not.
_DTYPE_LOSSES = frozenset({LossKind.FACTORY, LossKind.NON_DIFFERENTIABLE})

_NOT_FLOAT = TorchError(ERROR, "Only Tensors of floating point and complex dtype")
# `t.requires_grad_()` words it differently (torch 2.13.0).
_IN_PLACE = TorchError(
    "only Tensors of floating point dtype can require gradients",
    "only Tensors of floating point dtype",
)


class IntegerTensorRequiresGrad(Rule):
    """`requires_grad=True` on an integer tensor."""

    code = "GG402"
    name = "integer-tensor-requires-grad"
    severity = Severity.ERROR
    summary = "requires_grad=True on a tensor with an integer dtype"

    valid = (
        """
import torch
a = torch.tensor([1.0, 2.0], requires_grad=True)
b = torch.tensor([1, 2], dtype=torch.float32, requires_grad=True)
c = torch.arange(5.0, requires_grad=True)
d = torch.tensor([1, 2])
e = torch.zeros(3, dtype=torch.float64, requires_grad=True)
f = torch.full((2,), 3.0, requires_grad=True)
""",
        # requires_grad given by a variable: unknown.
        """
import sys
import torch
flag = len(sys.argv) > 99
x = torch.tensor([1, 2], requires_grad=flag)
""",
        # Cast back to floating point first: a float leaf may require grad.
        """
import torch
logits = torch.randn(4, 3)
_, predicted = torch.max(logits, 1)
score = predicted.float()
score.requires_grad = True
values, _ = torch.max(logits, 1)
values.requires_grad = True
mask = (logits > 0).double() * 1.5
mask.requires_grad = True
""",
        # In place: only the floating-point inputs, or the ids cast first.
        """
import torch
ids = torch.randint(0, 9, (2, 4))
embeds = torch.randn(2, 4, 3)
marked = [x.requires_grad_() if x.is_floating_point() else x for x in (ids, embeds)]
weights = ids.float().requires_grad_()
ids.requires_grad_(False)
""",
    )

    invalid = (
        Invalid(
            """
import torch
weights = torch.tensor([[1, 2], [3, 4]], requires_grad=True)
""",
            fixed="""
import torch
weights = torch.tensor([[1, 2], [3, 4]], dtype=torch.float32, requires_grad=True)
""",
            error=ERROR,
        ),
        Invalid(
            """
import torch
steps = torch.arange(0, 10, 2, requires_grad=True)
""",
            fixed="""
import torch
steps = torch.arange(0, 10, 2, dtype=torch.float32, requires_grad=True)
""",
            error=ERROR,
        ),
        Invalid(
            """
import torch
counts = torch.zeros(4, dtype=torch.long, requires_grad=True)
""",
            fixed="""
import torch
counts = torch.zeros(4, dtype=torch.float32, requires_grad=True)
""",
            error=ERROR,
        ),
        Invalid(
            """
import torch
logits = torch.randn(4, 3, requires_grad=True)
_, predicted = torch.max(logits, 1)
predicted.requires_grad = True
""",
            error="floating point and complex dtype can require gradients",
        ),
        Invalid(
            """
import torch
ids = torch.randint(0, 9, (2, 4))
embeds = torch.randn(2, 4, 3)
marked = [x.requires_grad_() for x in (ids, embeds)]
""",
            error="only Tensors of floating point dtype can require gradients",
        ),
    )

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        """One finding per integer tensor created with, or set to, requires_grad=True."""
        yield from self._flag_set_on_integers(ctx)
        alias = ctx.torch_alias
        reported: set[int] = set()
        for torch_call in ctx.analysis.torch_calls:
            call = torch_call.call
            requires = passed_keyword(call, "requires_grad")
            if requires is None or not _is_constant(requires.value, True):
                continue
            dtype = passed_keyword(call, "dtype")
            reason = _integer_reason(torch_call.qualified, call, dtype)
            if reason is None:
                continue
            reported.add(id(call))
            message = compose(
                f"Integer tensor with requires_grad=True raises {_NOT_FLOAT.quoted}",
                f"Here {reason}",
                _NOT_FLOAT.in_full,
            )
            fixes = []
            if alias is not None:
                fixes.append(_fix(ctx, requires, dtype, alias))
            yield self.finding(message, ctx.node_range(call), (), fixes)
        yield from self._made_from_known_integers(ctx, reported, alias)

    def _made_from_known_integers(
        self, ctx: RuleContext, reported: set[int], alias: str | None
    ) -> Iterator[Finding]:
        """What the literal checks above cannot see: data whose ints the analysis knows
        (`torch.tensor(CONFIG["init"], requires_grad=True)`), `torch.arange` of known ints,
        and `nn.Parameter(t)` of an integer tensor `t` (a parameter requires grad)."""
        made_by = {id(t.call): t.qualified for t in ctx.analysis.torch_calls}
        for event in ctx.analysis.events.of(IntegerGradRequest):
            call = event.node
            if not isinstance(call, ast.Call) or id(call) in reported:
                continue
            reported.add(id(call))
            if event.in_place:
                yield self._asked_in_place(ctx, event)
                continue
            data = expr_text(ctx.source, event.target)
            shown = f"`{data}`" if "\n" not in data and len(data) <= 40 else "its data"
            requires = passed_keyword(call, "requires_grad")
            fixes = []
            if requires is not None:
                made = f"{expr_text(ctx.source, call.func)}(...)"
                message = compose(
                    f"Integer tensor with requires_grad=True raises {_NOT_FLOAT.quoted}",
                    f"`{made}` of {shown} makes an integer tensor (the values are ints)",
                    _NOT_FLOAT.in_full,
                )
                if alias is not None and made_by.get(id(call)) in _TAKES_DTYPE:
                    fixes.append(_fix(ctx, requires, passed_keyword(call, "dtype"), alias))
            else:
                message = compose(
                    f"Integer tensor made a parameter raises {_NOT_FLOAT.quoted}",
                    f"{capitalized(shown)} has an integer dtype, and a parameter requires "
                    "grad; convert it first (`.float()`)",
                    _NOT_FLOAT.in_full,
                )
            yield self.finding(message, ctx.node_range(call), (), fixes)

    def _asked_in_place(self, ctx: RuleContext, event: IntegerGradRequest) -> Finding:
        """`ids.requires_grad_()` on a tensor certainly of an integer dtype."""
        name = expr_text(ctx.source, event.target)
        shown = f"`{name}`" if "\n" not in name and len(name) <= 40 else "The tensor"
        loss = event.value.loss
        made = None
        if loss is not None and loss.kind in _DTYPE_LOSSES and loss.node is not event.target:
            made = loss.description
        message = compose(
            f"`requires_grad_()` on an integer tensor raises {_IN_PLACE.quoted}",
            f"{shown} has an integer dtype" + (f": it comes from {made}" if made else ""),
            _IN_PLACE.in_full,
        )
        related = []
        origin = event.value.origin
        if origin is not None and origin is not event.stmt:
            related.append(Related(ctx.node_range(origin), f"{shown} made here"))
        return self.finding(message, ctx.node_range(event.node), related, [])

    def _flag_set_on_integers(self, ctx: RuleContext) -> Iterator[Finding]:
        """`predicted.requires_grad = True` on a tensor known to be integer or bool."""
        for use in ctx.analysis.events.of(AttributeSet):
            if use.attribute != "requires_grad":
                continue
            statement = use.stmt
            if not (isinstance(statement, ast.Assign) and _is_constant(statement.value, True)):
                continue
            if not use.value.integer_valued:
                continue
            name = expr_text(ctx.source, use.target)
            made = use.value.loss.description if use.value.loss is not None else "it"
            lowered = TorchError(ERROR.lower(), _NOT_FLOAT.short.lower())
            message = compose(
                f"`{name}` is integer: requires_grad raises {lowered.quoted}",
                f"`{name}` has an integer dtype: it comes from {made}",
                lowered.in_full,
            )
            related = []
            if use.value.origin is not None:
                related.append(Related(ctx.node_range(use.value.origin), f"`{name}` made here"))
            yield self.finding(message, ctx.node_range(statement), related, [])


def _is_constant(node: ast.expr, value: object) -> bool:
    return isinstance(node, ast.Constant) and node.value is value


def _integer_literal(node: ast.expr) -> bool:
    """A literal made only of int/bool constants (nested lists and tuples allowed)."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, int)
    if isinstance(node, ast.List | ast.Tuple):
        return bool(node.elts) and all(_integer_literal(e) for e in node.elts)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return _integer_literal(node.operand)
    return False


def _dtype_name(dtype: ast.keyword | None) -> str | None:
    if dtype is None or not isinstance(dtype.value, ast.Attribute):
        return None
    return dtype.value.attr


def _integer_reason(qualified: str, call: ast.Call, dtype: ast.keyword | None) -> str | None:
    if dtype is not None:
        name = _dtype_name(dtype)
        if name in _INTEGER_DTYPES and (qualified in _WITH_DTYPE or qualified in _FROM_DATA):
            return f"dtype=torch.{name} is an integer type"
        return None
    if qualified in _FROM_DATA and call.args and _integer_literal(call.args[0]):
        return f"{qualified}(...) of integer literals makes an int64 tensor"
    if qualified in _FROM_BOUNDS and call.args and all(_integer_literal(a) for a in call.args):
        return f"{qualified}(...) with integer bounds makes an int64 tensor"
    if qualified in _FROM_FILL and len(call.args) >= 2 and _integer_literal(call.args[1]):
        return f"{qualified}(...) with an integer fill value makes an int64 tensor"
    if qualified in _ALWAYS_INTEGER:
        return f"{qualified}(...) makes an int64 tensor"
    return None


def _fix(ctx: RuleContext, requires: ast.keyword, dtype: ast.keyword | None, alias: str) -> Fix:
    float32 = f"{alias}.float32"
    if dtype is not None:
        edit = replace_expr(ctx.source, dtype.value, float32)
    else:
        at = ctx.source.from_ast(requires.lineno, requires.col_offset)
        edit = TextEdit(Range(at, at), f"dtype={float32}, ")
    return Fix("Use a floating-point dtype", Safety.SAFE, (edit,))
