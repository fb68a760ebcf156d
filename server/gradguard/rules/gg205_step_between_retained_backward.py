"""GG205 `step-between-retained-backward`

## What it does
Finds an `optimizer.step()` between a `backward(retain_graph=True)` and a second backward
through the same graph, when that graph saved parameters the step changes:

```python
out = D(fake)
d_loss.backward(retain_graph=True)   # keeps the graph of `out` for later
opt_d.step()                         # changes D's weights in place
g_loss = criterion(out, real_label)  # `out` still comes from the old weights
g_loss.backward()                    # needs them: RuntimeError
```

The first backward need not retain anything: when both losses are computed first and
then backpropagated and stepped in turn (`g_loss = -D(fake).mean()` before `opt_d.step()`),
the second backward runs through a call of `D` made before the step, whose saved weights
the step changed, while the first backward gave `D` its gradients through another call of
it (`D(real)`, `D(fake.detach())`).

It fires only when the analysis is certain: the three calls run one after the other in one
block; the second backward certainly runs through a call of a module whose parameters the
stepped optimizer holds (built from `<module>.parameters()`), made before the step; the
first backward ran through that call (retaining its graph) or, without retaining, through
another call of the same module (so the step has gradients to apply); and that call
certainly saved one of those parameters. Whether a layer saves its weight is torch's
business, checked against torch 2.13.0: convolutions and recurrent layers always do,
`nn.Linear` only when its input requires grad (a Linear on a plain data batch keeps no
weight, and the second backward works). Modules are followed into an `nn.Sequential` of
literal layers and into a class of the file whose `forward` is a straight chain of its own
layers, or first runs one of its layers and computes everything it may return from that
layer's output (a VAE that splits its encoder's output, samples, and maybe decodes; an
actor-critic network returning `Categorical(logits=self.pi(h))` and a value of its shared
body's output `h`), also an `nn.Sequential` subclass of the file adding its layers by name.
The stepped optimizer may hold only the layer that saved the weight (`self.model.body`,
kept by a trainer's `__init__` from `list(model.body.parameters()) + ...`). A file that may
switch `requires_grad` off somewhere is left alone (a frozen weight gets no gradient, so the
step leaves it untouched).

The second backward may be the same call on the loop's next iteration: a graph built once
before the loop (`h = model.embed(x)`, a method of a module class of the file read like its
`forward`), a `backward(retain_graph=True)` through it on every iteration of a loop that
certainly runs at least twice and never leaves an iteration early, and a step after it in
the loop body (`analysis.repeated_backward`):

```python
h = model.embed(feats)                 # computed once, before the loop
for epoch in range(3):
    loss = criterion(model(h), target)
    loss.backward(retain_graph=True)   # runs through h's graph again next epoch
    optimizer.step()                   # changes the weights h's graph saved
```

## Why is this bad?
`optimizer.step()` updates parameters in place, bumping their version counter. A node of
the retained graph that saved a parameter checks that version when the second backward
needs it, and fails:

    RuntimeError: one of the variables needed for gradient computation has been modified by
    an inplace operation: [torch.FloatTensor [1, 8]], which is output 0 of AsStrided, is at
    version 2; expected version 1 instead.

Since PyTorch 1.5 this is the classic crash of GAN scripts that backpropagate the
generator's loss through a discriminator output computed before the discriminator's step.
(Before 1.5 they ran, silently using gradients of weights that no longer existed.)

## Example
```python
fake = netG(noise)
output = netD(fake)
errD = criterion(output, fake_label)
errD.backward(retain_graph=True)
optimizerD.step()
errG = criterion(output, real_label)
errG.backward()
optimizerG.step()
```

## Use instead
Recompute what the second loss needs after the step:
```python
errD = criterion(netD(fake.detach()), fake_label)
errD.backward()
optimizerD.step()
errG = criterion(netD(fake), real_label)
errG.backward()
optimizerG.step()
```
or, when both losses train the same parameters, step once after both backward passes.

## Fix safety
"Step after the second backward" moves the `step()` to just after the second backward. It
is offered only when one optimizer is stepped in the function, nothing between the step and
the second backward touches gradients (`zero_grad`), and the optimizer is not stepped again
after the second backward. It is unsafe: the step then applies the gradients of both losses
instead of the first loss's alone, which is the usual intent of two losses on one
optimizer, but not a rewrite that keeps the meaning. With two optimizers (a GAN) no fix is
offered: moving the discriminator's step after the generator's backward would train the
discriminator on the generator's loss; the forward pass has to be recomputed after the step.
Nor is one offered when the second backward is the same call on the loop's next iteration:
moving the computation into the loop changes what each epoch trains on.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass

from gradguard.analysis import torch_api as api
from gradguard.analysis.facts import (
    BackwardCall,
    Kind,
    LoopTrips,
    ModuleCall,
    ModuleMethodCall,
    ModuleRef,
    OptimizedParameters,
    OptimizerCall,
    ParameterSaves,
    RepeatedBackward,
    SavedNode,
    SavedParameter,
    dotted,
    periodic_divisor,
    repeated_backwards,
    within,
)
from gradguard.core.findings import Finding, Fix, Related, Safety, Severity
from gradguard.core.messages import MODIFIED_INPLACE, compose
from gradguard.core.rule import Invalid, Rule, RuleContext
from gradguard.rewrite.expressions import expr_text
from gradguard.rewrite.statements import (
    delete_statement,
    insert_after,
    stands_alone,
    trailing_comment,
)

_ERROR = (
    "one of the variables needed for gradient computation has been modified by an inplace operation"
)
# Text that may switch `requires_grad` off somewhere (`p.requires_grad = False`,
# `requires_grad_(flag)`, `requires_grad=cond`): a frozen parameter gets no gradient and the
# step leaves it alone, so such files are not judged. `requires_grad=True` is harmless.
_MAY_FREEZE = re.compile(r"requires_grad_?\s*(?:=(?!=)|\()\s*(?!True\b|\))")


@dataclass(frozen=True)
class _Crash:
    """A step between two backward passes through a node that saved a stepped parameter."""

    first: BackwardCall
    step: OptimizerCall
    second: BackwardCall
    node: SavedNode
    saved: SavedParameter
    module: ast.expr  # the module whose call (or method call) saved the weight
    layer: str | None = None  # its layer (an attribute) holding the stepped parameters
    # Whether `first` retained the graph `second` runs through again; else `first` only
    # gave the stepped module its gradients, through another call of it.
    retained: bool = True


class StepBetweenRetainedBackward(Rule):
    """An optimizer step between two backward passes through a graph that saved the
    parameters it changes."""

    code = "GG205"
    name = "step-between-retained-backward"
    severity = Severity.ERROR
    summary = (
        "optimizer.step() changes parameters a retained graph saved, before its second backward"
    )

    valid = (
        # nn.Linear on a plain batch keeps no weight: the second pass works.
        """
