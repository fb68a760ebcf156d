"""GG101 `backward-under-no-grad`

## What it does
Finds `.backward()`, `torch.autograd.backward(x)` and `torch.autograd.grad(x, ...)` on a
value that was computed entirely with gradient recording switched off: inside
`with torch.no_grad():`, `with torch.inference_mode():`, after
`torch.set_grad_enabled(False)` (also through a flag variable known to be `False`),
returned by a function (or a module whose `forward` is) decorated with `@torch.no_grad()` /
`@torch.inference_mode()`, returned by a function of the file called under no-grad (unless
it switches recording back on itself), or inside a function every caller calls under
no-grad. Also the
branch that contradicts a grad mode decided by one name:
`with torch.set_grad_enabled(phase == "train"):` then `if phase == "val": loss.backward()`
(that case has no fix: the region is right, the backward is misplaced).

## Why is this bad?
Under no-grad, PyTorch records no history, so the result has no `grad_fn` and
`requires_grad=False`. Backpropagating from it raises

    RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn

Setting `requires_grad=True` on the parameters afterwards does not help: the graph was
never built.

## Example
```python
with torch.no_grad():
    output = model(x)
    loss = criterion(output, y)
loss.backward()
```

## Use instead
```python
output = model(x)
loss = criterion(output, y)
loss.backward()
```

## Fix safety
"Remove torch.no_grad()" unwraps the block (dedenting it and keeping its comments), drops
only that item of a multi-item `with`, removes the decorator, or removes the
`torch.set_grad_enabled(False)` call. It is safe when every statement of the block feeds
the value that is backpropagated. It is unsafe when the block also holds other code (that
code now records history and uses more memory), and always unsafe for a decorator or a
`set_grad_enabled(False)` call, whose region other code may rely on.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator

from gradguard.analysis.facts import (
    BackwardCall,
    GradOff,
    LossKind,
    assigned_names,
    names_feeding,
    read_names,
)
from gradguard.core.findings import Finding, Fix, Related, Safety, Severity, TextEdit
from gradguard.core.messages import NO_GRAD_FN, compose, describe_backward, no_graph_summary
from gradguard.core.rule import Invalid, Rule, RuleContext
from gradguard.rewrite.expressions import expr_text
from gradguard.rewrite.statements import delete_lines, delete_statement, stands_alone
from gradguard.rewrite.with_blocks import drop_nested_with_items, drop_with_item

ERROR = "element 0 of tensors does not require grad and does not have a grad_fn"


class BackwardUnderNoGrad(Rule):
    """Backpropagating from a value computed with gradient recording off."""

    code = "GG101"
    name = "backward-under-no-grad"
    severity = Severity.ERROR
    summary = "backward() on a value computed under torch.no_grad()"

    valid = (
        # Evaluation under no_grad, training outside it.
        """
import torch
from torch import nn
model = nn.Linear(3, 1)
criterion = nn.MSELoss()
x, y = torch.randn(8, 3), torch.randn(8, 1)
with torch.no_grad():
    val_loss = criterion(model(x), y)
loss = criterion(model(x), y)
loss.backward()
""",
        # backward() inside no_grad is fine when the loss was computed outside it.
        """
import torch
from torch import nn
model = nn.Linear(3, 1)
loss = model(torch.randn(2, 3)).sum()
with torch.no_grad():
    loss.backward()
""",
        # enable_grad() re-enables recording inside no_grad.
        """
import torch
from torch import nn
model = nn.Linear(3, 1)
with torch.no_grad():
    with torch.enable_grad():
        loss = model(torch.randn(2, 3)).sum()
loss.backward()
""",
        # A local function that happens to be called no_grad.
        """
import torch
def no_grad():
    import contextlib
    return contextlib.nullcontext()
w = torch.ones(3, requires_grad=True)
with no_grad():
    loss = (w * 2).sum()
loss.backward()
""",
        # A leaf created with requires_grad=True under no_grad still requires grad.
        """
import torch
with torch.no_grad():
    w = torch.zeros(3, requires_grad=True)
w.sum().backward()
""",
    )

    invalid = (
        Invalid(
            """
