"""GG104 `all-parameters-frozen`

## What it does
Finds `.backward()` (or `torch.autograd.backward` / `torch.autograd.grad`) on a value computed
only by a model every one of whose parameters was frozen first, by a loop such as
`for p in model.parameters(): p.requires_grad = False` (also `p.requires_grad_(False)`, a loop
over `named_parameters()`) or by `model.requires_grad_(False)`, from inputs that do not
require grad.

It fires only when all of this is certain: the model is built in the file (a `torch.nn` layer,
an `nn.Sequential` of layers built in place, or a class of the file that computes only from
its inputs and its registered submodules, including a module built just before and handed to
its constructor whole, or a layer template built in `__init__` and handed to
`nn.TransformerEncoder`); the freeze covers every parameter the value is computed with
unconditionally (a `named_parameters()` loop filtered by an `if` only when its tests on the
name pass every name the model's parameters may have, such as `if "Adapter" not in name` on
a model whose attributes are `embed`, `adapter`, `classifier`, or `"ATS" not in name` on
layers an `nn.Sequential` or `nn.ModuleList` names by index, `fc.0.weight`, `lateral.3.bias`):
the whole model's, or those of
each layer its forward runs (`model.backbone.requires_grad_(False)` and
`model.head.requires_grad_(False)`), done where the model is, by a function or method of the
file that freezes the model (or a layer of it) it is given on every way out (`evaluate(model)`
switching it off "to save memory"), or by `__init__` for every other method of the class
(`self.backbone`, stored and frozen there only, also by a method of the class `__init__`
calls); and nothing can unfreeze a parameter or add a
new one afterwards. Any `requires_grad = True`, `requires_grad_()`, `nn.Parameter`,
a submodule assigned onto the model (a new head), or the model handed to code the analysis
cannot see keeps the rule silent, but for a loop over `named_parameters()` turning on the
parameters whose names pass its tests (`if name.startswith("classifier."): p.requires_grad =
True`) when, in every run of it, no name the module's parameters may have passes them (or
the loop freezes each parameter again after turning it on); its tests may read the prefixes
every caller of its function passes (`thaw(model, SETTINGS["thaw"])`).

## Why is this bad?
With every parameter frozen and no input requiring grad, nothing the model computes has a
`grad_fn`: there is no graph to backpropagate through, and

    RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn

is raised at `backward()`. The freeze was usually meant for part of the model (transfer
learning freezes the backbone and trains a new head), or the head that should train was
never added.

## Example
```python
model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))
for p in model.parameters():
    p.requires_grad = False
loss = criterion(model(x), y)
loss.backward()
```

## Use instead
```python
model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))
for p in model[0].parameters():  # freeze the feature layer only
    p.requires_grad = False
loss = criterion(model(x), y)
loss.backward()
```

## Fix safety
No fix is offered. Which parameters should train (a new head, the last block, everything) is
a decision only the author can make, and removing the freeze would silently train weights
that were meant to stay fixed.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from gradguard.analysis.facts import LossKind
from gradguard.core.findings import Finding, Range, Related, Severity
from gradguard.core.messages import NO_GRAD_FN, backward_verb, compose, describe_backward
from gradguard.core.rule import Invalid, Rule, RuleContext
from gradguard.rewrite.expressions import expr_text

ERROR = "element 0 of tensors does not require grad and does not have a grad_fn"


class AllParametersFrozen(Rule):
    """Backpropagating through a model whose every parameter is frozen."""

    code = "GG104"
    name = "all-parameters-frozen"
    severity = Severity.ERROR
    summary = "backward() through a model whose every parameter has requires_grad=False"

    valid = (
        # Transfer learning: freeze everything, then assign a new head that trains.
        """
import torch
from torch import nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(4, 8)
        self.fc = nn.Linear(8, 2)

    def forward(self, x):
        return self.fc(torch.relu(self.body(x)))

model = Net()
for p in model.parameters():
    p.requires_grad = False
model.fc = nn.Linear(8, 2)
loss = model(torch.randn(5, 4)).sum()
loss.backward()
""",
        # Freeze everything, then unfreeze the last layer.
        """
import torch
from torch import nn
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
for p in model.parameters():
    p.requires_grad = False