import torch
from torch import nn
D = nn.Linear(4, 1)
opt_d = torch.optim.SGD(D.parameters(), lr=0.1)
out = D(torch.randn(8, 4))
out.pow(2).mean().backward(retain_graph=True)
opt_d.step()
out.abs().mean().backward()
""",
        # GAN: the generator's loss recomputes D's output after D's step.
        """
import torch
from torch import nn
G = nn.Linear(2, 2)
D = nn.Sequential(nn.Linear(2, 8), nn.LeakyReLU(0.2), nn.Linear(8, 1))
opt_g = torch.optim.Adam(G.parameters(), lr=1e-3)
opt_d = torch.optim.Adam(D.parameters(), lr=1e-3)
fake = G(torch.randn(4, 2))
d_loss = nn.functional.softplus(D(fake)).mean()
opt_d.zero_grad()
d_loss.backward(retain_graph=True)
opt_d.step()
g_loss = nn.functional.softplus(-D(fake)).mean()
opt_g.zero_grad()
g_loss.backward()
opt_g.step()
""",
        # One optimizer, stepped after both backward passes.
        """
import torch
from torch import nn
model = nn.Sequential(nn.Conv1d(1, 4, 3), nn.ReLU(), nn.Flatten(), nn.Linear(24, 2))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
out = model(torch.randn(8, 1, 8))
optimizer.zero_grad()
out[:, 0].pow(2).mean().backward(retain_graph=True)
out[:, 1].abs().mean().backward()
optimizer.step()
""",
        # Two forward passes: the second backward runs through a graph built after the step.
        """
