"""GG108 `non-differentiable-op-in-loss`

## What it does
Finds `backward()` on a value whose only path to the model goes through an operation that
has no gradient: `argmax` / `argmin` / `argsort`, comparisons (`out > 0`, `torch.eq`),
integer casts (`.long()`, `.int()`, `.bool()`). Also a backpropagated value whose only path
to the model goes through an op whose gradient is zero everywhere it is defined:
`torch.round`, `floor`, `ceil`, `sign`, `trunc` (and their tensor methods).

## Why is this bad?
These operations return integer or boolean tensors (or indices) that autograd cannot
differentiate: the result does not require grad, and a `.float()` afterwards does not bring
the graph back. Backpropagating raises

    RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn

Rounding-like ops do keep a `grad_fn`, so backward runs, but the gradient they pass back is
zero: every gradient reaching the model is zero and it never learns.

## Example
```python
predicted = model(x).argmax(dim=1).float()
loss = criterion(predicted, y.float())
loss.backward()
```

## Use instead
```python
logits = model(x)
loss = nn.functional.cross_entropy(logits, y)  # a differentiable surrogate
loss.backward()
```

## Fix safety
There is no automatic fix: the loss needs a differentiable surrogate (cross-entropy
instead of accuracy, a soft threshold instead of a comparison), which only the author can
choose.
"""

from __future__ import annotations

from collections.abc import Iterator

from gradguard.analysis.facts import Grad, LossKind
from gradguard.core.findings import Finding, Related, Severity
from gradguard.core.messages import NO_GRAD_FN, compose, no_graph_summary
from gradguard.core.rule import Invalid, Rule, RuleContext
from gradguard.rewrite.expressions import expr_text

ERROR = "element 0 of tensors does not require grad and does not have a grad_fn"


class NonDifferentiableOpInLoss(Rule):
    """A loss computed only through operations without gradients."""

    code = "GG108"
    name = "non-differentiable-op-in-loss"
    severity = Severity.ERROR
    summary = "backward() through argmax, comparisons or integer casts only"

    valid = (
        # A straight-through rounding: the gradient skips the round.
        """
import torch
from torch import nn
model = nn.Linear(3, 1)
x = torch.randn(4, 3)
soft = torch.sigmoid(model(x))
hard = soft + (torch.round(soft) - soft).detach()
loss = (hard - 1.0).pow(2).mean()
loss.backward()
assert model.weight.grad.abs().sum() > 0
""",
        # Accuracy for logging; the loss is differentiable.
        """
import torch
from torch import nn
model = nn.Linear(3, 2)
x, y = torch.randn(4, 3), torch.tensor([0, 1, 1, 0])
logits = model(x)
accuracy = (logits.argmax(dim=1) == y).float().mean()
loss = nn.functional.cross_entropy(logits, y)
loss.backward()
""",
        # A mask from a comparison multiplies a differentiable value.
        """
import torch
from torch import nn
model = nn.Linear(3, 1)
out = model(torch.randn(4, 3))
loss = (out * (out > 0).float()).sum()
loss.backward()
""",
    )

    invalid = (
        # Rounded predictions: backward runs, every gradient is zero.
        Invalid(
            """
import torch
from torch import nn
model = nn.Linear(3, 1)
x, y = torch.randn(4, 3), torch.tensor([[0.0], [1.0], [1.0], [0.0]])
predicted = torch.round(torch.sigmoid(model(x)))
loss = nn.functional.mse_loss(predicted, y)
loss.backward()
assert model.weight.grad.abs().sum() == 0
""",
            error=None,
        ),
        Invalid(
            """
import torch
from torch import nn
model = nn.Linear(3, 2)
x, y = torch.randn(4, 3), torch.tensor([0.0, 1.0, 1.0, 0.0])
predicted = model(x).argmax(dim=1).float()
loss = nn.functional.mse_loss(predicted, y)
loss.backward()
""",
            error=ERROR,
        ),
    )

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        """One finding per non-differentiable op a backpropagated value depends on alone."""
        yield from self._zero_gradients(ctx)
        kind = LossKind.NON_DIFFERENTIABLE
        for event, loss in ctx.analysis.backpropagated_without_history(kind):
            name = expr_text(ctx.source, event.target)
            message = compose(
                no_graph_summary(name, event.via),
                f"It depends on the model only through {loss.description}, which has no "
                f"gradient, so `{name}.backward()` (line {event.call.lineno}) finds no graph to "
                "go through; build the loss from differentiable operations",
                NO_GRAD_FN.in_full,
            )
            related = [Related(ctx.node_range(event.call), f"`{name}.backward()` raises: {ERROR}")]
            yield self.finding(message, ctx.node_range(loss.node), related, [])

    def _zero_gradients(self, ctx: RuleContext) -> Iterator[Finding]:
        """Backward calls on values whose every path to what requires grad runs through a
        zero-gradient op (`torch.round`): one finding per such op."""
        seen: set[int] = set()
        for event in ctx.analysis.backward_calls:
            loss = event.value.loss
            if event.value.grad is not Grad.TRACKED or loss is None:
                continue
            if loss.kind is not LossKind.ZERO_GRADIENT or id(loss.node) in seen:
                continue
            seen.add(id(loss.node))
            name = expr_text(ctx.source, event.target)
            message = compose(
                f"`{name}` reaches the model only through {loss.description}: backward() runs, "
                "every gradient is zero",
                f"The gradient of {loss.description} is zero wherever it is defined, so "
                f"`{name}.backward()` (line {event.call.lineno}) sends zeros to every "
                "parameter and the model never learns; build the loss from differentiable "
                "operations (a soft surrogate of the rounding)",
            )
            related = [Related(ctx.node_range(event.call), f"`{name}.backward()` runs here")]
            yield self.finding(message, ctx.node_range(loss.node), related, [])
