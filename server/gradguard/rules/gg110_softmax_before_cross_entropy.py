"""GG110 `softmax-before-cross-entropy`

## What it does
Finds the output of a softmax given as the input of `nn.CrossEntropyLoss()(...)` or
`F.cross_entropy(...)`: `torch.softmax`, `F.softmax`, `x.softmax(dim)`, an `nn.Softmax`
layer, the last layer of an `nn.Sequential` of the file, or what the `forward` of a module of
the file returns. Reshapes, moves and casts in between (`.view`, `.squeeze`, `.to`,
`.float`...) change nothing; any other op in between, a branch where only one path applies
the softmax, or a value the analysis cannot see keeps the rule silent.

`log_softmax` into `cross_entropy` is *not* flagged: log_softmax is idempotent
(`log_softmax(log_softmax(x)) == log_softmax(x)`), so the loss and its gradients are the same
as with the logits (checked under torch 2.13.0: equal to 1e-8). `log_softmax` into
`nll_loss` is the intended pairing.

## Why is this bad?
`cross_entropy` applies `log_softmax` to its input itself: it expects raw logits. Fed
probabilities, it computes `log_softmax(softmax(x))`, whose values are squeezed into [0, 1]
before the second softmax. Nothing raises; the loss cannot go below about
`log(C) - 1 + ...`, its gradients are much smaller and wrongly shaped, and training silently
converges slowly or to a worse model.

## Example
```python
probs = F.softmax(model(x), dim=1)
loss = F.cross_entropy(probs, y)
```

## Use instead
```python
logits = model(x)
loss = F.cross_entropy(logits, y)
probs = F.softmax(logits, dim=1)  # only where probabilities are needed
```

## Fix safety
"Remove the softmax" replaces the softmax call by the tensor it applies to. It is safe when
the softmax result is used only by the loss (the call is inside the loss's input, or is the
whole right-hand side of `name = ...` and `name` is read nowhere else in that function).
Otherwise it is unsafe: the probabilities may also be used elsewhere (metrics, thresholds, a
model's `forward` whose callers expect probabilities), and those uses would get logits. A
softmax layer inside an `nn.Sequential` gets no fix: remove the layer by hand, and apply the
softmax where probabilities are needed.
"""

from __future__ import annotations

from collections.abc import Iterator

from gradguard.analysis.facts import ActivationKind, LossInput
from gradguard.core.findings import Finding, Related, Severity
from gradguard.core.messages import capitalized, compose
from gradguard.core.rule import Invalid, Rule, RuleContext
from gradguard.rewrite.activations import without_activation
from gradguard.rewrite.expressions import expr_text

SYMPTOM = "the loss sees softmax twice, so training silently converges worse"


