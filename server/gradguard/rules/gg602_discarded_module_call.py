"""GG602 `discarded-module-call`

## What it does
Finds, inside `forward` of an `nn.Module` defined in the file, a layer or functional op
called as a statement of its own, its result thrown away: `self.dropout(x)`, `F.relu(x)`,
`torch.tanh(h)`; a functional op so discarded in any other function too (a `features`
helper of the model, a plain function building a block): it computes nothing anyone sees
(at module level a notebook displays a cell's last expression, so that is left alone). A layer
called elsewhere may be run for its side effects (a first call that sizes `Lazy*`
layers), so only `forward`'s count. In-place variants (`nn.ReLU(inplace=True)`, `F.relu_(x)`,
`F.relu(x, inplace=True)`) are left alone, and so are discarded module calls in a file that
may register module hooks (a `register_*hook` call, or modules handed to other code with
`named_modules()`): a forward hook may be what collects the result (timm runs
`self.blocks(x)` for its feature-extraction hooks).

## Why is this bad?
Modules and functional ops return a new tensor; they do not change their input. The line
computes a result and drops it, so the layer has no effect on the output: a model "with
dropout" or "with an activation" silently trains without it.

## Example
```python
def forward(self, x):
    x = self.fc1(x)
    torch.relu(x)
    return self.fc2(x)
```

## Use instead
```python
def forward(self, x):
    x = self.fc1(x)
    x = torch.relu(x)
    return self.fc2(x)
```

## Fix safety
"Assign the result back" rewrites the statement to `x = <call>` when the call's first
argument is a plain name. That changes the model's computation (to what was presumably
meant), so the fix is unsafe.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from gradguard.analysis import torch_api as api
from gradguard.analysis.facts import ModuleCall, Value
from gradguard.core.findings import Finding, Fix, Range, Safety, Severity, TextEdit
from gradguard.core.messages import compose
from gradguard.core.rule import Invalid, Rule, RuleContext
from gradguard.rewrite.expressions import expr_range, expr_text


class DiscardedModuleCall(Rule):
    """A layer called in forward() whose result is thrown away."""

    code = "GG602"
    name = "discarded-module-call"
    severity = Severity.WARNING
    summary = "module or functional op called in forward() with its result discarded"
    tags = ("unnecessary",)

    valid = (
        # Discarded on purpose: a forward hook collects each stage's output (the feature
        # extraction shape of timm's EfficientNet/MobileNetV3,
        # https://github.com/huggingface/pytorch-image-models, rewritten).
        """
import torch
from torch import nn
class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Linear(4, 4)
        self.blocks = nn.Sequential(nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 4))
        self.features = []
        for block in self.blocks:
            block.register_forward_hook(lambda m, i, o: self.features.append(o))
    def forward(self, x):
        self.features.clear()
        x = self.stem(x)
        self.blocks(x)
        return list(self.features)
outs = Backbone()(torch.randn(2, 4))
assert len(outs) == 3
""",
        """
import torch
import torch.nn.functional as F
from torch import nn
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 2)
        self.act = nn.ReLU(inplace=True)
    def forward(self, x):
        x = self.fc(x)
        self.act(x)
        F.relu_(x)
        F.dropout(x, inplace=True)
        return x
Net()(torch.randn(1, 2))
""",
    )

    invalid = (
        Invalid(
            """
import torch
from torch import nn
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(2, 4)
        self.fc2 = nn.Linear(4, 1)
    def forward(self, x):
        x = self.fc1(x)
        torch.relu(x)
        return self.fc2(x)
net = Net()
x = torch.randn(16, 2)
with torch.no_grad():
    expected = net.fc2(torch.relu(net.fc1(x)))
    assert torch.allclose(net(x), expected), "relu had no effect"
""",
            fixed="""
import torch
from torch import nn
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(2, 4)
        self.fc2 = nn.Linear(4, 1)
    def forward(self, x):
        x = self.fc1(x)
        x = torch.relu(x)
        return self.fc2(x)
net = Net()
x = torch.randn(16, 2)
with torch.no_grad():
    expected = net.fc2(torch.relu(net.fc1(x)))
    assert torch.allclose(net(x), expected), "relu had no effect"
""",
            unsafe_fix=True,
            error="relu had no effect",
        ),
    )

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        """One finding per discarded layer call in a forward() method."""
        candidates: list[tuple[ast.Call, ast.Expr]] = []
        hooked = ctx.may_have_hooks
        for use in ctx.analysis.events.of(ModuleCall):
            if not _in_forward(use.function) or hooked:
                continue
            if isinstance(use.stmt, ast.Expr) and use.stmt.value is use.node:
                call = use.node
                assert isinstance(call, ast.Call)
                if not _inplace_module(use.value):
                    candidates.append((call, use.stmt))
        for torch_call in ctx.analysis.torch_calls:
            stmt = torch_call.stmt
            if torch_call.function is None:
                continue  # module level: a notebook shows a cell's last expression
            if not (isinstance(stmt, ast.Expr) and stmt.value is torch_call.call):
                continue
            if _is_layer_op(torch_call.qualified, torch_call.call):
                candidates.append((torch_call.call, stmt))
        for call, stmt in candidates:
            text = expr_text(ctx.source, call.func)
            message = compose(
                f"The result of `{text}(...)` is thrown away: this line has no effect",
                "Modules and functional ops return a new tensor and do not change their input; "
                "assign the result",
            )
            fixes = []
            first = call.args[0] if call.args else None
            if isinstance(first, ast.Name):
                start = expr_range(ctx.source, call).start
                fixes.append(
                    Fix(
                        "Assign the result back",
                        Safety.UNSAFE,
                        (TextEdit(Range(start, start), f"{first.id} = "),),
                    )
                )
            yield self.finding(message, ctx.node_range(stmt), (), fixes)


def _in_forward(function: ast.FunctionDef | ast.AsyncFunctionDef | None) -> bool:
    """True for a method named `forward` (the analysis sees methods through their class)."""
    if function is None or function.name != "forward":
        return False
    first = function.args.args[0].arg if function.args.args else ""
    return first == "self"


def _is_layer_op(qualified: str, call: ast.Call) -> bool:
    """An out-of-place differentiable torch op (functional or top-level)."""
    if qualified.endswith("_"):
        return False
    if any(kw.arg in ("inplace", "out") or kw.arg is None for kw in call.keywords):
        return False  # in place, or written into `out=` (or a `**kwargs` that may say so)
    return qualified in api.DIFFERENTIABLE or qualified.startswith(api.FUNCTIONAL_PREFIX)


def _inplace_module(module: Value) -> bool:
    """Modules built with `inplace=True` change their input; classes of this file may too."""
    ref = module.module
    return ref is None or ref.qualified is None or ref.inplace
