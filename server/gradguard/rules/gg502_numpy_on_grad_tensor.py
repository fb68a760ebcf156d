"""GG502 `numpy-on-grad-tensor`

## What it does
Finds `.numpy()` called on a tensor that requires grad: a model output, a loss, a tensor
computed from parameters, or a leaf created with `requires_grad=True`. Also the numpy
functions that convert their argument through `Tensor.numpy()` themselves:
`np.array(out)`, `np.asarray(out)`, `np.stack(...)`, ..., and `np.mean(losses)` /
`np.sum(losses)` on a list of such tensors (an epoch's losses collected without `.item()`),
matplotlib's plotting functions, and scikit-learn's metrics (`roc_auc_score(y, probs)`,
`f1_score`, `mean_squared_error`...), which convert their inputs the same way.
The index half of `torch.max(x, 1)`, `x.topk(k)`, `x.sort()` never requires grad.
A function of the file that converts what a caller hands it is judged per call: when a
call passes a tensor that requires grad (`threshold_of(model.W, 0.5)`), the conversion
inside is reported with that call, even if other callers pass detached tensors.

## Why is this bad?
NumPy arrays cannot carry autograd history, so PyTorch refuses the conversion:

    RuntimeError: Can't call numpy() on Tensor that requires grad.
    Use tensor.detach().numpy() instead.

## Example
```python
predictions = model(x).numpy()
```

## Use instead
```python
predictions = model(x).detach().numpy()
# or, when the tensor may live on a GPU:
predictions = model(x).detach().cpu().numpy()
```

## Fix safety
"Add .detach()" inserts `.detach()` before `.numpy()` (and `.cpu()` when the expression
moved the tensor to a device with `.cuda()` or `.to(...)`), or after the tensor handed to a
numpy function. The array holds the same numbers, so the fix is safe. A list of tensors
gets no fix: collect `loss.item()` where the list is built.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from gradguard.analysis.facts import Conversion, Grad
from gradguard.core.findings import Finding, Fix, Range, Related, Safety, Severity, TextEdit
from gradguard.core.messages import capitalized, compose
from gradguard.core.rule import Invalid, Rule, RuleContext
from gradguard.rewrite.expressions import expr_range, expr_text, needs_parentheses, with_method

ERROR = "Can't call numpy() on Tensor that requires grad"


class NumpyOnGradTensor(Rule):
    """`.numpy()` on a tensor that requires grad."""

    code = "GG502"
    name = "numpy-on-grad-tensor"
    severity = Severity.ERROR
    summary = ".numpy() on a tensor that requires grad"

    valid = (
        """
import torch
from torch import nn
model = nn.Linear(3, 1)
with torch.no_grad():
    preds = model(torch.randn(4, 3)).numpy()
""",
        """
import torch
from torch import nn
model = nn.Linear(3, 1)
preds = model(torch.randn(4, 3)).detach().numpy()
data = torch.randn(4, 3).numpy()
""",
        # A user class with its own numpy() method.
        """
import torch
class Frame:
    def numpy(self):
        return [1, 2]
print(Frame().numpy())
""",
    )

    invalid = (
        Invalid(
            """
import numpy as np
import torch
from torch import nn
model = nn.Linear(3, 1)
losses = []
for _ in range(3):
    loss = model(torch.randn(4, 3)).pow(2).mean()
    loss.backward()
    losses.append(loss)
print(np.mean(losses))
""",
            error=ERROR,
        ),
        Invalid(
            """
import numpy as np
import torch
from torch import nn
model = nn.Linear(3, 1)
scores = np.asarray(model(torch.randn(4, 3)))
""",
            fixed="""
import numpy as np
import torch
from torch import nn
model = nn.Linear(3, 1)
scores = np.asarray(model(torch.randn(4, 3)).detach())
""",
            error=ERROR,
        ),
        Invalid(
            """