class SoftmaxBeforeCrossEntropy(Rule):
    """Softmax output fed to cross_entropy, which applies log_softmax itself."""

    code = "GG110"
    name = "softmax-before-cross-entropy"
    severity = Severity.WARNING
    summary = "softmax output given to cross_entropy, which applies log_softmax itself"

    valid = (
        # log_softmax pairs with nll_loss.
        """
import torch
import torch.nn.functional as F
from torch import nn
model = nn.Linear(4, 3)
x, y = torch.randn(8, 4), torch.randint(0, 3, (8,))
loss = F.nll_loss(F.log_softmax(model(x), dim=1), y)
loss.backward()
""",
        # Probabilities for metrics only; the loss gets the logits.
        """
import torch
import torch.nn.functional as F
from torch import nn
model = nn.Linear(4, 3)
criterion = nn.CrossEntropyLoss()
x, y = torch.randn(8, 4), torch.randint(0, 3, (8,))
logits = model(x)
probs = F.softmax(logits, dim=1)
loss = criterion(logits, y)
loss.backward()
confidence = probs.max(dim=1).values.mean()
""",
        # The softmax result is rebound before the loss.
        """
import torch
import torch.nn.functional as F
from torch import nn
model = nn.Linear(4, 3)
x, y = torch.randn(8, 4), torch.randint(0, 3, (8,))
out = model(x).softmax(dim=1)
print(out.argmax(dim=1))
out = model(x)
loss = F.cross_entropy(out, y)
loss.backward()
""",
        # Only one path applies the softmax.
        """
import torch
import torch.nn.functional as F
from torch import nn
model = nn.Linear(4, 3)
x, y = torch.randn(8, 4), torch.randint(0, 3, (8,))
out = model(x)
if x.sum() > 1000:
    out = F.softmax(out, dim=1)
loss = F.cross_entropy(out, y)
loss.backward()
""",
        # log_softmax into cross_entropy: redundant but exact (log_softmax is idempotent).
        """
import torch
import torch.nn.functional as F
from torch import nn
model = nn.Linear(4, 3)
x, y = torch.randn(8, 4), torch.randint(0, 3, (8,))
loss = F.cross_entropy(F.log_softmax(model(x), dim=1), y)
loss.backward()
""",
        # Softmax, then a transform: soft targets / temperature, not the loss input as is.
        """
import torch
import torch.nn.functional as F
from torch import nn
model = nn.Linear(4, 3)
x, y = torch.randn(8, 4), torch.randint(0, 3, (8,))
teacher = F.softmax(model(x), dim=1)
loss = F.cross_entropy(model(x), teacher.detach())
loss.backward()
""",
    )

    invalid = (
        Invalid(
            """
import torch
import torch.nn.functional as F
from torch import nn
model = nn.Linear(4, 3)
x, y = torch.randn(8, 4), torch.randint(0, 3, (8,))
loss = F.cross_entropy(F.softmax(model(x), dim=1), y)
loss.backward()
""",
            fixed="""
import torch
import torch.nn.functional as F
from torch import nn
model = nn.Linear(4, 3)
x, y = torch.randn(8, 4), torch.randint(0, 3, (8,))
loss = F.cross_entropy(model(x), y)
loss.backward()
""",
        ),
        Invalid(
            """
import torch
from torch import nn
model = nn.Linear(4, 3)
criterion = nn.CrossEntropyLoss()
x, y = torch.randn(8, 4), torch.randint(0, 3, (8,))
probs = model(x).softmax(dim=1)
loss = criterion(probs, y)
loss.backward()
print(probs.max(dim=1).values)
""",
            fixed="""
import torch
from torch import nn
model = nn.Linear(4, 3)
criterion = nn.CrossEntropyLoss()
x, y = torch.randn(8, 4), torch.randint(0, 3, (8,))
probs = model(x)
loss = criterion(probs, y)
loss.backward()
print(probs.max(dim=1).values)
""",
            unsafe_fix=True,
        ),
        Invalid(
            """
import torch
from torch import nn
class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)
        self.softmax = nn.Softmax(dim=1)
    def forward(self, x):
        return self.softmax(self.fc(x))
model = Classifier()
x, y = torch.randn(8, 4), torch.randint(0, 3, (8,))
loss = nn.CrossEntropyLoss()(model(x), y)
loss.backward()
""",
            fixed="""
import torch
from torch import nn
class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)
        self.softmax = nn.Softmax(dim=1)
    def forward(self, x):
        return self.fc(x)
model = Classifier()
x, y = torch.randn(8, 4), torch.randint(0, 3, (8,))
loss = nn.CrossEntropyLoss()(model(x), y)
loss.backward()
""",
            unsafe_fix=True,
        ),
        Invalid(
            """
import torch
from torch import nn
model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 3), nn.Softmax(dim=1))
x, y = torch.randn(8, 4), torch.randint(0, 3, (8,))
loss = nn.CrossEntropyLoss()(model(x), y)
loss.backward()
""",
        ),
    )

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        """One finding per cross_entropy input that is certainly a softmax output."""
        reported: set[int] = set()
        for use in ctx.analysis.events.of(LossInput):
            if use.loss_function != "cross_entropy":
                continue
            activation = use.value.activation
            if activation is None or activation.kind is not ActivationKind.SOFTMAX:
                continue
            if id(use.node) in reported:
                continue
            reported.add(id(use.node))
            name = expr_text(ctx.source, use.target)
            name = "the input" if len(name) > 40 else f"`{name}`"
            where = "the last layer, " if activation.layer else ""
            line = getattr(activation.node, "lineno", 0)
            message = compose(
                f"{capitalized(name)} is softmax output, so cross_entropy applies softmax twice",
                f"It is the output of {where}{activation.description} (line {line}), and the "
                f"cross-entropy loss applies log_softmax to its input itself: {SYMPTOM}; give "
                "it the logits",
            )
            related = [Related(ctx.node_range(activation.node), f"{activation.description} here")]
            scope = use.function or ctx.tree
            fixes = without_activation(
                ctx.source, scope, activation, use.target, "Remove the softmax"
            )
            yield self.finding(message, ctx.node_range(use.target), related, fixes)
