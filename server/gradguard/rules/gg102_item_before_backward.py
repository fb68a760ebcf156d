"""GG102 `item-before-backward`

## What it does
Finds a value that is backpropagated after it was turned into plain Python data with
`.item()`, `float()`, `int()`, `.tolist()` or `.numpy()`, or rebuilt from such data with
`torch.tensor(loss.item(), requires_grad=True)`.

`.item()` gives a Python number whatever it is called on (a tensor or a numpy array, the
objects of training code that have it), even when the analysis does not know what produced
the receiver (a criterion given as a parameter); a file that defines its own `item()` (a
small autodiff engine's scalar) keeps such receivers unknown.

A number taken out of a tensor with history and then added to the loss that is
backpropagated (`loss = l1 + adv.item()`) is reported too: backward runs without an error,
but that term is a constant and trains nothing.

Numbers of a tensor that certainly never had a history (a fresh `torch.randn(...)`, data)
wrapped again with `requires_grad=True` make the leaf the code means to differentiate: it
lost nothing, so that re-wrap is not reported.

## Why is this bad?
`.item()` and friends copy the number out of the tensor and leave the autograd graph behind.
`loss = criterion(out, y).item(); loss.backward()` raises

    AttributeError: 'float' object has no attribute 'backward'

Wrapping the number back into a tensor "fixes" the error but not the bug:
`torch.tensor(loss.item(), requires_grad=True).backward()` runs, yet no gradient reaches the
model, because the new tensor is a leaf with no history. The model silently stops learning.

## Example
```python
loss = criterion(model(x), y).item()
loss.backward()
```

## Use instead
```python
loss = criterion(model(x), y)
loss.backward()
loss = loss.item()  # a number for logging, after backward
```

## Fix safety
"Move .item() after .backward()" keeps the tensor in the assignment and re-applies the
conversion to the same name right after the `backward()` call, so later uses still get a
number (`.numpy()` becomes `.detach().numpy()`, since the tensor now requires grad). For the
`torch.tensor(...)` rewrap, the fix keeps the original tensor. The fix is safe when the name
is not used between the assignment and `backward()`; otherwise those uses now see a tensor
and the fix is unsafe.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from gradguard.analysis.facts import BackwardCall, Loss, LossKind, dotted, reads_key
from gradguard.core.findings import Finding, Fix, Related, Safety, Severity, TextEdit
from gradguard.core.messages import NO_GRAD_FN, compose, describe_backward, no_graph_summary
from gradguard.core.rule import Invalid, Rule, RuleContext
from gradguard.rewrite.expressions import expr_text, replace_expr
from gradguard.rewrite.statements import (
    delete_statement,
    ends_its_line,
    insert_after,
    stands_alone,
    trailing_comment,
)

_TYPE_NAMES = {
    ".item()": "float",
    "float()": "float",
    "int()": "int",
    "bool()": "bool",
    ".tolist()": "float",  # a one-element loss; "list" for more elements
    ".numpy()": "numpy.ndarray",
}
_REAPPLY = {
    ".item()": "{}.item()",
    ".tolist()": "{}.tolist()",
    ".numpy()": "{}.detach().numpy()",
    "float()": "float({})",
    "int()": "int({})",
    "bool()": "bool({})",
}


class ItemBeforeBackward(Rule):
    """Backpropagating from a number taken out of the graph."""

    code = "GG102"
    name = "item-before-backward"
    severity = Severity.ERROR
    summary = "backward() on a value converted with .item()/float()/.tolist()/.numpy()"

    valid = (
        # .item() for logging after backward, stored under another name.
        """
import torch
from torch import nn
model = nn.Linear(3, 1)
criterion = nn.MSELoss()
total = 0.0
for _ in range(3):
    loss = criterion(model(torch.randn(4, 3)), torch.randn(4, 1))
    loss.backward()
    loss_value = loss.item()
    total += loss.item()
""",
        # A user class with item() and backward() methods.
        """
import torch
class Meter:
    def item(self):
        return self
    def backward(self):
        return None
m = Meter()
v = m.item()
v.backward()
""",
    )

    invalid = (
        Invalid(
            """
import torch
from torch import nn
model = nn.Linear(3, 1)
criterion = nn.MSELoss()
loss = criterion(model(torch.randn(4, 3)), torch.randn(4, 1)).item()
loss.backward()
print(f"loss {loss:.3f}")
""",
            fixed="""
