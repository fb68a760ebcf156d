"""GG105 `tensor-rewrap-breaks-graph`

## What it does
Finds `backward()` on a value built by `torch.tensor(...)` (or `torch.as_tensor`,
`torch.from_numpy`, the legacy `torch.autograd.Variable`) from tensors that carry autograd
history: `torch.tensor([loss_a, loss_b])`, `torch.tensor(out)`, `Variable(loss)`. Also when
what was wrapped is not known, if the copy (made without `requires_grad`) is
backpropagated: that backward raises whatever the data were.
`torch.as_tensor(t)` of a tensor returns `t` itself and keeps its history. And when the
wrapped data had already been cut from its graph (`torch.tensor(out.data)`,
`torch.tensor(out.detach())`, an output computed under `torch.no_grad()`): the copy is
backpropagated and raises just the same. (Re-wrapping a number taken out with `.item()` or
an array from `.numpy()` is GG102.)

The copy need not be what is backpropagated: a copy of tensors with history that feeds the
loss through any other op is reported too (`torch.exp(-log_vars) * torch.tensor(task_losses)`
of an uncertainty weighting: the loss has history through `log_vars`, so backward runs, and
the model that computed the task losses gets nothing). A copy given to a loss as its
*target* (`F.mse_loss(q, torch.tensor(r + gamma * q_next))`) is constant on purpose and is
not reported, nor is a copy whose `.grad` the code reads.

## Why is this bad?
`torch.tensor` copies the *values* into a brand-new leaf tensor; the history of its inputs
is dropped. Backpropagating from the copy raises

    RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn

or, with `requires_grad=True`, runs but sends no gradient to the model.

## Example
```python
loss = torch.tensor([loss_a, loss_b]).sum()
loss.backward()
```

## Use instead
```python
loss = torch.stack([loss_a, loss_b]).sum()
loss.backward()
```

## Fix safety
"Keep the graph" replaces `torch.tensor([a, b])` with `torch.stack([a, b])` and
`torch.tensor(t)` with `t` (only when no `dtype`/`device` argument is given). The values are
the same and gradients now flow, which is what the code means; the fix is safe. When the
wrapped values are not known to be tensors with history, it is unsafe (`torch.stack` does
not take plain numbers).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from gradguard.analysis.facts import (
    BackwardCall,
    Grad,
    GradRead,
    Loss,
    LossKind,
    module_nodes_of,
    real_cut,
)
from gradguard.core.findings import Finding, Fix, Related, Safety, Severity
from gradguard.core.messages import NO_GRAD_FN, compose, no_graph_summary
from gradguard.core.rule import Invalid, Rule, RuleContext
from gradguard.rewrite.expressions import expr_text, replace_expr

ERROR = "element 0 of tensors does not require grad and does not have a grad_fn"


class TensorRewrapBreaksGraph(Rule):
    """`torch.tensor(...)` of tensors with history on the way to backward()."""

    code = "GG105"
    name = "tensor-rewrap-breaks-graph"
    severity = Severity.ERROR
    summary = "torch.tensor(...) of tensors with history cuts the graph before backward()"

    valid = (
        """
import torch
from torch import nn
model = nn.Linear(3, 1)
a = model(torch.randn(2, 3)).sum()
b = model(torch.randn(2, 3)).mean()
loss = torch.stack([a, b]).sum()
loss.backward()
targets = torch.tensor([1.0, 2.0])
""",
        # `torch.as_tensor` of a tensor is that tensor: its history is kept.
        """
import torch
from torch import nn
model = nn.Linear(3, 1)
loss = torch.as_tensor(model(torch.randn(2, 3)).sum())
loss.backward()
""",
        # A leaf made on purpose from a model's output, to read the gradient with respect to
        # it (not to train the model).
        """
import torch
from torch import nn
encoder = nn.Linear(3, 2)
code = torch.tensor(encoder(torch.randn(4, 3)).tolist(), requires_grad=True)
energy = (code**2).sum()
energy.backward()
print(code.grad)
""",
        # Detached data re-wrapped as a target, or as a leaf on purpose: the loss keeps the
        # model's graph, the leaf gets its gradient.
        """
import torch
import torch.nn.functional as F
from torch import nn
model, teacher = nn.Linear(3, 1), nn.Linear(3, 1)
x = torch.randn(4, 3)
target = torch.tensor(teacher(x).detach())
loss = F.mse_loss(model(x), target)
loss.backward()
x_adv = torch.tensor(x.detach(), requires_grad=True)
model(x_adv).sum().backward()
print(x_adv.grad)
""",
        # Legacy code wrapping its inputs and targets in `Variable`: they never had history.
        """