import torch
from torch import nn
model = nn.Sequential(nn.Conv1d(1, 4, 3), nn.ReLU(), nn.Flatten(), nn.Linear(24, 2))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(8, 1, 8)
first = model(x).pow(2).mean()
first.backward(retain_graph=True)
optimizer.step()
second = model(x).abs().mean()
second.backward()
""",
        # The step changes G, the second backward runs through D only (on a detached input).
        """
import torch
from torch import nn
G = nn.Sequential(nn.Linear(2, 8), nn.ReLU(), nn.Linear(8, 2))
D = nn.Sequential(nn.Linear(2, 8), nn.LeakyReLU(0.2), nn.Linear(8, 1))
opt_g = torch.optim.Adam(G.parameters(), lr=1e-3)
opt_d = torch.optim.Adam(D.parameters(), lr=1e-3)
fake = G(torch.randn(4, 2))
g_loss = -D(fake).mean()
opt_g.zero_grad()
g_loss.backward(retain_graph=True)
opt_g.step()
d_loss = D(fake.detach()).mean()
opt_d.zero_grad()
d_loss.backward()
opt_d.step()
""",
        # The features are computed again on every epoch: each backward has its own graph.
        """
import torch
from torch import nn
encoder = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 8))
head = nn.Linear(8, 1)
optimizer = torch.optim.SGD([*encoder.parameters(), *head.parameters()], lr=0.1)
x = torch.randn(6, 4)
for epoch in range(3):
    h = encoder(x)
    loss = head(h).pow(2).mean()
    optimizer.zero_grad()
    loss.backward(retain_graph=True)
    optimizer.step()
""",
    )

    invalid = (
        Invalid(
            """
import torch
from torch import nn
encoder = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 8))
head = nn.Linear(8, 1)
optimizer = torch.optim.SGD([*encoder.parameters(), *head.parameters()], lr=0.1)
h = encoder(torch.randn(6, 4))
for epoch in range(3):
    loss = head(h).pow(2).mean()
    optimizer.zero_grad()
    loss.backward(retain_graph=True)
    optimizer.step()
""",
            error=_ERROR,
        ),
        Invalid(
            """
import torch
from torch import nn
G = nn.Linear(2, 2)
D = nn.Sequential(nn.Linear(2, 8), nn.LeakyReLU(0.2), nn.Linear(8, 1))
opt_g = torch.optim.Adam(G.parameters(), lr=1e-3)
opt_d = torch.optim.Adam(D.parameters(), lr=1e-3)
fake = G(torch.randn(4, 2))
out = D(fake)
d_loss = nn.functional.softplus(out).mean()
opt_d.zero_grad()
d_loss.backward(retain_graph=True)
opt_d.step()
g_loss = nn.functional.softplus(-out).mean()
opt_g.zero_grad()
g_loss.backward()
opt_g.step()
""",
            error=_ERROR,
        ),
        Invalid(
            """
import torch
from torch import nn
model = nn.Sequential(nn.Conv1d(1, 4, 3), nn.ReLU(), nn.Flatten(), nn.Linear(24, 2))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
out = model(torch.randn(8, 1, 8))
loss_a = out[:, 0].pow(2).mean()
loss_b = out[:, 1].abs().mean()
optimizer.zero_grad()
loss_a.backward(retain_graph=True)
optimizer.step()
loss_b.backward()
""",
            fixed="""
import torch
from torch import nn
model = nn.Sequential(nn.Conv1d(1, 4, 3), nn.ReLU(), nn.Flatten(), nn.Linear(24, 2))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
out = model(torch.randn(8, 1, 8))
loss_a = out[:, 0].pow(2).mean()
loss_b = out[:, 1].abs().mean()
optimizer.zero_grad()
loss_a.backward(retain_graph=True)
loss_b.backward()
optimizer.step()
""",
            unsafe_fix=True,
            error=_ERROR,
        ),
        Invalid(
            """
