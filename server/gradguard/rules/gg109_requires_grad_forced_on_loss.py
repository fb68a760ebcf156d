"""GG109 `requires-grad-forced-on-loss`

## What it does
Finds `loss.requires_grad = True`, `loss.requires_grad_()` and
`torch.tensor(loss, requires_grad=True)` applied to a tensor that certainly has no autograd
history (computed under `torch.no_grad()`, cut by `.detach()`, made by `argmax` or a
comparison, output of a frozen model, rebuilt from `.item()`/`.numpy()`), when that very
tensor is then backpropagated, in the same function or after a helper or a loss module's
`forward` returned it as is (alone or in a tuple). The message names the real cut and the
rule whose fix restores the graph there (GG101, GG102, GG103, GG104, GG105, GG108, GG503).
Also `torch.tensor(values, requires_grad=True)` (or `Variable(values, requires_grad=True)`) of
values whose history the file does not show, when the new leaf is all the history of what the
same function backpropagates (`loss = Variable(loss, requires_grad=True)`, or a total of such
leaves) and the leaf serves nothing else: its `.grad` is never read, it is only computed with
(not listed for an optimizer, handed on or returned), and no hook is registered.

Not reported: forcing grad on a genuine leaf (`x = torch.randn(3); x.requires_grad = True`,
`torch.tensor(array, requires_grad=True)`), or on a detached copy that is only an *input* of
the value backpropagated (`x_adv = x.detach().requires_grad_()` for an adversarial attack, a
gradient penalty's interpolates, `hidden.requires_grad_()` after a frozen embedding as in
`enable_input_require_grads`): there the gradient reaches the model through the loss.
`requires_grad = True` on a tensor with history is GG401, on an integer tensor GG402.

## Why is this bad?
Backpropagating from a tensor without history raises

    RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn

Forcing `requires_grad` makes the error go away, and nothing else: the tensor becomes a
brand-new leaf, `backward()` computes the gradient of the loss with respect to itself and
stops there. Every parameter's `.grad` stays None and the optimizer never moves the weights;
the loss curve stays flat (reported again and again, e.g.
https://github.com/ronghuaiyang/arcface-pytorch/issues/56,
https://github.com/lxztju/pytorch_classification/issues/32).

## Example
```python
with torch.no_grad():
    loss = criterion(model(x), y)
loss.requires_grad = True  # silences the error; trains nothing
loss.backward()
```

## Use instead
```python
loss = criterion(model(x), y)  # computed with gradient recording on
loss.backward()
```

## Fix safety
"Remove the forcing" deletes the `requires_grad = True` / `requires_grad_()` statement,
drops a chained `.requires_grad_()`, or the `requires_grad=True` argument of
`torch.tensor(...)`. It is unsafe: the code then raises the error again, at the backward
call, where the rule named in the message reports the real cut and offers the fix that
restores the graph (GradGuard applies it next with `--fix --unsafe-fixes`).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from gradguard.analysis.facts import (
    ForcedGrad,
    Loss,
    LossKind,
    dotted,
    forced_grad_backprops,
    real_cut,
)
from gradguard.core.findings import Finding, Fix, Related, Safety, Severity, TextEdit
from gradguard.core.messages import compose, describe_backward
from gradguard.core.rule import Invalid, Rule, RuleContext
from gradguard.rewrite.expressions import expr_text, remove_argument, replace_expr
from gradguard.rewrite.statements import delete_statement, stands_alone

ERROR = "element 0 of tensors does not require grad and does not have a grad_fn"
NO_GRADIENT = "no gradient reached the model"


class RequiresGradForcedOnLoss(Rule):
    """requires_grad forced on a loss that has no history."""

    code = "GG109"
    name = "requires-grad-forced-on-loss"
    severity = Severity.ERROR
    summary = "requires_grad forced on a loss without history: backward() runs, trains nothing"

    valid = (
        # A genuine leaf input, made to require grad before it is used.
        """
