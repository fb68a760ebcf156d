"""GG106 `inference-tensor-in-autograd`

## What it does
Finds a tensor created under `torch.inference_mode()` (a `with` block or a decorated function
of the same file) that is later handed, outside inference mode and with gradient recording
on, to an operation that must save it for backward: the input of a `torch.nn` layer whose
parameters require grad (`nn.Linear`, convolutions, normalisation layers, embeddings,
recurrent layers, or an `nn.Sequential` starting with one), an operand of `*`, `/`, `@`,
`torch.matmul`, `torch.mul`, `F.linear` whose other operand requires grad, or the target of
`F.mse_loss` / `F.nll_loss` / `F.smooth_l1_loss` / `F.huber_loss` / `F.cross_entropy` /
`F.kl_div` / `F.binary_cross_entropy(_with_logits)` (and their `nn` modules) whose input
requires grad. Pseudo-labels (`argmax`), masks (comparisons) and views of an inference
tensor are inference tensors too. A tensor handed to a function or a module of the file
whose code saves it (`self.policy(batch["obs"])` whose `forward` gives it to an
`nn.Sequential` starting with `nn.Linear`) is reported at that call, where it enters.

## Why is this bad?
Every tensor allocated in inference mode is an *inference tensor*, and autograd refuses to
keep one for the backward pass:

    RuntimeError: Inference tensors cannot be saved for backward. Please do not use Tensors
    created in inference mode in computation tracked by autograd. To work around this, you can
    make a clone to get a normal tensor and use it in autograd, or use `torch.no_grad()`
    instead of `torch.inference_mode()`.

A typical case is a frozen feature extractor or a teacher model run under
`torch.inference_mode()` whose outputs then feed a trainable head or a distillation loss.
Operations that do not save the tensor (`feats + bias`, `torch.cat`, `feats.sum() * w`,
`F.l1_loss(out, target)`) work, and so does using it under `torch.no_grad()`: those are not
reported.

## Example
```python
with torch.inference_mode():
    feats = backbone(images)
loss = criterion(head(feats), labels)
```

## Use instead
```python
with torch.inference_mode():
    feats = backbone(images)
loss = criterion(head(feats.clone()), labels)
```
or compute `feats` under `torch.no_grad()` instead of `torch.inference_mode()`.

## Fix safety
"Clone the inference tensor" adds `.clone()` at the use: outside inference mode a clone is a
normal tensor with the same values and no history, so the fix is safe (it costs one copy).
"Use torch.no_grad() instead" swaps the context manager or decorator; it is unsafe: the
whole block loses inference mode's speed-ups, and `torch.enable_grad()` inside the block
(also in code it calls) records graphs under `torch.no_grad()` but not in inference mode.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from gradguard.analysis.facts import GradOff, InferenceSaved
from gradguard.core.findings import Finding, Fix, Related, Safety, Severity
from gradguard.core.messages import compose
from gradguard.core.rule import Invalid, Rule, RuleContext
from gradguard.rewrite.expressions import expr_text, replace_expr, with_method

ERROR = "Inference tensors cannot be saved for backward"

_OPERATORS = {"Mult": "`*`", "Div": "`/`", "MatMult": "`@`"}


class InferenceTensorInAutograd(Rule):
    """A tensor from torch.inference_mode() saved for backward later."""

    code = "GG106"
    name = "inference-tensor-in-autograd"
    severity = Severity.ERROR
    summary = "inference tensor used in a computation autograd must save"

    valid = (
        # An L1 loss saves neither operand; a loss's input (not its target) may be one.
        """
import torch
import torch.nn.functional as F
from torch import nn
teacher, student = nn.Linear(4, 3), nn.Linear(4, 3)
x = torch.randn(8, 4)
with torch.inference_mode():
    logits = teacher(x)
    soft = logits.softmax(dim=1)
F.l1_loss(student(x), soft).backward()
F.cross_entropy(logits, student(x).softmax(dim=1)).backward()
""",
        # Inference outputs only logged and converted.
        """
import torch
from torch import nn
model = nn.Linear(4, 3)
x = torch.randn(8, 4)
with torch.inference_mode():
    logits = model(x)
preds = logits.argmax(dim=1)
confidence = logits.softmax(dim=1).max().item()
print(preds.tolist(), confidence)
""",
        # A clone outside inference mode is a normal tensor.
        """
import torch
from torch import nn
backbone = nn.Linear(4, 4)
head = nn.Linear(4, 2)
x = torch.randn(8, 4)
with torch.inference_mode():
    feats = backbone(x)
feats = feats.clone()
head(feats).sum().backward()
""",
        # Used again only without recording; ops that save nothing; mode=False.
        """
import torch
from torch import nn
backbone = nn.Linear(4, 4)
head = nn.Linear(4, 4)
bias = torch.zeros(4, requires_grad=True)
x = torch.randn(8, 4)
with torch.inference_mode():
    feats = backbone(x)
with torch.no_grad():
    scores = head(feats)
shifted = feats + bias
shifted.sum().backward()
with torch.inference_mode(False):
    fresh = backbone(x)
head(fresh).sum().backward()
""",
        # Tensors created before the block and only read (or viewed) inside stay normal.
        """
import torch
from torch import nn
head = nn.Linear(4, 2)
x = torch.randn(8, 4)
with torch.inference_mode():
    first = x[0]
    flat = x.view(-1)
    print(flat.sum())
head(x).sum().backward()
head(first).sum().backward()
""",
    )

    invalid = (
        # Pseudo-labels made under inference mode: cross_entropy saves its target.
        Invalid(
            """