import torch
from torch import nn


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.main = nn.Sequential(
            nn.Conv2d(1, 4, 3, 2, 1), nn.LeakyReLU(0.2), nn.Flatten(), nn.Linear(16, 1)
        )

    def forward(self, x):
        return torch.sigmoid(self.main(x))


netG = nn.ConvTranspose2d(2, 1, 4)
netD = Discriminator()
optimizerD = torch.optim.Adam(netD.parameters(), lr=2e-4)
optimizerG = torch.optim.Adam(netG.parameters(), lr=2e-4)
criterion = nn.BCELoss()
for step in range(2):
    fake = netG(torch.randn(3, 2, 1, 1))
    output = netD(fake)
    netD.zero_grad()
    errD = criterion(output, torch.zeros(3, 1))
    errD.backward(retain_graph=True)
    optimizerD.step()
    netG.zero_grad()
    errG = criterion(output, torch.ones(3, 1))
    errG.backward()
    optimizerG.step()
""",
            error=_ERROR,
        ),
    )

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        """One finding per step that changes parameters a retained graph saved before a
        second backward through it."""
        if _MAY_FREEZE.search(ctx.source.text):
            return
        for crash in _Finder(ctx).crashes():
            yield self._report(ctx, crash)

    def _report(self, ctx: RuleContext, crash: _Crash) -> Finding:
        step = crash.step
        optimizer = expr_text(ctx.source, step.target)
        held = step.value.optimizes
        assert held is not None
        call = crash.node.node
        first = expr_text(ctx.source, crash.first.target)
        second = expr_text(ctx.source, crash.second.target)
        call_text = expr_text(ctx.source, call) if isinstance(call, ast.expr) else held.key
        # The module of the saving call: one of the several an optimizer may hold.
        stepped = expr_text(ctx.source, crash.module)
        if crash.layer is not None:
            stepped = f"{stepped}.{crash.layer}"
        line = getattr(call, "lineno", "?")
        if crash.first is crash.second:
            summary = f"`{optimizer}.step()` before the next `{second}.backward()` raises"
            where = (
                f"It changes the parameters of `{stepped}` in place after "
                f"`{first}.backward(retain_graph=True)` (line {crash.first.call.lineno}), "
                f"which runs again on the loop's next iteration through `{call_text}` (line "
                f"{line}), computed before the loop: its {crash.saved.description} saved a "
                "weight"
            )
            advice = f"Compute `{call_text}` inside the loop, or step after the loop"
        else:
            summary = f"`{optimizer}.step()` before `{second}.backward()` raises"
            kept = "(retain_graph=True)" if crash.retained else "()"
            where = (
                f"It changes the parameters of `{stepped}` in place between "
                f"`{first}.backward{kept}` and `{second}.backward()` (line "
                f"{crash.second.call.lineno}), which backpropagates through `{call_text}` "
                f"(line {line}), computed before the step: its {crash.saved.description} "
                "saved a weight"
            )
            advice = f"Recompute `{call_text}` after the step, or step after both backward passes"
        message = compose(
            f"{summary} {MODIFIED_INPLACE.quoted}",
            where,
            advice,
            MODIFIED_INPLACE.in_full,
        )
        second_note = (
            "runs again through it on the next iteration"
            if crash.first is crash.second
            else "the second backward through it"
        )
        first_note = (
            "the graph is retained here"
            if crash.retained
            else "the stepped parameters get their gradients here"
        )
        related = [
            Related(ctx.node_range(crash.first.call), first_note),
            Related(ctx.node_range(crash.second.call), second_note),
            Related(ctx.node_range(call), "computed before the step, saved a weight"),
        ]
        fixes = _move_step(ctx, crash) if crash.first is not crash.second else []
        return self.finding(message, ctx.node_range(step.stmt), related, fixes)


class _Finder:
    """Looks for the crash shape over the analysis of one file."""

    def __init__(self, ctx: RuleContext) -> None:
        self.ctx = ctx
        events = ctx.analysis.events
        self.module_calls = {id(u.node): u for u in events.of(ModuleCall)}
        self.method_calls = {id(u.node): u for u in events.of(ModuleMethodCall)}
        qualified = {id(t.call): t.qualified for t in ctx.analysis.torch_calls}
        self.saves = ParameterSaves(ctx.tree, lambda call: qualified.get(id(call)))
        self.steps = [u for u in events.of(OptimizerCall) if _is_step(u)]

    def crashes(self) -> Iterator[_Crash]:
        reported: set[int] = set()
        for first in self.ctx.analysis.backward_calls:
            if not _fills_gradients(first):
                continue
            for step in self._steps_after(first):
                if id(step.stmt) in reported:
                    continue
                crash = self._crash(first, step)
                if crash is not None:
                    reported.add(id(step.stmt))
                    yield crash
        for again in self._repeated():
            for step in self._steps_after(again.call):
                if id(step.stmt) in reported:
                    continue
                crash = self._crash_again(again, step)
                if crash is not None:
                    reported.add(id(step.stmt))
                    yield crash

    def _repeated(self) -> Iterator[RepeatedBackward]:
        """Retaining backward calls that run again on a loop's next iteration through nodes
        built before the loop, which no backward of the loop frees in between."""
        analysis = self.ctx.analysis
        calls = [b for b in analysis.backward_calls if _retains(b) and not b.through_freed]
        for again in repeated_backwards(calls, analysis.events.of(LoopTrips)):
            inside = {id(n) for n in ast.walk(again.loop)}
            others = [b for b in analysis.backward_calls if id(b.call) in inside]
            kept = frozenset(
                n for n in again.kept if all(_retains(b) for b in others if n in b.value.graph)
            )
            if kept:
                yield RepeatedBackward(again.call, again.loop, kept)

    def _crash_again(self, again: RepeatedBackward, step: OptimizerCall) -> _Crash | None:
        """The step, later in the body, changes a weight a node built before the loop
        saved: the call's run on the next iteration needs it."""
        held = step.value.optimizes
        assert held is not None
        first = again.call
        for node in sorted(again.kept, key=_position):
            found = self._saved_parameter(node, held, first)
            if found is not None:
                return _Crash(first, step, first, node, *found)
        return None

    def _steps_after(self, first: BackwardCall) -> Iterator[OptimizerCall]:
        """Steps later in the block of `first`, with nothing that may clear gradients
        between (a step finding no gradient changes nothing)."""
        _, block = self.ctx.analysis.block_of(first.stmt)
        index = _index(block, first.stmt)
        for step in self.steps:
            at = _index(block, step.stmt)
            if at is None or index is None or at <= index:
                continue
            if not any(self._may_clear_gradients(s) for s in block[index + 1 : at]):
                yield step

    def _may_clear_gradients(self, stmt: ast.stmt) -> bool:
        opaque = self.ctx.analysis.opaque_with_training_state
        for node in ast.walk(stmt):
            if isinstance(node, ast.Attribute) and node.attr in ("zero_grad", "grad"):
                return True
            if isinstance(node, ast.Call) and id(node) in opaque:
                return True
        return False

    def _crash(self, first: BackwardCall, step: OptimizerCall) -> _Crash | None:
        """A second backward after `step` through a node that saved a weight `step` changes:
        a node `first` retained, or any node computed before the step, in the step's block,
        by a call of a module whose forward `first` ran through (so the step has that
        module's gradients to apply)."""
        held = step.value.optimizes
        assert held is not None
        retained = _retains(first)
        for second in self.ctx.analysis.backward_calls:
            if second is first or not _second_pass(second):
                continue
            if not self._follows(step.stmt, second.stmt):
                continue
            if retained:
                nodes = first.value.graph & second.value.graph
            else:
                nodes = frozenset(
                    n
                    for n in second.value.graph
                    if self._made_before(n, step.stmt) and self._reached(first, n)
                )
            for node in sorted(nodes, key=_position):
                found = self._saved_parameter(node, held, second)
                if found is not None:
                    return _Crash(first, step, second, node, *found, retained=retained)
        return None

    def _made_before(self, node: SavedNode, step: ast.stmt) -> bool:
        """`node` is a call evaluated by a statement of the step's block before the step."""
        _, block = self.ctx.analysis.block_of(step)
        at = _index(block, step)
        return at is not None and any(within(node.node, s) for s in block[:at])

    def _reached(self, first: BackwardCall, node: SavedNode) -> bool:
        """`first` ran through a call (not a method call) of the module `node` calls: its
        weights got gradients from it."""
        use = self.module_calls.get(id(node.node))
        if use is None or use.value.module is None:
            return False
        key = dotted(use.target)
        for other in first.value.graph:
            seen = self.module_calls.get(id(other.node))
            if (
                seen is not None
                and seen.value.module == use.value.module
                and key is not None
                and dotted(seen.target) == key
            ):
                return True
        return False

    def _follows(self, step: ast.stmt, second: ast.stmt) -> bool:
        """`second` runs after `step` whenever `step` runs: later in its block, or later in
        the block around an `if` that steps once every k iterations (`if i % k == 0:`,
        whose body holds the step), which then certainly runs on some iteration."""
        owner, block = self.ctx.analysis.block_of(step)
        at, where = _index(block, step), _index(block, second)
        if at is not None and where is not None:
            return where > at
        if not (
            isinstance(owner, ast.If)
            and block is owner.body
            and periodic_divisor(owner.test) is not None
        ):
            return False
        _, outer = self.ctx.analysis.block_of(owner)
        at, where = _index(outer, owner), _index(outer, second)
        return at is not None and where is not None and where > at

    def _saved_parameter(
        self, node: SavedNode, held: OptimizedParameters, second: BackwardCall
    ) -> tuple[SavedParameter, ast.expr, str | None] | None:
        """The weight `node` saved, when it is a call (or a method call) of the module
        `held` holds, or of a module class of the file whose layer holding that weight
        `held` holds (`self.model.trunk` of a call of `self.model`), with the expression of
        that module and the layer's attribute."""
        use: ModuleCall | ModuleMethodCall | None = self.module_calls.get(id(node.node))
        if use is None:
            use = self.method_calls.get(id(node.node))
        module = use.value.module if use is not None else None
        key = dotted(use.target) if use is not None else None
        if use is None or module is None or key is None:
            return None
        if not isinstance(node.node, ast.Call):
            return None
        whole = held.holds(key, module)
        if not whole and module.local is None:
            return None
        requires_grad = self._input_requires_grad(node.node, use, second.value.graph)
        if isinstance(use, ModuleMethodCall):
            saved = self.saves.saved_by_method(node.node, module, use.method, requires_grad)
        else:
            saved = self.saves.saved_parameter(node.node, module, requires_grad)
        if saved is None:
            return None
        if whole:
            return saved, use.target, None
        return (
            (saved, use.target, saved.attribute) if _holds_layer(held, key, module, saved) else None
        )

    def _input_requires_grad(
        self, call: ast.Call, use: ModuleCall | ModuleMethodCall, graph: frozenset[SavedNode]
    ) -> bool:
        """Whether the first input of `call` certainly has autograd history: it is (or a
        name bound straight from) a call whose result the graph certainly went through."""
        if len(call.args) != 1 or call.keywords:
            return False
        nodes = {id(n.node) for n in graph}
        argument = call.args[0]
        if isinstance(argument, ast.Call):
            return id(argument) in nodes
        if not isinstance(argument, ast.Name):
            return False
        bound = _binding_before(self.ctx, use.stmt, argument.id)
        return isinstance(bound, ast.Call) and id(bound) in nodes