import torch
from torch import nn
model = nn.Linear(3, 1)
criterion = nn.MSELoss()
loss = criterion(model(torch.randn(4, 3)), torch.randn(4, 1))
loss.backward()
loss = loss.item()
print(f"loss {loss:.3f}")
""",
            error="'float' object has no attribute 'backward'",
        ),
        Invalid(
            """
import torch
from torch import nn
model = nn.Linear(3, 1)
loss = float(model(torch.randn(4, 3)).mean())
loss.backward()
""",
            fixed="""
import torch
from torch import nn
model = nn.Linear(3, 1)
loss = model(torch.randn(4, 3)).mean()
loss.backward()
loss = float(loss)
""",
            error="'float' object has no attribute 'backward'",
        ),
        Invalid(
            """
import torch
import torch.nn.functional as F
from torch import nn
model = nn.Linear(3, 1)
loss = F.mse_loss(model(torch.randn(4, 3)), torch.randn(4, 1))
loss = torch.tensor(loss.item(), requires_grad=True)
loss.backward()
""",
            fixed="""
import torch
import torch.nn.functional as F
from torch import nn
model = nn.Linear(3, 1)
loss = F.mse_loss(model(torch.randn(4, 3)), torch.randn(4, 1))
loss.backward()
""",
            error=None,
        ),
    )

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        """One finding per conversion whose result is backpropagated."""
        reported: set[int] = set()
        for event in ctx.analysis.backward_calls:
            loss = event.value.loss
            if loss is None:
                continue
            if loss.kind is LossKind.CONVERSION:
                conversion, rewrap = loss, None
            elif (
                loss.kind is LossKind.REWRAP
                and loss.inner
                and loss.inner.kind is LossKind.CONVERSION
                and not (loss.inner.converted_fresh and _requires_grad(loss.node))
            ):
                conversion, rewrap = loss.inner, loss
            else:
                continue
            anchor = rewrap or conversion
            if id(anchor.node) in reported:
                continue
            reported.add(id(anchor.node))
            yield self._finding(ctx, event, conversion, rewrap)
        yield from self._converted_terms(ctx, reported)

    def _converted_terms(self, ctx: RuleContext, reported: set[int]) -> Iterator[Finding]:
        """A number converted from a tensor with history, added to the value that is
        backpropagated (`l1 + adv.item()`): backward runs, the term is a constant."""
        for event in ctx.analysis.backward_calls:
            terms = [t for t in event.value.inert_terms if t.kind is LossKind.CONVERSION]
            for term in sorted(terms, key=lambda t: getattr(t.node, "lineno", 0)):
                if id(term.node) in reported:
                    continue
                reported.add(id(term.node))
                name = expr_text(ctx.source, event.target)
                call = describe_backward(name, event.via)
                message = compose(
                    f"A term of `{name}` went through {term.description}: it is a constant, "
                    "so no gradient reaches what it was computed from",
                    f"{term.description} (line {term.node.lineno}) turns a tensor with "  # type: ignore[attr-defined]
                    f"autograd history into plain data, which is then added to `{name}`; "
                    f"{call} (line {event.call.lineno}) runs but trains nothing through it. "
                    f"Add the tensor itself and take {term.description} for logging only",
                )
                related = [Related(ctx.node_range(event.call), f"{call} runs without it")]
                yield self.finding(message, ctx.node_range(term.node), related, [])

    def _finding(
        self, ctx: RuleContext, event: BackwardCall, conversion: Loss, rewrap: Loss | None
    ) -> Finding:
        name = expr_text(ctx.source, event.target)
        call = describe_backward(name, event.via)
        message, related_text = _message(name, call, event, conversion, rewrap)
        primary = ctx.node_range(conversion.node if rewrap is None else rewrap.node)
        related = [
            Related(ctx.node_range(event.call), related_text),
            Related(
                ctx.node_range(conversion.node), f"{conversion.description} leaves the graph here"
            ),
        ]
        fixes = _fix(ctx, event, conversion, rewrap)
        return self.finding(message, primary, related, [fixes] if fixes else [])


def _message(
    name: str, call: str, event: BackwardCall, conversion: Loss, rewrap: Loss | None
) -> tuple[str, str]:
    """The finding's message and the text of its related information at the backward call."""
    where = f"line {event.call.lineno}"
    converted = conversion.description
    if rewrap is None:
        type_name = _TYPE_NAMES.get(converted, "float")
        error = f"'{type_name}' object has no attribute 'backward'"
        extra = {
            ".tolist()": "For a tensor with more than one element the object is a 'list'",
            ".numpy()": "And .numpy() itself raises "
            '"Can\'t call numpy() on Tensor that requires grad"',
        }.get(converted, "")
        message = compose(
            f'`{name}` is a {type_name} after {converted}: backward() raises "{error}"',
            f"Converting with {converted} leaves the autograd graph, so {call} ({where}) has no "
            f"tensor to backpropagate from; take {converted} after backward()",
            extra,
        )
        return message, f"{call} fails here: AttributeError: {error}"
    if _requires_grad(rewrap.node):
        message = compose(
            f"`{name}` is a new leaf rebuilt from {converted}: backward() runs but no gradient "
            "reaches the model",
            f"{rewrap.description.replace('(...)', '(..., requires_grad=True)')} makes a tensor "
            f"with no history, so {call} ({where}) stops at it; backpropagate the original tensor",
        )
        return message, f"{call} computes no gradient for the model"
    message = compose(
        no_graph_summary(name, event.via),
        f"It is rebuilt from {converted} by {rewrap.description}, which has no history, so "
        f"{call} ({where}) finds no graph to go through",
        NO_GRAD_FN.in_full,
    )
    return message, f"{call} fails here: {NO_GRAD_FN.text}"