import torch
from torch import nn
from torch.autograd import Variable
model = nn.Linear(3, 1)
inputs = Variable(torch.randn(4, 3), requires_grad=True)
targets = Variable(torch.randn(4, 1))
loss = nn.functional.mse_loss(model(inputs), targets)
loss.backward()
print(inputs.grad.shape)
""",
    )

    invalid = (
        Invalid(
            """
import torch
from torch import nn
model = nn.Linear(3, 1)
a = model(torch.randn(2, 3)).sum()
b = model(torch.randn(2, 3)).mean()
loss = torch.tensor([a, b]).sum()
loss.backward()
""",
            fixed="""
import torch
from torch import nn
model = nn.Linear(3, 1)
a = model(torch.randn(2, 3)).sum()
b = model(torch.randn(2, 3)).mean()
loss = torch.stack([a, b]).sum()
loss.backward()
""",
            error=ERROR,
        ),
        # Forced to require grad, the copy runs backward and trains nothing.
        Invalid(
            """
import torch
from torch import nn
model = nn.Linear(3, 1)
a = model(torch.randn(2, 3)).sum()
b = model(torch.randn(2, 3)).mean()
loss = torch.tensor([a, b], requires_grad=True).sum()
loss.backward()
""",
            fixed="""
import torch
from torch import nn
model = nn.Linear(3, 1)
a = model(torch.randn(2, 3)).sum()
b = model(torch.randn(2, 3)).mean()
loss = torch.stack([a, b]).sum()
loss.backward()
""",
        ),
        # The legacy `Variable(t)` makes a new leaf without `t`'s history (torch 2.13.0).
        Invalid(
            """
import torch
from torch import nn
from torch.autograd import Variable
model = nn.Linear(3, 1)
loss = Variable(model(torch.randn(4, 3)).pow(2).mean())
loss.backward()
""",
            fixed="""
import torch
from torch import nn
from torch.autograd import Variable
model = nn.Linear(3, 1)
loss = model(torch.randn(4, 3)).pow(2).mean()
loss.backward()
""",
            error=ERROR,
        ),
        # The data were cut by `.data` before the copy: the copy has no graph either.
        Invalid(
            """