import torch
x = torch.randn(3)
x.requires_grad = True
(x * 2).sum().backward()
print(x.grad)
""",
        # FGSM: a detached copy of the input requires grad; the loss computed from it is
        # backpropagated, and the model's gradients flow through that loss.
        """
import torch
from torch import nn
model = nn.Linear(4, 2)
x, y = torch.randn(8, 4), torch.randint(0, 2, (8,))
x_adv = x.detach().clone().requires_grad_(True)
loss = nn.functional.cross_entropy(model(x_adv), y)
loss.backward()
x_adv = (x_adv + 0.01 * x_adv.grad.sign()).detach()
assert model.weight.grad is not None
""",
        # A frozen embedding's output made to require grad (as transformers'
        # enable_input_require_grads does with a hook) so a checkpointed or adapted layer
        # after it gets gradients.
        """
import torch
from torch import nn
embed = nn.Embedding(10, 4)
embed.requires_grad_(False)
layer = nn.Linear(4, 1)
hidden = embed(torch.randint(0, 10, (2, 3)))
hidden.requires_grad_(True)
loss = layer(hidden).sum()
loss.backward()
assert layer.weight.grad is not None
""",
        # A parameter built from data with requires_grad=True, and backpropagated through.
        """
import numpy as np
import torch
w = torch.tensor(np.ones(3), requires_grad=True)
loss = (w ** 2).sum()
loss.backward()
""",
    )

    invalid = (
        Invalid(
            """
import torch
from torch import nn
model = nn.Linear(4, 1)
x, y = torch.randn(8, 4), torch.randn(8, 1)
with torch.no_grad():
    loss = nn.functional.mse_loss(model(x), y)
loss.requires_grad = True
loss.backward()
assert model.weight.grad is not None, "no gradient reached the model"
""",
            error=NO_GRADIENT,
        ),
        Invalid(
            """
import torch
from torch import nn
model = nn.Linear(4, 1)
x, y = torch.randn(8, 4), torch.randn(8, 1)
loss = nn.functional.mse_loss(model(x), y).detach().requires_grad_()
loss.backward()
assert model.weight.grad is not None, "no gradient reached the model"
""",
            error=NO_GRADIENT,
        ),
        Invalid(
            """
import torch
from torch import nn
model = nn.Linear(4, 3)
x, y = torch.randn(8, 4), torch.randint(0, 3, (8,))
errors = (model(x).argmax(dim=1) != y).float().mean()
errors.requires_grad_(True)
errors.backward()
assert model.weight.grad is not None, "no gradient reached the model"
""",
            error=NO_GRADIENT,
        ),
        Invalid(
            """
import torch
from torch import nn
model = nn.Linear(4, 1)
x, y = torch.randn(8, 4), torch.randn(8, 1)
with torch.no_grad():
    loss = nn.functional.mse_loss(model(x), y)