for p in model[2].parameters():
    p.requires_grad = True
loss = model(torch.randn(5, 4)).sum()
loss.backward()
""",
        # The freeze happens only on one path.
        """
import sys
import torch
from torch import nn
model = nn.Linear(4, 2)
if len(sys.argv) > 5:
    for p in model.parameters():
        p.requires_grad = False
loss = model(torch.randn(5, 4)).sum()
loss.backward()
""",
        # A frozen teacher, a trained student.
        """
import torch
from torch import nn
teacher = nn.Linear(4, 2)
student = nn.Linear(4, 2)
teacher.requires_grad_(False)
x = torch.randn(8, 4)
loss = (student(x) - teacher(x)).pow(2).mean()
loss.backward()
""",
        # Only some parameters are frozen (`named_parameters()` filtered by an `if`).
        """
import torch
from torch import nn
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
for name, p in model.named_parameters():
    if not name.startswith("2."):
        p.requires_grad = False
loss = model(torch.randn(5, 4)).sum()
loss.backward()
""",
        # Only the backbone is frozen.
        """
import torch
from torch import nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Linear(4, 8)
        self.head = nn.Linear(8, 2)

    def forward(self, x):
        return self.head(self.backbone(x))

model = Net()
for p in model.backbone.parameters():
    p.requires_grad = False
loss = model(torch.randn(5, 4)).sum()
loss.backward()
""",
    )

    invalid = (
        Invalid(
            """
import torch
from torch import nn
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
for p in model.parameters():
    p.requires_grad = False
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loss = nn.functional.cross_entropy(model(torch.randn(5, 4)), torch.tensor([0, 1, 0, 1, 1]))
loss.backward()
""",
            error=ERROR,
        ),
        Invalid(
            """
import torch
from torch import nn

class Net(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.body = nn.Linear(4, hidden)
        self.fc = nn.Linear(hidden, 2)

    def forward(self, x):
        return self.fc(torch.relu(self.body(x)))

model = Net(8)
model.requires_grad_(False)
loss = model(torch.randn(5, 4)).pow(2).mean()
loss.backward()
""",
            error=ERROR,
        ),
        Invalid(
            """
import torch
from torch import nn
rnn = nn.LSTM(4, 8, batch_first=True)
for name, param in rnn.named_parameters():
    param.requires_grad_(False)
out, (h, c) = rnn(torch.randn(2, 3, 4))
torch.autograd.backward(out.sum())
""",
            error=ERROR,
        ),
    )

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        """One finding per freeze that a backpropagated value depends on alone."""
        for event, loss in ctx.analysis.backpropagated_without_history(LossKind.FROZEN):
            name = expr_text(ctx.source, event.target)
            call = describe_backward(name, event.via)
            primary = _freeze_range(ctx, loss.node)
            model = _frozen_model(loss.node)
            owner = f"`{expr_text(ctx.source, model)}`" if model is not None else "the model"
            message = compose(
                f"{owner[0].upper()}{owner[1:]} is frozen: {backward_verb(event.via)} raises "
                f"{NO_GRAD_FN.quoted}",
                f"Every parameter of {owner} is frozen by {loss.description} (line "
                f"{primary.start.line + 1}) and `{name}` depends only on its outputs and on "
                f"inputs that do not require grad, so {call} (line {event.call.lineno}) finds no "
                "graph to go through",
                NO_GRAD_FN.in_full,
            )
            related = [Related(ctx.node_range(event.call), f"{call} raises: {ERROR}")]
            yield self.finding(message, primary, related, [])


def _freeze_range(ctx: RuleContext, node: ast.AST) -> Range:
    """The freezing statement: a loop's header line, or the `requires_grad_(False)` call."""
    if isinstance(node, ast.For | ast.AsyncFor):
        return ctx.header_range(node)
    return ctx.node_range(node)


def _frozen_model(node: ast.AST) -> ast.expr | None:
    if isinstance(node, ast.For | ast.AsyncFor) and isinstance(node.iter, ast.Call):
        func = node.iter.func
    elif isinstance(node, ast.Call):
        func = node.func
    else:
        return None
    return func.value if isinstance(func, ast.Attribute) else None
