"""GG501 `non-scalar-backward`

## What it does
Finds `y.backward()`, `torch.autograd.backward(y)` and `torch.autograd.grad(y, x)` called
without a gradient argument on a tensor `y` that certainly holds more than one element: a
model output used as the loss (`model(x).backward()`), a loss built with
`reduction='none'` and never reduced, an elementwise expression of a vector.

The analysis has no general shape inference. It only trusts known sizes (literals, or names
and settings bound to one int): factory sizes (`torch.randn(4, 10)`, `torch.tensor([1.0,
2.0])`), elementwise ops (which broadcast), reductions without `dim` (`.sum()`, `.mean()`,
default loss reductions), `torch.nn` layers built with known sizes (`nn.Linear(10, 2)`
always outputs a last dimension of 2, whatever its input), rows picked by a tensor of
int64 ids (`table[ids]`: one row per id), the batches of a `DataLoader` over a
`TensorDataset` of known tensors when every batch has the same size, and the
`log_prob`/`entropy` of a univariate `torch.distributions` object built from such a batch
(`Categorical(logits=policy(states))` is one distribution per state, so is
`Normal(mean, std)`). A
tensor whose shape it cannot prove (function parameters of unknown callers, batches of other
loaders, `nn.Linear(..., 1)` on an unknown batch) is never reported.

## Why is this bad?
Without a `gradient`, autograd can only start from a single number. A tensor of several
elements (or none) raises

    RuntimeError: grad can be implicitly created only for scalar outputs

## Example
```python
model = nn.Linear(10, 2)
criterion = nn.MSELoss(reduction="none")
loss = criterion(model(x), y)
loss.backward()
```

## Use instead
```python
loss = criterion(model(x), y)
loss.sum().backward()  # or .mean(), or loss.backward(gradient=weights)
```

## Fix safety
"Sum before backward" turns `y.backward()` into `y.sum().backward()` (and `y` into
`y.sum()` in `torch.autograd.backward`/`torch.autograd.grad`). That is exactly what
`gradient=torch.ones_like(y)` computes. It is unsafe: the code may have meant the mean
(gradients `n` times smaller, which changes the effective learning rate) or a weighted sum;
GradGuard cannot know which objective was intended.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from gradguard.analysis.facts import BackwardCall, Grad, Kind
from gradguard.core.findings import (
    Finding,
    Fix,
    Position,
    Range,
    Related,
    Safety,
    Severity,
    TextEdit,
)
from gradguard.core.messages import backward_verb, capitalized, compose
from gradguard.core.rule import Invalid, Rule, RuleContext
from gradguard.rewrite.expressions import expr_range, expr_text, replace_expr, with_method

ERROR = "grad can be implicitly created only for scalar outputs"

# Where each entry point takes the gradient: (position, keyword).
_GRADIENT_ARGUMENT = {
    "backward": (0, "gradient"),
    "torch.autograd.backward": (1, "grad_tensors"),
    "torch.autograd.grad": (2, "grad_outputs"),
}


class NonScalarBackward(Rule):
    """Backpropagating from a tensor of several elements without a gradient."""

    code = "GG501"
    name = "non-scalar-backward"
    severity = Severity.ERROR
    summary = "backward() without a gradient on a tensor with more than one element"

    valid = (
        # An explicit gradient, positional or keyword, and the reduced forms.
        """
import torch
w = torch.randn(3, requires_grad=True)
y = w * 2
y.backward(gradient=torch.ones_like(y))
y = w * 2
y.backward(torch.ones_like(y))
(w * 2).sum().backward()
(w * 2).mean().backward()
(g,) = torch.autograd.grad(w * 3, w, grad_outputs=torch.ones(3))
""",
        # A single element is a valid implicit gradient, whatever the rank.
        """
import torch
b = torch.randn(1, requires_grad=True)
(b * 3).backward()
c = torch.randn(1, 1, requires_grad=True)
torch.autograd.backward(c.exp())
""",
        # reduction='none' then reduced; a default reduction; an output of unknown batch size.
        """
import torch
from torch import nn
import torch.nn.functional as F
model = nn.Linear(4, 2)
criterion = nn.MSELoss(reduction="none")
x, y = torch.randn(8, 4), torch.randn(8, 2)
per_element = criterion(model(x), y)
per_element.mean().backward()
F.mse_loss(model(x), y).backward()
head = nn.Linear(4, 1)
def train(batch):
    head(batch).backward()