def _requires_grad(node: ast.AST) -> bool:
    if not isinstance(node, ast.Call):
        return False
    return any(
        kw.arg == "requires_grad" and isinstance(kw.value, ast.Constant) and kw.value.value is True
        for kw in node.keywords
    )


def _converted(node: ast.AST) -> ast.expr | None:
    """The tensor expression a conversion call converts."""
    if not isinstance(node, ast.Call):
        return None
    if isinstance(node.func, ast.Attribute) and not node.args:
        return node.func.value
    if isinstance(node.func, ast.Name) and len(node.args) == 1 and not node.keywords:
        return node.args[0]
    return None


def _fix(
    ctx: RuleContext, event: BackwardCall, conversion: Loss, rewrap: Loss | None
) -> Fix | None:
    outer = rewrap.node if rewrap else conversion.node
    if rewrap is not None:
        assert isinstance(rewrap.node, ast.Call)
        if not rewrap.node.args or rewrap.node.args[0] is not conversion.node:
            return None
    tensor = _converted(conversion.node)
    key = dotted(event.target)
    assignment = _assignment_of(ctx, outer)
    if tensor is None or key is None or assignment is None:
        return None
    target = assignment.targets[0]
    if dotted(target) != key or event.via != "backward":
        return None
    backward_stmt = event.stmt
    if not (isinstance(backward_stmt, ast.Expr) and backward_stmt.value is event.call):
        return None
    if not ends_its_line(ctx.source, backward_stmt):
        return None  # the moved line would land after whatever follows on that line
    following = list(ctx.analysis.statements_after(assignment))
    if backward_stmt not in following:
        return None
    between = following[: following.index(backward_stmt)]
    safe = not any(reads_key(stmt, key) for stmt in between)
    edits: list[TextEdit] = []
    comment = ""
    if dotted(tensor) == key:
        if not stands_alone(ctx.source, assignment):
            return None
        edits.append(delete_statement(ctx.source, assignment))
        comment = trailing_comment(ctx.source, assignment)  # it moves with the statement
    else:
        edits.append(replace_expr(ctx.source, assignment.value, expr_text(ctx.source, tensor)))
    if rewrap is None:
        reapply = _REAPPLY.get(conversion.description, "{}.item()").format(key)
        edits.append(insert_after(ctx.source, backward_stmt, f"{key} = {reapply}{comment}"))
        title = f"Move {conversion.description} after .backward()"
    else:
        title = f"Keep the tensor instead of {rewrap.description}"
    return Fix(title, Safety.SAFE if safe else Safety.UNSAFE, tuple(edits))


def _assignment_of(ctx: RuleContext, node: ast.AST) -> ast.Assign | None:
    """The single-target assignment whose whole right-hand side is `node`."""
    for stmt in ast.walk(ctx.tree):
        if isinstance(stmt, ast.Assign) and stmt.value is node and len(stmt.targets) == 1:
            return stmt
    return None