import torch
from torch import nn
model = nn.Linear(3, 1)
for phase in ["train", "val"]:
    with torch.set_grad_enabled(phase == "train"):
        loss = model(torch.randn(4, 3)).pow(2).mean()
    if phase == "val":
        loss.backward()
""",
            error=ERROR,
        ),
        Invalid(
            """
import torch
from torch import nn
model = nn.Linear(3, 1)
criterion = nn.MSELoss()
x, y = torch.randn(8, 3), torch.randn(8, 1)
with torch.no_grad():
    out = model(x)
    loss = criterion(out, y)
loss.backward()
""",
            fixed="""
import torch
from torch import nn
model = nn.Linear(3, 1)
criterion = nn.MSELoss()
x, y = torch.randn(8, 3), torch.randn(8, 1)
out = model(x)
loss = criterion(out, y)
loss.backward()
""",
            error=ERROR,
        ),
        Invalid(
            """
import torch as T
from torch import nn
model = nn.Linear(3, 1)
with T.inference_mode():
    loss = model(T.randn(2, 3)).sum()
    print("computed")
T.autograd.backward(loss)
""",
            fixed="""
import torch as T
from torch import nn
model = nn.Linear(3, 1)
loss = model(T.randn(2, 3)).sum()
print("computed")
T.autograd.backward(loss)
""",
            unsafe_fix=True,
            error=ERROR,
        ),
        Invalid(
            """
import torch
from torch import nn
model = nn.Linear(3, 1)
@torch.no_grad()
def compute_loss(x):
    return model(x).pow(2).mean()
loss = compute_loss(torch.randn(4, 3))
loss.backward()
""",
            fixed="""
import torch
from torch import nn
model = nn.Linear(3, 1)
def compute_loss(x):
    return model(x).pow(2).mean()
loss = compute_loss(torch.randn(4, 3))
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
training = False
with torch.set_grad_enabled(training), open("log.txt", "w") as log:
    loss = model(torch.randn(2, 3)).sum()
loss.backward()
""",
            fixed="""
import torch
from torch import nn
model = nn.Linear(3, 1)
training = False
with open("log.txt", "w") as log:
    loss = model(torch.randn(2, 3)).sum()
loss.backward()
""",
            error=ERROR,
        ),
        # Nested regions: all of them go, or the value still has no history.
        Invalid(
            """
import torch
from torch import nn
model = nn.Linear(3, 1)
with torch.no_grad():
    x = torch.randn(2, 3)
    with torch.inference_mode():
        loss = model(x).sum()
loss.backward()
""",
            fixed="""