def _holds_layer(
    held: OptimizedParameters, key: str, module: ModuleRef, saved: SavedParameter
) -> bool:
    """Whether `held` holds the layer of `module` (a module class of the file, held at
    `key`) whose weight `saved` is: the layer `__init__` of the class keeps at that
    attribute."""
    info = module.local
    layer = info.attributes.get(saved.attribute) if info and saved.attribute else None
    ref = layer.module if layer is not None and layer.kind is Kind.MODULE else None
    return ref is not None and held.holds_layer(f"{key}.{saved.attribute}", ref)


def _binding_before(ctx: RuleContext, stmt: ast.stmt, name: str) -> ast.expr | None:
    """The value of `name = <value>`, the last statement before `stmt` in its block that
    binds or touches `name`, when nothing else in between mentions it as a target or
    changes it in place (`name.detach_()`)."""
    _, block = ctx.analysis.block_of(stmt)
    index = _index(block, stmt)
    for earlier in reversed(block[: index or 0]):
        if (
            isinstance(earlier, ast.Assign)
            and len(earlier.targets) == 1
            and isinstance(earlier.targets[0], ast.Name)
            and earlier.targets[0].id == name
        ):
            return earlier.value
        if _touches(earlier, name):
            return None
    return None


def _touches(stmt: ast.stmt, name: str) -> bool:
    """Whether `stmt` may re-bind `name` or change it in place."""
    for node in ast.walk(stmt):
        if isinstance(node, ast.Name) and node.id == name and not isinstance(node.ctx, ast.Load):
            return True
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == name
            and node.attr.endswith("_")
        ):
            return True
        if isinstance(node, ast.FunctionDef | ast.ClassDef | ast.Global | ast.Nonlocal):
            return True
    return False


