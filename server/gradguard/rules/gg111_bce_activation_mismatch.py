"""GG111 `bce-activation-mismatch`

## What it does
Finds a binary cross-entropy given the wrong kind of input:

* a sigmoid output (`torch.sigmoid`, `F.sigmoid`, `x.sigmoid()`, an `nn.Sigmoid` layer, the
  last layer of an `nn.Sequential` of the file, or what the `forward` of a module of the
  file returns) given to `nn.BCEWithLogitsLoss()(...)` or
  `F.binary_cross_entropy_with_logits(...)`, which apply the sigmoid themselves;
* raw logits (the output of an `nn.Linear`, directly or as what the last layer of an
  `nn.Sequential` or a module's `forward` returns, with nothing after it) given to
  `nn.BCELoss()(...)` or `F.binary_cross_entropy(...)`, which expect probabilities.

Reshapes, moves and casts in between (`.view`, `.squeeze`, `.to`, `.float`...) change
nothing; any other op, a branch where only one path applies the sigmoid, or a value the
analysis cannot see keeps the rule silent.

## Why is this bad?
`BCEWithLogitsLoss` computes `sigmoid` itself. Fed probabilities, it squashes them a second
time into (0.5, 0.73): nothing raises, but the loss and its gradients are wrong and training
silently converges to a worse model.

`BCELoss` takes probabilities. Fed logits, it raises as soon as one leaves [0, 1]:

    RuntimeError: all elements of input should be between 0 and 1

## Example
```python
criterion = nn.BCEWithLogitsLoss()
loss = criterion(torch.sigmoid(model(x)), y)

loss = nn.BCELoss()(nn.Linear(16, 1)(h).squeeze(1), y)
```

## Use instead
```python
criterion = nn.BCEWithLogitsLoss()
loss = criterion(model(x), y)

loss = nn.BCEWithLogitsLoss()(nn.Linear(16, 1)(h).squeeze(1), y)
```

## Fix safety
A sigmoid before a with-logits loss: "Remove the sigmoid" replaces the sigmoid call by the
tensor it applies to. It is safe when the sigmoid result is used only by the loss (the call
is inside the loss's input, or is the whole right-hand side of `name = ...` and `name` is
read nowhere else in that function), unsafe otherwise: the probabilities may also be used
elsewhere, and those uses would get logits. A sigmoid layer inside an `nn.Sequential` gets no
fix.

Logits given to a probability loss: `F.binary_cross_entropy(...)` becomes
`F.binary_cross_entropy_with_logits(...)` (same arguments, same meaning: it is
`binary_cross_entropy(sigmoid(input), ...)` computed stably), and a `BCELoss` module call gets
its input wrapped in `torch.sigmoid(...)`, the probabilities it is documented to take. Both
change only the loss's input and are safe.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from gradguard.analysis.facts import Activation, ActivationKind, LossInput
from gradguard.core.findings import Finding, Fix, Related, Safety, Severity
from gradguard.core.messages import capitalized, compose
from gradguard.core.rule import Invalid, Rule, RuleContext
from gradguard.rewrite.activations import without_activation
from gradguard.rewrite.expressions import expr_text, replace_expr

ERROR = "all elements of input should be between 0 and 1"
DOUBLE = "the loss applies sigmoid a second time, so training silently converges worse"


class BceActivationMismatch(Rule):
    """Sigmoid output into a with-logits BCE, or logits into a probability BCE."""

    code = "GG111"
    name = "bce-activation-mismatch"
    severity = Severity.ERROR
    summary = "sigmoid output given to BCEWithLogitsLoss, or logits given to BCELoss"

    valid = (
        # Sigmoid output into BCELoss: the intended pairing.
        """
import torch
from torch import nn
torch.manual_seed(0)
model = nn.Linear(4, 1)
x, y = torch.randn(8, 4) * 3, torch.randint(0, 2, (8,)).float()
loss = nn.BCELoss()(torch.sigmoid(model(x)).squeeze(1), y)
loss.backward()
""",
        # Logits into BCEWithLogitsLoss.
        """
