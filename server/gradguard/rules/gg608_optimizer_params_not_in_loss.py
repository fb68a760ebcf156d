"""GG608 `optimizer-params-not-in-loss`

## What it does
Finds an optimizer built from `model.parameters()` that only ever steps after backward calls
on losses that never reach `model`: the loss comes from another model of the file
(`model2 = Net()`), from a deep copy (`copy.deepcopy(model)`), or — in a GAN — from the
other network (`optimizer_D = Adam(G.parameters())` while the discriminator's loss is
computed on `fake.detach()`). The optimizer's construction is flagged.

When other steps of the optimizer do train `model`, a step is flagged by itself when its
gradients were last cleared (`zero_grad()`) or applied (an earlier `step()` in its block)
just before a backward on a loss that never reaches `model`: in a GAN loop,
`loss_D.backward(); optimizer_G.step()` where `optimizer_D.step()` was meant re-applies the
generator's old gradients while the discriminator is never updated.

It fires only when the analysis is certain. `model` and the optimizer are plain names bound
once (also `G, D = Generator(), Discriminator()`); `model` is built right there by a class
that owns all its parameters, from numbers or a settings object (`class Opt: lr = 2e-4`,
never given anything else), or is a deep copy, so no other object shares them; the optimizer
may come from a builder (`make_opt(model)` returning `torch.optim.X(net.parameters())`, or
`g_opt, d_opt = make_opts(G, D)` returning one per network),
and `model` may be returned after training by the function that built it; `model` is
only called, moved, put in train/eval mode, deep-copied, asked for its parameters or state,
or asked a method of its own class that stores nothing and hands itself to nothing
(`model.init_hidden()`), never stored or aliased; the optimizer only steps (no closure),
zeroes gradients or feeds an LR scheduler. Both may be handed to a function of the file
called exactly once (`train_gan(G, D, g_opt, d_opt)` from `main`) that never rebinds those
parameters: its parameters are then the very same model and optimizer, held to the same
rules. Every `optimizer.step()` follows a backward in its block, and since the gradients
were last cleared no call there is given anything that a value computed from `model` may
flow into (a flow-insensitive over-approximation over every name of the file). A name whose
every binding certainly holds no history (`target = r + gamma * target_net(s2).max(1).values`
under no_grad, a `.detach()`) and that nothing changes in place passes no gradient on, and
neither does a call of `model` itself made under no_grad; such a cut counts only when each
loss still trains another model (a loss cut from every model is a cut history, GG102 or
GG108's finding). An optimizer
over `model.encoder.parameters()`, over `itertools.chain(...)` or param groups, a model
passed to a helper called more than once or held in `self`: silent.

One case held in `self` is certain: `self.opt = torch.optim.X(self.m.parameters())` in the
`__init__` of a plain class (no base), where `self.m` is a deep copy or a module owning all
its parameters, every call of it runs with grad certainly off (`torch.no_grad()` in the
method or around every call of it), and the attribute is otherwise only asked for its
parameters by an optimizer, for its state, or moved or put in a mode as a statement (a DQN
optimizer built on the target network). No backward anywhere gives `m` a gradient: each
`self.opt.step()` after a backward of a loss with history is flagged. A loss that has no
history at all but had `requires_grad` forced on after the cut is GG109's finding, not this
rule's.

## Why is this bad?
An optimizer updates exactly the tensors it was given, from their `.grad`. `backward()` on a
loss computed without `model` fills the gradients of the modules the loss does run, and
nothing of `model`: `optimizer.step()` then leaves `model` as it was (or applies whatever
stale gradient it still has), and the model that produced the loss is never updated by
anyone. Nothing raises: the loss may even move by chance while the weights of the model
being evaluated stay at their initial values.

## Example
```python
model = Net()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
model2 = Net()  # the model actually trained
for x, y in loader:
    loss = criterion(model2(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()  # updates `model`; `model2` never changes
```

## Use instead
```python
model2 = Net()
optimizer = torch.optim.SGD(model2.parameters(), lr=0.1)
```

## Fix safety
No fix is offered: which model was meant to train (the optimizer's or the loss's) is the
author's call.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

from gradguard.analysis.facts import UnreachedOptimizer, forced_grad_backprops
from gradguard.core.findings import Finding, Related, Severity
from gradguard.core.messages import compose
from gradguard.core.rule import Invalid, Rule, RuleContext


class OptimizerParamsNotInLoss(Rule):
    """An optimizer holding parameters that the losses before its steps never reach."""

    code = "GG608"
    name = "optimizer-params-not-in-loss"
    severity = Severity.ERROR
    summary = "optimizer steps a model the backpropagated loss never reaches"

    valid = (
        # A GAN with two optimizers, each on the network its loss trains.
        """