import torch
import torch.nn.functional as F
from torch import nn
model = nn.Linear(3, 1)
x, y = torch.randn(4, 3), torch.randn(4, 1)
pred = torch.tensor(model(x).data)
loss = F.mse_loss(pred, y)
loss.backward()
""",
            error=ERROR,
        ),
    )

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        """One finding per re-wrap whose result is backpropagated."""
        alias = ctx.torch_alias
        reported: set[int] = set()
        for event in ctx.analysis.backward_calls:
            loss = event.value.loss
            if loss is None or loss.kind is not LossKind.REWRAP:
                continue
            if not loss.wrapped_history and not _raises_whatever_was_wrapped(event, loss):
                continue
            if loss.inner is not None and loss.inner.kind is LossKind.CONVERSION:
                continue  # GG102's case
            if id(loss.node) in reported:
                continue
            if event.value.grad is Grad.TRACKED and _gradient_read(ctx, loss.node):
                continue  # a leaf made on purpose, to take the gradient with respect to it
            reported.add(id(loss.node))
            name = expr_text(ctx.source, event.target)
            message = _message(name, loss.description, event)
            related = [Related(ctx.node_range(event.call), f"`{name}.backward()`")]
            fix = _fix(ctx, loss, alias)
            yield self.finding(message, ctx.node_range(loss.node), related, [fix] if fix else [])
        yield from self._copies_in_losses(ctx, alias, reported)

    def _copies_in_losses(
        self, ctx: RuleContext, alias: str | None, reported: set[int]
    ) -> Iterator[Finding]:
        """Copies of tensors with history that feed a backpropagated value through other
        ops (`torch.exp(-log_vars) * torch.tensor(task_losses)`): the backward runs, and
        through the copy no gradient reaches what the copied tensors came from."""
        for event in ctx.analysis.backward_calls:
            for copy in sorted(event.value.copies, key=_line):
                if id(copy.node) in reported or _gradient_read(ctx, copy.node):
                    continue
                reported.add(id(copy.node))
                name = expr_text(ctx.source, event.target)
                keep = "the tensor itself" if copy.wrapped_tensor else "torch.stack"
                message = compose(
                    f"`{name}` is computed from a copy that {copy.description} made of tensors "
                    "with autograd history: backward() runs, but no gradient reaches what "
                    "they were computed from",
                    f"{copy.description} (line {_line(copy)}) copies their values into a new "
                    f"tensor without history, which then feeds `{name}.backward()` (line "
                    f"{event.call.lineno}); use {keep} to keep the graph",
                )
                related = [Related(ctx.node_range(event.call), f"`{name}.backward()`")]
                fix = _fix(ctx, copy, alias)
                yield self.finding(
                    message, ctx.node_range(copy.node), related, [fix] if fix else []
                )


def _raises_whatever_was_wrapped(event: BackwardCall, loss: Loss) -> bool:
    """Data of unknown history, or data already cut from its graph (`out.data`, a detached
    tensor, an output computed under no_grad), re-wrapped without `requires_grad`: the new
    tensor never requires grad, so the backward raises whatever the data were."""
    cut = _earlier_cut(loss)
    return (loss.wrapped_unknown or cut is not None) and event.value.grad is Grad.UNTRACKED


def _earlier_cut(loss: Loss) -> Loss | None:
    """Where the re-wrapped data had already lost a history it had (`.data`, `.detach()`,
    no_grad, argmax...); None for a fresh leaf, a literal or an unknown reason."""
    return real_cut(loss.inner) if loss.inner is not None else None


def _gradient_read(ctx: RuleContext, rewrap: ast.AST) -> bool:
    """Whether the new leaf is bound to a name whose `.grad` the file reads."""
    read = {ast.unparse(event.target) for event in ctx.analysis.events.of(GradRead)}
    return any(
        node.value is rewrap and any(ast.unparse(target) in read for target in node.targets)
        for node in module_nodes_of(ctx.tree, ast.Assign)
    )


def _message(name: str, rewrap: str, event: BackwardCall) -> str:
    """The summary depends on whether the new leaf requires grad (then backward runs)."""
    loss = event.value.loss
    keep = "torch.stack"
    if loss is not None and loss.wrapped_tensor:
        keep = "the tensor itself"
    detail = (
        f"{rewrap} puts the values of tensors that carry autograd history into a new leaf, "
        f"cutting the graph before `{name}.backward()` (line {event.call.lineno}); use "
        f"{keep} to keep the graph"
    )
    cut = _earlier_cut(loss) if loss is not None else None
    if loss is not None and not loss.wrapped_history and cut is not None:
        detail = (
            f"{rewrap} copies values that had already lost their history at "
            f"{cut.description} (line {_line(cut)}) into a new tensor that does not require "
            f"grad, so `{name}.backward()` (line {event.call.lineno}) has no graph to run "
            f"through; pass the tensor itself, from before {cut.description}"
        )
    elif loss is not None and not loss.wrapped_history:
        detail = (
            f"{rewrap} copies the values it is given into a new tensor that does not require "
            f"grad, so `{name}.backward()` (line {event.call.lineno}) has no graph to run "
            "through; if those values are tensors with history, torch.stack keeps the graph"
        )
    if event.value.grad is Grad.TRACKED:
        what = "is a new leaf made" if event.value.leaf else "grows from a leaf made"
        summary = f"`{name}` {what} by {rewrap}: backward() runs, no gradient "
        return compose(summary + "reaches the model", detail)
    return compose(no_graph_summary(name, event.via), detail, NO_GRAD_FN.in_full)


def _line(loss: Loss) -> int:
    return int(getattr(loss.node, "lineno", 0))


def _fix(ctx: RuleContext, loss: Loss, alias: str | None) -> Fix | None:
    """Stack a list of tensors (`torch.stack(losses)`), or use a wrapped tensor as it is;
    nothing when what was wrapped is not known to be either."""
    node = loss.node
    if not isinstance(node, ast.Call) or len(node.args) != 1 or _earlier_cut(loss) is not None:
        return None  # (data cut earlier: unwrapping it would not bring the graph back)
    if any(kw.arg != "requires_grad" for kw in node.keywords):
        return None
    data = node.args[0]
    if isinstance(data, ast.Starred):
        return None
    if isinstance(data, ast.List | ast.Tuple | ast.ListComp) or loss.wrapped_sequence:
        if alias is None:
            return None
        text = f"{alias}.stack({expr_text(ctx.source, data)})"
    elif loss.wrapped_tensor:
        text = expr_text(ctx.source, data)
    else:
        return None
    # Data of unknown history may be plain numbers, which torch.stack does not take.
    safety = Safety.SAFE if loss.wrapped_history else Safety.UNSAFE
    return Fix("Keep the graph", safety, (replace_expr(ctx.source, node, text),))