import torch
import torch.nn.functional as F
from torch import nn
torch.manual_seed(0)
model = nn.Linear(4, 1)
x, y = torch.randn(8, 4) * 3, torch.randint(0, 2, (8,)).float()
logits = model(x).squeeze(1)
loss = F.binary_cross_entropy_with_logits(logits, y)
loss.backward()
predictions = logits.sigmoid() > 0.5
""",
        # Probabilities for metrics only; the with-logits loss gets the logits.
        """
import torch
from torch import nn
torch.manual_seed(0)
model = nn.Linear(4, 1)
criterion = nn.BCEWithLogitsLoss()
x, y = torch.randn(8, 4) * 3, torch.randint(0, 2, (8, 1)).float()
out = model(x)
probs = torch.sigmoid(out)
loss = criterion(out, y)
loss.backward()
accuracy = ((probs > 0.5).float() == y).float().mean()
""",
        # A module whose forward ends with a sigmoid, into BCELoss.
        """
import torch
from torch import nn
torch.manual_seed(0)
class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(4, 8), nn.LeakyReLU(0.2), nn.Linear(8, 1), nn.Sigmoid())
    def forward(self, x):
        return self.net(x)
D = Discriminator()
x = torch.randn(8, 4) * 3
loss = nn.BCELoss()(D(x), torch.ones(8, 1))
loss.backward()
""",
        # Only one path applies the sigmoid.
        """
import torch
import torch.nn.functional as F
from torch import nn
torch.manual_seed(0)
model = nn.Linear(4, 1)
x, y = torch.randn(8, 4) * 3, torch.randint(0, 2, (8, 1)).float()
out = model(x)
if x.sum() > 1000:
    out = torch.sigmoid(out)
loss = F.binary_cross_entropy_with_logits(out, y)
loss.backward()
""",
        # Logits squashed by something else (clamped) before BCELoss: not raw logits.
        """
import torch
import torch.nn.functional as F
from torch import nn
torch.manual_seed(0)
model = nn.Linear(4, 1)
x, y = torch.randn(8, 4) * 3, torch.randint(0, 2, (8, 1)).float()
out = model(x).clamp(0.0, 1.0)
loss = F.binary_cross_entropy(out, y)
loss.backward()
""",
    )

    invalid = (
        Invalid(
            """
import torch
from torch import nn
torch.manual_seed(0)
model = nn.Linear(4, 1)
criterion = nn.BCEWithLogitsLoss()
x, y = torch.randn(8, 4) * 3, torch.randint(0, 2, (8, 1)).float()
loss = criterion(torch.sigmoid(model(x)), y)
loss.backward()
""",
            fixed="""
import torch
from torch import nn
torch.manual_seed(0)
model = nn.Linear(4, 1)
criterion = nn.BCEWithLogitsLoss()
x, y = torch.randn(8, 4) * 3, torch.randint(0, 2, (8, 1)).float()
loss = criterion(model(x), y)
loss.backward()
""",
        ),
        Invalid(
            """
import torch
import torch.nn.functional as F
from torch import nn
torch.manual_seed(0)
model = nn.Linear(4, 1)
x, y = torch.randn(8, 4) * 3, torch.randint(0, 2, (8,)).float()
loss = F.binary_cross_entropy(model(x).squeeze(1), y)
loss.backward()
""",
            fixed="""
import torch
import torch.nn.functional as F
from torch import nn
torch.manual_seed(0)
model = nn.Linear(4, 1)
x, y = torch.randn(8, 4) * 3, torch.randint(0, 2, (8,)).float()
loss = F.binary_cross_entropy_with_logits(model(x).squeeze(1), y)
loss.backward()
""",
            error=ERROR,
        ),
        Invalid(
            """