loss = torch.tensor(loss, requires_grad=True)
loss.backward()
assert model.weight.grad is not None, "no gradient reached the model"
""",
            error=NO_GRADIENT,
        ),
    )

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        """One finding per forcing whose leaf is backpropagated."""
        for forced in forced_grad_backprops(ctx.analysis):
            yield self._finding(ctx, forced)

    def _finding(self, ctx: RuleContext, forced: ForcedGrad) -> Finding:
        event = forced.backward
        name = expr_text(ctx.source, event.target)
        call = describe_backward(name, event.via)
        forcing = _forcing_text(ctx, forced)
        cut = _root(forced.cut)
        why, restore = _explain(cut)
        cut_node = cut.grad_off.node if cut.grad_off is not None else cut.node
        cut_line = ctx.node_range(cut_node).start.line + 1
        message = compose(
            f"Forcing requires_grad on `{name}` hides its lost history: no gradient reaches the "
            "model",
            f"`{name}` has no autograd history ({why}, line {cut_line}): {forcing} only "
            f'silences "{ERROR}" by making it a new leaf, so {call} (line {event.call.lineno}) '
            f"runs but computes nothing for the model; {restore} and remove the forcing",
        )
        related = [
            Related(ctx.node_range(cut_node), f"history lost here: {cut.description}"),
            Related(ctx.node_range(event.call), f"{call} computes no gradient for the model"),
        ]
        fix = _fix(ctx, forced)
        return self.finding(message, ctx.node_range(forced.node), related, [fix] if fix else [])


def _forcing_text(ctx: RuleContext, forced: ForcedGrad) -> str:
    """The forcing as written, for the message."""
    if forced.via == "setattr":
        return f"`{expr_text(ctx.source, forced.target)}.requires_grad = True`"
    if forced.via == "method":
        assert isinstance(forced.node, ast.Call) and isinstance(forced.node.func, ast.Attribute)
        flag = "True" if forced.node.args or forced.node.keywords else ""
        receiver = dotted(forced.node.func.value)
        return f"`{receiver or ''}.requires_grad_({flag})`"
    assert isinstance(forced.node, ast.Call)
    return f"`{expr_text(ctx.source, forced.node.func)}(..., requires_grad=True)`"


def _root(cut: Loss) -> Loss:
    """The first cut behind a re-wrap of data that had itself lost its history."""
    if cut.kind is LossKind.REWRAP and not cut.wrapped_history:
        inner = real_cut(cut.inner)
        if inner is not None and inner.kind is not LossKind.CONVERSION:
            return _root(inner)
    return cut


def _explain(cut: Loss) -> tuple[str, str]:
    """Why the value has no history, and how the rule of that cut restores the graph."""
    described = cut.description
    if cut.kind is LossKind.NO_GRAD:
        return (
            f"computed under {described}",
            f"compute it with gradient recording on (GG101: remove {described})",
        )
    if cut.kind is LossKind.DETACH:
        return f"cut from the graph by {described}", f"remove {described} (GG103)"
    if cut.kind is LossKind.NON_DIFFERENTIABLE:
        return (
            f"computed through {described}, which has no gradient",
            "build the loss from differentiable operations (GG108)",
        )
    if cut.kind is LossKind.FROZEN:
        return (
            f"output of a model frozen by {described}",
            "unfreeze the parameters to train (GG104)",
        )
    if cut.kind is LossKind.NO_CREATE_GRAPH:
        return (
            "a gradient from torch.autograd.grad without create_graph=True",
            "pass create_graph=True (GG503)",
        )
    if cut.wrapped_history:
        return f"copied out of the graph by {described}", "keep the tensor itself (GG105)"
    if cut.kind is LossKind.REWRAP and cut.wrapped_unknown and cut.inner is None:
        return (
            f"a new tensor that {described} made of the values it was given",
            "backpropagate the tensor those values were computed from",
        )
    inner = cut.inner.description if cut.inner is not None else "a number"
    return f"rebuilt by {described} from {inner}", "keep the original tensor (GG102)"


def _fix(ctx: RuleContext, forced: ForcedGrad) -> Fix | None:
    """Remove the forcing: the statement, the chained call or the keyword."""
    title = "Remove the forcing of requires_grad"
    node = forced.node
    if forced.via == "rewrap":
        assert isinstance(node, ast.Call)
        keyword = next(kw for kw in node.keywords if kw.arg == "requires_grad")
        return Fix(title, Safety.UNSAFE, (remove_argument(ctx.source, node, keyword),))
    stmt = forced.stmt
    deletable = stands_alone(ctx.source, stmt) and len(ctx.analysis.block_of(stmt)[1]) > 1
    if forced.via == "setattr" or isinstance(stmt, ast.Expr):
        return (
            Fix(title, Safety.UNSAFE, (delete_statement(ctx.source, stmt),)) if deletable else None
        )
    assert isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
    receiver = node.func.value
    if isinstance(stmt, ast.Assign) and dotted(receiver) == dotted(stmt.targets[0]):
        return (
            Fix(title, Safety.UNSAFE, (delete_statement(ctx.source, stmt),)) if deletable else None
        )
    edit: TextEdit = replace_expr(ctx.source, node, expr_text(ctx.source, receiver))
    return Fix(title, Safety.UNSAFE, (edit,))