import torch
from torch import nn
G = nn.Sequential(nn.Linear(2, 8), nn.ReLU(), nn.Linear(8, 4))
D = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
opt_G = torch.optim.Adam(G.parameters(), lr=1e-3)
opt_D = torch.optim.Adam(D.parameters(), lr=1e-3)
bce = nn.BCEWithLogitsLoss()
for step in range(3):
    real = torch.randn(16, 4)
    fake = G(torch.randn(16, 2))
    opt_D.zero_grad()
    loss_D = bce(D(real), torch.ones(16, 1)) + bce(D(fake.detach()), torch.zeros(16, 1))
    loss_D.backward()
    opt_D.step()
    opt_G.zero_grad()
    loss_G = bce(D(fake), torch.ones(16, 1))
    loss_G.backward()
    opt_G.step()
""",
        # Only the head is optimized; the loss runs the whole model, head included.
        """
import torch
from torch import nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(4, 8)
        self.head = nn.Linear(8, 2)

    def forward(self, x):
        return self.head(torch.relu(self.body(x)))

model = Net()
optimizer = torch.optim.SGD(model.head.parameters(), lr=0.1)
for step in range(3):
    loss = model(torch.randn(8, 4)).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
""",
        # An EMA copy, updated under no_grad; the optimizer trains the model the loss runs.
        """
import copy
import torch
from torch import nn
model = nn.Linear(4, 2)
ema = copy.deepcopy(model)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    loss = model(torch.randn(8, 4)).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    with torch.no_grad():
        for e, p in zip(ema.parameters(), model.parameters()):
            e.mul_(0.99).add_(p, alpha=0.01)
""",
        # Distillation: the frozen teacher is not optimized, the student is.
        """
import torch
from torch import nn
import torch.nn.functional as F
teacher = nn.Linear(4, 3)
teacher.requires_grad_(False)
student = nn.Linear(4, 3)
optimizer = torch.optim.Adam(student.parameters(), lr=1e-3)
for step in range(3):
    x = torch.randn(8, 4)
    with torch.no_grad():
        target = F.softmax(teacher(x), dim=1)
    loss = F.kl_div(F.log_softmax(student(x), dim=1), target, reduction="batchmean")
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
""",
        # The other model wraps the optimized one: the loss does reach its parameters.
        """
import torch
from torch import nn
backbone = nn.Linear(4, 8)
model = nn.Sequential(backbone, nn.ReLU(), nn.Linear(8, 2))
optimizer = torch.optim.SGD(backbone.parameters(), lr=0.1)
for step in range(3):
    loss = model(torch.randn(8, 4)).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
""",
    )

    invalid = (
        Invalid(
            """