import torch
from torch import nn
model = nn.Linear(3, 1)
x = torch.randn(2, 3)
loss = model(x).sum()
loss.backward()
""",
            unsafe_fix=True,
            error=ERROR,
        ),
    )

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        """One finding per no-grad region that a backpropagated value comes from."""
        reported: set[int] = set()
        for event, loss in ctx.analysis.backpropagated_without_history(LossKind.NO_GRAD):
            off = loss.grad_off
            if off is None or id(off.node) in reported:
                continue
            reported.add(id(off.node))
            yield self._finding(ctx, event, off)

    def _finding(self, ctx: RuleContext, event: BackwardCall, off: GradOff) -> Finding:
        assert event.value.loss is not None
        name = expr_text(ctx.source, event.target)
        call = _describe_call(ctx, event)
        computed = event.value.loss.node
        where = " inside ".join(region.description for region in _regions(off))
        message = compose(
            no_graph_summary(name, event.via),
            f"It is computed under {where}, so {call} (line {event.call.lineno}) finds no "
            "graph to go through; compute it with gradient recording on",
            NO_GRAD_FN.in_full,
        )
        related = [
            Related(ctx.node_range(event.call), f"{call} raises: {ERROR}"),
            Related(ctx.node_range(computed), f"`{name}` computed here without gradient tracking"),
        ]
        fixes = list(_fixes(ctx, event, off))
        return self.finding(message, ctx.node_range(off.node), related, fixes)


def _describe_call(ctx: RuleContext, event: BackwardCall) -> str:
    return describe_backward(expr_text(ctx.source, event.target), event.via)


def _regions(off: GradOff) -> list[GradOff]:
    """`off` and the regions it is nested in, innermost first."""
    chain = [off]
    while chain[-1].outer is not None:
        chain.append(chain[-1].outer)
    return chain


def _fixes(ctx: RuleContext, event: BackwardCall, off: GradOff) -> Iterable[Fix]:
    regions = _regions(off)
    if off.conditional:
        return  # the region is right on other paths: the backward is what is misplaced
    if len(regions) > 1:
        yield from _nested_fix(ctx, regions)
        return
    title = f"Remove {off.description}"
    owner = off.owner
    if isinstance(owner, ast.With | ast.AsyncWith):
        index = _item_index(off)
        if index is None:
            return
        feeding = _feeding_names(ctx, event)
        safe = all(_feeds(stmt, feeding) for stmt in owner.body)
        source, with_stmt, item = ctx.source, owner, index

        def build() -> tuple[TextEdit, ...] | None:
            edit = drop_with_item(source, with_stmt, item)
            return (edit,) if edit is not None else None

        # libcst is imported only when the edit is needed (applied or serialised).
        yield Fix(title, Safety.SAFE if safe else Safety.UNSAFE, build)
    elif isinstance(owner, ast.FunctionDef | ast.AsyncFunctionDef):
        decorator = off.node
        assert isinstance(decorator, ast.expr)
        first = decorator.lineno - 1
        line = ctx.source.line(first)
        at = line.index("@") if "@" in line else -1
        if at < 0 or line[:at].strip() or decorator.end_lineno != decorator.lineno:
            return
        start = ctx.source.from_ast(decorator.lineno, decorator.col_offset).character
        end = ctx.source.from_ast(decorator.lineno, decorator.end_col_offset or 0).character
        rest = line[end:].strip()
        if (rest and not rest.startswith("#")) or line[at + 1 : start].strip():
            return  # the line holds more than the decorator (its own comment goes with it)
        yield Fix(title, Safety.UNSAFE, (delete_lines(ctx.source, first, first),))
    elif isinstance(owner, ast.stmt) and stands_alone(ctx.source, owner):
        yield Fix(title, Safety.UNSAFE, (delete_statement(ctx.source, owner),))


def _item_index(region: GradOff) -> int | None:
    """The position of the region's item in its `with` statement (None for a decorator or
    a statement)."""
    owner = region.owner
    if not isinstance(owner, ast.With | ast.AsyncWith):
        return None
    return next((i for i, it in enumerate(owner.items) if it.context_expr is region.node), None)


def _nested_fix(ctx: RuleContext, regions: list[GradOff]) -> Iterable[Fix]:
    """Nested `with` regions (`with no_grad(): with inference_mode(): ...`): removing only
    the innermost would leave the value computed without gradients; remove them all."""
    drops: list[tuple[ast.With | ast.AsyncWith, int]] = []
    for region in regions:
        owner, index = region.owner, _item_index(region)
        if not isinstance(owner, ast.With | ast.AsyncWith) or index is None:
            return
        drops.append((owner, index))
    title = "Remove " + " and ".join(dict.fromkeys(r.description for r in regions))
    source = ctx.source

    def build() -> tuple[TextEdit, ...] | None:
        edit = drop_nested_with_items(source, drops)
        return (edit,) if edit is not None else None

    yield Fix(title, Safety.UNSAFE, build)


def _feeding_names(ctx: RuleContext, event: BackwardCall) -> set[str]:
    scope = event.function.body if event.function is not None else ctx.tree.body
    return names_feeding(scope, read_names(event.target))


def _feeds(stmt: ast.stmt, feeding: set[str]) -> bool:
    """True for an assignment whose every target feeds the backpropagated value."""
    if isinstance(stmt, ast.Assign):
        targets: set[str] = set()
        for target in stmt.targets:
            targets |= assigned_names(target)
    elif isinstance(stmt, ast.AugAssign | ast.AnnAssign) and stmt.value is not None:
        targets = assigned_names(stmt.target)
    else:
        return False
    return bool(targets) and targets <= feeding