import torch
from torch import nn
model = nn.Linear(3, 1)
preds = model(torch.randn(4, 3)).numpy()
""",
            fixed="""
import torch
from torch import nn
model = nn.Linear(3, 1)
preds = model(torch.randn(4, 3)).detach().numpy()
""",
            error=ERROR,
        ),
        Invalid(
            """
import torch
w = torch.zeros(3, requires_grad=True)
history = []
for step in range(2):
    loss = (w - 1.0).pow(2).sum()
    loss.backward()
    history.append(w.cpu().numpy())
""",
            fixed="""
import torch
w = torch.zeros(3, requires_grad=True)
history = []
for step in range(2):
    loss = (w - 1.0).pow(2).sum()
    loss.backward()
    history.append(w.cpu().detach().numpy())
""",
            error=ERROR,
        ),
    )

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        """One finding per `.numpy()` on a tensor that certainly requires grad."""
        reported: set[int] = set()
        for use in ctx.analysis.events.of(Conversion):
            if use.method not in ("numpy", "array", "array-items"):
                continue
            if use.value.grad is not Grad.TRACKED or id(use.node) in reported:
                continue
            reported.add(id(use.node))
            text = expr_text(ctx.source, use.target)
            name = "the tensor" if len(text) > 40 else f"`{text}`"
            converted = ".numpy() of the tensor" if len(text) > 40 else f"`{text}.numpy()`"
            message = compose(
                f'{capitalized(converted)} raises "{ERROR}"',
                f"{capitalized(name)} requires grad; call .detach() before .numpy()",
            )
            if use.method != "numpy":
                # `np.mean(losses)`: numpy converts through Tensor.numpy() itself.
                assert isinstance(use.node, ast.Call)
                function = expr_text(ctx.source, use.node.func)
                if use.method == "array":
                    subject, pronoun = "requires grad", "it"
                else:
                    subject, pronoun = "holds tensors that require grad", "them"
                    name = "the list" if len(text) > 40 else name
                converted = f"`{function}({text})`" if len(text) <= 40 else f"`{function}(...)`"
                whole = expr_text(ctx.source, use.node)
                if len(use.node.args) + len(use.node.keywords) > 1 and len(whole) <= 60:
                    converted = f"`{whole}`"  # the argument converted among others
                message = compose(
                    f'{converted} raises "{ERROR}"',
                    f"{capitalized(name)} {subject}, and `{function}(...)` converts {pronoun} "
                    "with .numpy(); call .detach() first",
                )
                fixes = [_fix(ctx, use.target)] if use.method == "array" else []
                yield self.finding(message, ctx.node_range(use.node), _caller(ctx, use), fixes)
                continue
            related = _caller(ctx, use)
            origin = use.value.origin
            if origin is not None and isinstance(use.target, ast.Name):
                related.append(Related(ctx.node_range(origin), f"{name} gets its gradient here"))
            yield self.finding(message, ctx.node_range(use.node), related, [_fix(ctx, use.target)])


def _fix(ctx: RuleContext, target: ast.expr) -> Fix:
    moved = any(
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in ("cuda", "to")
        for node in ast.walk(target)
    )
    call = "detach().cpu()" if moved else "detach()"
    if needs_parentheses(target):
        # `w * x` becomes `(w * x).detach()`, not `w * x.detach()`.
        edit = TextEdit(expr_range(ctx.source, target), with_method(ctx.source, target, call))
    else:
        end = expr_range(ctx.source, target).end
        edit = TextEdit(Range(end, end), f".{call}")
    return Fix("Add .detach()", Safety.SAFE, (edit,))


def _caller(ctx: RuleContext, use: Conversion) -> list[Related]:
    """The call that hands the function a tensor that requires grad, when only that call's
    arguments make the conversion raise (a run in context)."""
    if use.context is None:
        return []
    return [Related(ctx.node_range(use.context), "called here with a tensor that requires grad")]