import torch
from torch import nn
torch.manual_seed(0)
class Scorer(nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = nn.Linear(4, 8)
        self.out = nn.Linear(8, 1)
    def forward(self, x):
        return self.out(torch.relu(self.hidden(x)))
model = Scorer()
criterion = nn.BCELoss()
x, y = torch.randn(8, 4) * 3, torch.randint(0, 2, (8, 1)).float()
loss = criterion(model(x), y)
loss.backward()
""",
            fixed="""
import torch
from torch import nn
torch.manual_seed(0)
class Scorer(nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = nn.Linear(4, 8)
        self.out = nn.Linear(8, 1)
    def forward(self, x):
        return self.out(torch.relu(self.hidden(x)))
model = Scorer()
criterion = nn.BCELoss()
x, y = torch.randn(8, 4) * 3, torch.randint(0, 2, (8, 1)).float()
loss = criterion(torch.sigmoid(model(x)), y)
loss.backward()
""",
            error=ERROR,
        ),
        Invalid(
            """
import torch
from torch import nn
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1), nn.Sigmoid())
x, y = torch.randn(8, 4) * 3, torch.randint(0, 2, (8, 1)).float()
loss = nn.BCEWithLogitsLoss()(model(x), y)
loss.backward()
""",
        ),
    )

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        """One finding per binary cross-entropy input of the wrong kind."""
        reported: set[int] = set()
        for use in ctx.analysis.events.of(LossInput):
            if id(use.node) in reported:
                continue
            activation = use.value.activation
            if activation is None:
                continue
            with_logits = use.loss_function == "binary_cross_entropy_with_logits"
            if with_logits and activation.kind is ActivationKind.SIGMOID:
                reported.add(id(use.node))
                yield self._double_sigmoid(ctx, use)
            elif (
                use.loss_function == "binary_cross_entropy"
                and activation.kind is ActivationKind.LOGITS
            ):
                reported.add(id(use.node))
                yield self._logits(ctx, use)

    def _double_sigmoid(self, ctx: RuleContext, use: LossInput) -> Finding:
        activation = _activation(use)
        name = _name(ctx, use.target)
        where = "the last layer, " if activation.layer else ""
        message = compose(
            f"{capitalized(name)} is sigmoid output, so the with-logits loss applies sigmoid twice",
            f"It is the output of {where}{activation.description} (line {_line(activation)}), "
            f"and a with-logits loss applies sigmoid to its input itself: {DOUBLE}; give it the "
            "logits",
        )
        related = [Related(ctx.node_range(activation.node), f"{activation.description} here")]
        scope = use.function or ctx.tree
        fixes = without_activation(ctx.source, scope, activation, use.target, "Remove the sigmoid")
        return self.finding(message, ctx.node_range(use.target), related, fixes)

    def _logits(self, ctx: RuleContext, use: LossInput) -> Finding:
        activation = _activation(use)
        target = use.target
        call = use.node
        assert isinstance(call, ast.Call)
        name = _name(ctx, target)
        message = compose(
            f'{capitalized(name)} holds logits: BCE raises "{ERROR}"',
            f"It is the unbounded output of {activation.description} (line "
            f"{_line(activation)}), but binary cross-entropy takes probabilities: it raises "
            "or silently computes nonsense; use the with-logits loss",
        )
        related = [Related(ctx.node_range(activation.node), f"{activation.description} here")]
        fixes: list[Fix] = []
        func = call.func
        if isinstance(func, ast.Attribute) and func.attr == "binary_cross_entropy":
            text = f"{expr_text(ctx.source, func.value)}.binary_cross_entropy_with_logits"
            edit = replace_expr(ctx.source, func, text)
            fixes.append(Fix("Use binary_cross_entropy_with_logits", Safety.SAFE, (edit,)))
        elif not (isinstance(func, ast.Name) and func.id == "binary_cross_entropy"):
            alias = ctx.torch_alias
            if alias is not None:
                wrapped = f"{alias}.sigmoid({expr_text(ctx.source, target)})"
                edit = replace_expr(ctx.source, target, wrapped)
                fixes.append(Fix("Apply sigmoid to the input", Safety.SAFE, (edit,)))
        return self.finding(message, ctx.node_range(target), related, fixes)


def _activation(use: LossInput) -> Activation:
    assert use.value.activation is not None
    return use.value.activation


def _name(ctx: RuleContext, target: ast.expr) -> str:
    text = expr_text(ctx.source, target)
    return "the input" if len(text) > 40 else f"`{text}`"


def _line(activation: Activation) -> int:
    return int(getattr(activation.node, "lineno", 0))