def _is_step(use: OptimizerCall) -> bool:
    """`opt.step()` as a statement, on an optimizer built from one module's parameters
    that has not gone stale."""
    held = use.value.optimizes
    return (
        use.method == "step"
        and isinstance(use.stmt, ast.Expr)
        and use.stmt.value is use.node
        and held is not None
        and held.stale is None
    )


def _retains(event: BackwardCall) -> bool:
    """`x.backward(retain_graph=True)`, backpropagating into every leaf (no `inputs=`)."""
    keyword = event.retain_graph
    return (
        event.via == "backward"
        and keyword is not None
        and isinstance(keyword.value, ast.Constant)
        and keyword.value.value is True
        and not any(k.arg == "inputs" for k in event.call.keywords)
    )


def _fills_gradients(event: BackwardCall) -> bool:
    """`x.backward(...)` into every leaf (no `inputs=`), with keywords torch knows only (an
    old one, `retain_variables=True`, raises TypeError first on current torch): it fills
    the gradients of the parameters its graph ran through."""
    return event.via == "backward" and all(
        k.arg in api.BACKWARD_KEYWORDS and k.arg != "inputs" for k in event.call.keywords
    )


def _second_pass(event: BackwardCall) -> bool:
    """A backward call that would run normally: nothing it needs was freed before."""
    return event.via == "backward" and not event.through_freed