import torch
import torch.nn.functional as F
from torch import nn
teacher, student = nn.Linear(8, 3), nn.Linear(8, 3)
x = torch.randn(4, 8)
with torch.inference_mode():
    pseudo = teacher(x).argmax(dim=1)
loss = F.cross_entropy(student(x), pseudo)
loss.backward()
""",
            fixed="""
import torch
import torch.nn.functional as F
from torch import nn
teacher, student = nn.Linear(8, 3), nn.Linear(8, 3)
x = torch.randn(4, 8)
with torch.inference_mode():
    pseudo = teacher(x).argmax(dim=1)
loss = F.cross_entropy(student(x), pseudo.clone())
loss.backward()
""",
            error=ERROR,
        ),
        Invalid(
            """
import torch
from torch import nn
backbone = nn.Linear(8, 8)
head = nn.Linear(8, 2)
x = torch.randn(4, 8)
with torch.inference_mode():
    feats = backbone(x)
loss = head(feats).sum()
loss.backward()
""",
            fixed="""
import torch
from torch import nn
backbone = nn.Linear(8, 8)
head = nn.Linear(8, 2)
x = torch.randn(4, 8)
with torch.inference_mode():
    feats = backbone(x)
loss = head(feats.clone()).sum()
loss.backward()
""",
            error=ERROR,
        ),
        # A teacher run in a decorated function: its outputs are the distillation target.
        Invalid(
            """
import torch
import torch.nn.functional as F
from torch import nn
teacher = nn.Linear(8, 2)
student = nn.Linear(8, 2)
@torch.inference_mode()
def soft_targets(x):
    return teacher(x)
x = torch.randn(4, 8)
targets = soft_targets(x)
loss = F.mse_loss(student(x), targets)
loss.backward()
""",
            fixed="""
import torch
import torch.nn.functional as F
from torch import nn
teacher = nn.Linear(8, 2)
student = nn.Linear(8, 2)
@torch.inference_mode()
def soft_targets(x):
    return teacher(x)
x = torch.randn(4, 8)
targets = soft_targets(x)
loss = F.mse_loss(student(x), targets.clone())
loss.backward()
""",
            error=ERROR,
        ),
    )

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        """One finding per use of an inference tensor that autograd would have to save."""
        uses = [u for u in ctx.analysis.events.of(InferenceSaved) if u.grad_enabled is True]
        if not uses:
            return
        context = ctx.grad_context
        alias = ctx.torch_alias
        reported: set[tuple[int, int]] = set()
        for use in uses:
            key = (id(use.node), id(use.target))
            if key in reported:
                continue
            # Lexically inside a mode switch (inference_mode + enable_grad), or in a function
            # whose callers may run it in inference mode: the tensor may be allowed there.
            if context.in_mode_region(use.node) or not context.entered_with_grad_on(use.function):
                continue
            reported.add(key)
            yield self._finding(ctx, use, alias)

    def _finding(self, ctx: RuleContext, use: InferenceSaved, alias: str | None) -> Finding:
        name = expr_text(ctx.source, use.target)
        off = _inference_mode(use)
        where = f" (line {off.node.lineno})" if off is not None else ""  # type: ignore[attr-defined]
        message = compose(
            f'Saving inference tensor `{name}` raises "{ERROR}"',
            f"`{name}` was created under torch.inference_mode(){where}, and "
            f"{_describe(ctx, use)} saves it for backward",
            f"Use `{name}.clone()` here, or compute it under torch.no_grad()",
        )
        related = [Related(ctx.node_range(use.node), f"saves `{name}` for backward")]
        if use.through is not None:
            related.append(Related(ctx.node_range(use.through), "saved for backward here"))
        if off is not None:
            related.append(
                Related(ctx.node_range(off.node), f"`{name}` created in inference mode here")
            )
        edit = replace_expr(ctx.source, use.target, with_method(ctx.source, use.target, "clone()"))
        fixes = [Fix(f"Clone `{name}` before autograd uses it", Safety.SAFE, (edit,))]
        if off is not None and alias is not None:
            swap = replace_expr(ctx.source, off.node, f"{alias}.no_grad()")  # type: ignore[arg-type]
            fixes.append(Fix(f"Use {alias}.no_grad() instead", Safety.UNSAFE, (swap,)))
        return self.finding(message, ctx.node_range(use.target), related, fixes)


def _inference_mode(use: InferenceSaved) -> GradOff | None:
    """The `torch.inference_mode()` item or decorator the tensor was created under."""
    loss = use.value.loss
    off = loss.grad_off if loss is not None else None
    return off if off is not None and off.inference else None


def _describe(ctx: RuleContext, use: InferenceSaved) -> str:
    if use.through is not None and isinstance(use.node, ast.Call):
        callee = expr_text(ctx.source, use.node.func)
        inner = _operation(ctx, use.operation, use.through)
        line = use.through.lineno  # type: ignore[attr-defined]
        return f"`{callee}`, through {inner} at line {line},"
    return _operation(ctx, use.operation, use.node)


def _operation(ctx: RuleContext, operation: str, node: ast.AST) -> str:
    """`*` / `self.fc` (Linear, whose parameters require grad) / `matmul`: what saves it."""
    if operation in _OPERATORS:
        return f"{_OPERATORS[operation]} with a tensor that requires grad"
    short = operation.rsplit(".", 1)[-1]
    if isinstance(node, ast.Call) and operation.startswith("torch.nn.") and short[:1].isupper():
        layer = expr_text(ctx.source, node.func)
        if short.endswith("Loss"):
            return f"`{layer}` ({short}) with an input that requires grad"
        return f"`{layer}` ({short}, whose parameters require grad)"
    return f"`{short}` with an operand that requires grad"
