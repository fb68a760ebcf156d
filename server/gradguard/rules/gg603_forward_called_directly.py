"""GG603 `forward-called-directly`

## What it does
Finds `model.forward(x)` on a module the file knows (a `torch.nn` module, or an `nn.Module`
subclass defined in the file), in a file that may register module hooks that stay
registered (a `register_*hook` call, or modules handed to other code with
`named_modules()`). A model summary's hooks
(`summary(model, ...)` of torchinfo, torchsummary or torchkeras, Lightning's
`ModelSummary`) are removed once the summary has run: they do not count.
`super().forward(...)` and `self.forward(...)` inside the class are left alone, and so is
`model.forward(x)` when every hook is registered on another module named by a longer or
shorter path (`model.layer4.register_forward_hook(fn)`): `model.forward` calls its
children, so their hooks run, and it has none of its own.

Where no hook can exist, `model.forward(x)` computes exactly what `model(x)` computes:
GradGuard stays silent there, as it does on any style question (the team measured 14 such
findings in real training code, all harmless).

## Why is this bad?
`model(x)` runs `Module.__call__`, which runs the registered forward pre-hooks and hooks
(and backward hooks) around `forward`. Calling `forward` directly skips them silently:
hooks used for feature extraction, pruning, quantization observers, gradient checkpointing
wrappers or logging do not run, and nothing reports it.

## Example
```python
features = model.forward(x)
```

## Use instead
```python
features = model(x)
```

## Fix safety
"Call the module" replaces `model.forward(...)` with `model(...)`. The hooks will now run,
which is the point but changes what the program does, so the fix is unsafe.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from gradguard.analysis.facts import ForwardCall, may_be_hooked
from gradguard.core.findings import Finding, Fix, Safety, Severity
from gradguard.core.messages import compose
from gradguard.core.rule import Invalid, Rule, RuleContext
from gradguard.rewrite.expressions import expr_text, replace_expr


class ForwardCalledDirectly(Rule):
    """`module.forward(x)` instead of `module(x)`."""

    code = "GG603"
    name = "forward-called-directly"
    severity = Severity.WARNING
    summary = "module.forward(x) skips the module's hooks; call module(x)"

    valid = (
        """
import torch
from torch import nn
class Wrapper(nn.Linear):
    def forward(self, x):
        return super().forward(x) * 2
    def twice(self, x):
        return self.forward(self.forward(x))
model = Wrapper(2, 2)
out = model(torch.randn(1, 2))
""",
        # A parameter that some caller fills with an object the file cannot see.
        """
import torch
from torch import nn
def run(predictor, x):
    return predictor.forward(x)
def load_predictor():
    return torch.jit.script(nn.Linear(2, 2))
out = run(nn.Linear(2, 2), torch.randn(1, 2))
out = run(load_predictor(), torch.randn(1, 2))
""",
        # The only hook is on a layer the model holds: it still runs.
        """
import torch
from torch import nn
net = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
seen = []
net[0].register_forward_hook(lambda module, inputs, output: seen.append(output))
out = net.forward(torch.randn(3, 4))
assert seen, "the child's hook did not run"
""",
        # No hook anywhere in the file: forward() computes what the call computes.
        """
import torch
from torch import nn
model = nn.Linear(2, 1)
out = model.forward(torch.randn(1, 2))
""",
    )

    invalid = (
        Invalid(
            """
import torch
from torch import nn
model = nn.Linear(2, 1)
seen = []
model.register_forward_hook(lambda module, inputs, output: seen.append(output))
out = model.forward(torch.randn(1, 2))
assert seen, "the forward hook did not run"
""",
            fixed="""
import torch
from torch import nn
model = nn.Linear(2, 1)
seen = []
model.register_forward_hook(lambda module, inputs, output: seen.append(output))
out = model(torch.randn(1, 2))
assert seen, "the forward hook did not run"
""",
            unsafe_fix=True,
            error="the forward hook did not run",
        ),
    )

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        """One finding per direct forward() call on a known module."""
        if not ctx.may_keep_hooks:
            return  # no hook outlives its registration: forward(x) computes what (x) does
        for use in ctx.analysis.events.of(ForwardCall):
            if not isinstance(use.node, ast.Call):
                continue
            if isinstance(use.target, ast.Name) and use.target.id == "self":
                continue
            if not may_be_hooked(use.target, ctx.hook_receivers):
                continue  # every hook is on another module: its children's still run
            name = expr_text(ctx.source, use.target)
            message = compose(
                f"`{name}.forward(...)` skips the module's hooks",
                f"Its forward, pre-forward and backward hooks do not run; call `{name}(...)` "
                "instead",
            )
            func = use.node.func
            assert isinstance(func, ast.Attribute)
            fix = Fix("Call the module", Safety.UNSAFE, (replace_expr(ctx.source, func, name),))
            yield self.finding(message, ctx.node_range(func), (), [fix])