train(torch.randn(1, 4))
""",
    )

    invalid = (
        Invalid(
            """
import torch
from torch import nn
model = nn.Linear(10, 2)
x = torch.randn(4, 10)
out = model(x)
out.backward()
""",
            fixed="""
import torch
from torch import nn
model = nn.Linear(10, 2)
x = torch.randn(4, 10)
out = model(x)
out.sum().backward()
""",
            unsafe_fix=True,
            error=ERROR,
        ),
        Invalid(
            """
import torch
from torch import nn
model = nn.Sequential(nn.Linear(3, 8), nn.ReLU(), nn.Linear(8, 2))
criterion = nn.SmoothL1Loss(reduction="none")
loss = criterion(model(torch.randn(5, 3)), torch.zeros(5, 2))
loss.backward()
""",
            fixed="""
import torch
from torch import nn
model = nn.Sequential(nn.Linear(3, 8), nn.ReLU(), nn.Linear(8, 2))
criterion = nn.SmoothL1Loss(reduction="none")
loss = criterion(model(torch.randn(5, 3)), torch.zeros(5, 2))
loss.sum().backward()
""",
            unsafe_fix=True,
            error=ERROR,
        ),
        Invalid(
            """
import torch
x = torch.linspace(0.0, 1.0, 5, requires_grad=True)
y = torch.sin(x) * x
(dy_dx,) = torch.autograd.grad(y, x)
""",
            fixed="""
import torch
x = torch.linspace(0.0, 1.0, 5, requires_grad=True)
y = torch.sin(x) * x
(dy_dx,) = torch.autograd.grad(y.sum(), x)
""",
            unsafe_fix=True,
            error=ERROR,
        ),
    )

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        """One finding per backward call on a tensor certainly not holding one element."""
        for event in ctx.analysis.backward_calls:
            value = event.value
            if value.grad is not Grad.TRACKED or value.kind is not Kind.TENSOR:
                continue  # without requires_grad torch raises another error first
            if not value.shape.not_single or _has_gradient(event):
                continue
            name = expr_text(ctx.source, event.target)
            shown = f"`{name}`" if "\n" not in name and len(name) <= 40 else "the tensor"
            shape = value.shape.describe()
            held = (
                f"has shape {shape}"
                if shape.startswith("(")
                else "holds more than one element (or none)"
            )
            entry = "backward()" if event.via == "backward" else f"{event.via}(...)"
            message = compose(
                f'Non-scalar {shown}: {backward_verb(event.via)} raises "{ERROR}"',
                f"{capitalized(shown)} {held}, and {entry} without a gradient needs a single "
                "element",
                "Reduce it first (`.sum()`, `.mean()`) or pass the gradient explicitly",
            )
            related = []
            origin = value.origin
            if origin is not None and isinstance(event.target, ast.Name):
                related.append(Related(ctx.node_range(origin), f"`{name}` computed here"))
            fix = Fix("Sum before backward", Safety.UNSAFE, (_summed(ctx, event),))
            yield self.finding(message, ctx.node_range(event.call), related, [fix])


def _summed(ctx: RuleContext, event: BackwardCall) -> TextEdit:
    """Replace `y` by `y.sum()`; a receiver already in parentheses, `(w * 2).backward()`,
    by `(w * 2).sum()` (an argument's parentheses are the call's own)."""
    target = event.target
    rng = expr_range(ctx.source, target)
    if event.via == "backward" and rng.start.character > 0 and rng.start.line == rng.end.line:
        wider = Range(
            Position(rng.start.line, rng.start.character - 1),
            Position(rng.end.line, rng.end.character + 1),
        )
        if ctx.source.slice(wider) == f"({ctx.source.slice(rng)})":
            return TextEdit(wider, f"{ctx.source.slice(wider)}.sum()")
    return replace_expr(ctx.source, target, with_method(ctx.source, target, "sum()"))


def _has_gradient(event: BackwardCall) -> bool:
    """True when the call passes a gradient (or arguments this rule cannot place)."""
    # `accelerator.backward(loss, ...)` / `fabric.backward(loss, ...)` hand the rest on to
    # `loss.backward`: the gradient comes right after the loss.
    position, keyword = _GRADIENT_ARGUMENT.get(event.via, (1, "gradient"))
    call = event.call
    if any(kw.arg in (keyword, None) for kw in call.keywords):
        return True
    if any(isinstance(arg, ast.Starred) for arg in call.args):
        return True
    return len(call.args) > position