import torch
from torch import nn
model = nn.Linear(4, 2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
model2 = nn.Linear(4, 2)
before = model2.weight.detach().clone()
for step in range(3):
    loss = model2(torch.randn(8, 4)).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print("weights-moved", not torch.equal(before, model2.weight))  # False
"""
        ),
        Invalid(
            """
import copy
import torch
from torch import nn
model = nn.Linear(4, 2)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
model_copy = copy.deepcopy(model)
before = model_copy.weight.detach().clone()
for step in range(3):
    loss = model_copy(torch.randn(8, 4)).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print("weights-moved", not torch.equal(before, model_copy.weight))  # False
"""
        ),
        Invalid(
            """
import torch
from torch import nn
G = nn.Sequential(nn.Linear(2, 8), nn.ReLU(), nn.Linear(8, 4))
D = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
opt_G = torch.optim.Adam(G.parameters(), lr=1e-3)
opt_D = torch.optim.Adam(G.parameters(), lr=1e-3)  # meant D.parameters()
bce = nn.BCEWithLogitsLoss()
before = D[0].weight.detach().clone()
for step in range(3):
    real = torch.randn(16, 4)
    fake = G(torch.randn(16, 2))
    opt_D.zero_grad()
    loss_D = bce(D(real), torch.ones(16, 1)) + bce(D(fake.detach()), torch.zeros(16, 1))
    loss_D.backward()
    opt_D.step()
print("weights-moved", not torch.equal(before, D[0].weight))  # False
"""
        ),
    )

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        """One finding per optimizer whose steps no loss before them reaches."""
        # A loss whose requires_grad was forced on after a cut is GG109's: the cut is the bug.
        forced = {id(f.backward.call) for f in forced_grad_backprops(ctx.analysis)}
        for fact in ctx.unreached_optimizers:
            if fact.every_step:
                if not any(id(b.call) in forced for b in fact.backwards):
                    yield self._finding(ctx, fact)
                continue
            for step, backward in zip(fact.steps, fact.backwards, strict=True):
                if id(backward.call) not in forced:
                    one = dataclasses.replace(fact, steps=(step,), backwards=(backward,))
                    yield self._finding(ctx, one)

    def _finding(self, ctx: RuleContext, fact: UnreachedOptimizer) -> Finding:
        backward = fact.backwards[0]
        loss = ctx.source.slice(ctx.node_range(backward.target))
        step_line = fact.steps[0].stmt.lineno
        source = ""
        if fact.trained:
            names = ", ".join(f"`{name}`" for name in fact.trained)
            source = f" (it comes from {names}, which `{fact.optimizer}` does not hold)"
        if not fact.every_step:
            return self._step_finding(ctx, fact, loss, source)
        copy = ""
        if fact.copied:
            copy = f"; `{fact.module}` is a deep copy and shares no parameter with its original"
        message = compose(
            f"`{loss}` never reaches `{fact.module}`: `{fact.optimizer}.step()` never trains on it",
            f"`{fact.optimizer}` holds the parameters of `{fact.module}`, but `{loss}`, "
            f"backpropagated before `{fact.optimizer}.step()` (line {step_line}), does not "
            f"reach them{source}, so the model the loss measures never changes{copy}",
        )
        related = [
            Related(ctx.node_range(backward.call), f"`{loss}` never reaches `{fact.module}`"),
            *(
                Related(ctx.node_range(step.node), f"steps only `{fact.module}`'s parameters")
                for step in fact.steps
            ),
        ]
        return self.finding(message, ctx.node_range(fact.call), related, [])

    def _step_finding(
        self, ctx: RuleContext, fact: UnreachedOptimizer, loss: str, source: str
    ) -> Finding:
        """A step of an optimizer whose other steps do train its model: the step itself is
        the wrong one (`optimizer_G.step()` where `optimizer_D.step()` was meant)."""
        step = fact.steps[0]
        backward = fact.backwards[0]
        message = compose(
            f"`{loss}` never reaches `{fact.module}`: this `{fact.optimizer}.step()` never "
            "trains on it",
            f"`{fact.optimizer}` holds the parameters of `{fact.module}`, and since their "
            f"gradients were last cleared or applied only `{loss}` was backpropagated "
            f"(line {backward.stmt.lineno}), which does not reach them{source}",
            "The step re-applies old gradients (or none) while the model the loss measures "
            "is not updated; step the optimizer of that model instead",
        )
        related = [
            Related(ctx.node_range(backward.call), f"`{loss}` never reaches `{fact.module}`"),
            Related(ctx.node_range(fact.call), f"`{fact.optimizer}` holds `{fact.module}` only"),
        ]
        return self.finding(message, ctx.node_range(step.node), related, [])