def _index(block: list[ast.stmt], stmt: ast.stmt) -> int | None:
    return next((i for i, s in enumerate(block) if s is stmt), None)


def _position(node: SavedNode) -> tuple[int, int]:
    return getattr(node.node, "lineno", 0), getattr(node.node, "col_offset", 0)


def _move_step(ctx: RuleContext, crash: _Crash) -> list[Fix]:
    """Move the step after the second backward, when one optimizer trains everything."""
    step, second = crash.step, crash.second
    _, block = ctx.analysis.block_of(step.stmt)
    at, end = _index(block, step.stmt), _index(block, second.stmt)
    if at is None or end is None or not isinstance(second.stmt, ast.Expr):
        return []
    if not (stands_alone(ctx.source, step.stmt) and stands_alone(ctx.source, second.stmt)):
        return []
    key = expr_text(ctx.source, step.target)
    others = [
        u
        for u in ctx.analysis.events.of(OptimizerCall)
        if u.method == "step" and u.function is step.function
    ]
    if any(expr_text(ctx.source, u.target) != key for u in others):
        return []
    after = block[end + 1 :]
    if any(u.stmt in after for u in others):
        return []
    if any(_mentions_grad(s) for s in block[at + 1 : end]):
        return []
    text = ctx.source.slice(ctx.node_range(step.stmt)) + trailing_comment(ctx.source, step.stmt)
    edits = (delete_statement(ctx.source, step.stmt), insert_after(ctx.source, second.stmt, text))
    return [Fix("Step after the second backward", Safety.UNSAFE, edits)]


def _mentions_grad(stmt: ast.stmt) -> bool:
    return any(
        isinstance(n, ast.Attribute) and n.attr in ("zero_grad", "grad", "step")
        for n in ast.walk(stmt)
    )
