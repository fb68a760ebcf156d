"""GG503 `missing-create-graph`

## What it does
Finds a backward pass (or another `torch.autograd.grad`) through gradients returned by
`torch.autograd.grad(...)` called without `create_graph=True`: gradient penalties,
higher-order derivatives, meta-learning inner steps.

Also finds such gradients added as a term to a loss that is backpropagated (a WGAN-GP or
R1 gradient penalty added to the critic's loss).

## Why is this bad?
Without `create_graph=True`, `torch.autograd.grad` returns plain tensors with no history.
Differentiating them again raises

    RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn

When the gradient term is added to a loss that has history of its own, nothing is raised:
the term is a constant to autograd, so the penalty silently has no effect on training.

## Example
```python
(grad,) = torch.autograd.grad(loss, x)
penalty = grad.pow(2).sum()
penalty.backward()
```

## Use instead
```python
(grad,) = torch.autograd.grad(loss, x, create_graph=True)
penalty = grad.pow(2).sum()
penalty.backward()
```

## Fix safety
"Add create_graph=True" makes `torch.autograd.grad` record the graph of the gradient
computation, which the second derivative needs. It uses more memory but computes what the
code asks for; the fix is safe.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from gradguard.analysis.facts import LossKind
from gradguard.core.findings import Finding, Fix, Related, Safety, Severity
from gradguard.core.messages import NO_GRAD_FN, compose, no_graph_summary
from gradguard.core.rule import Invalid, Rule, RuleContext
from gradguard.rewrite.expressions import add_keyword, expr_text, replace_expr

ERROR = "element 0 of tensors does not require grad and does not have a grad_fn"


class MissingCreateGraph(Rule):
    """A second derivative through gradients computed without `create_graph=True`."""

    code = "GG503"
    name = "missing-create-graph"
    severity = Severity.ERROR
    summary = (
        "autograd.grad results differentiated again, or added to a loss, without create_graph=True"
    )

    valid = (
        """
import torch
x = torch.randn(3, requires_grad=True)
loss = (x ** 3).sum()
(grad,) = torch.autograd.grad(loss, x, create_graph=True)
grad.pow(2).sum().backward()
""",
        # First-order gradients used as data: no second backward through them.
        """
import torch
x = torch.randn(3, requires_grad=True)
(grad,) = torch.autograd.grad((x ** 2).sum(), x)
print(grad.norm())
""",
        # The penalty's gradient is recorded: it trains the critic.
        """
import torch
from torch import nn
critic = nn.Linear(2, 1)
real = torch.randn(8, 2, requires_grad=True)
score = critic(real)
(grad,) = torch.autograd.grad(score.sum(), real, create_graph=True)
penalty = (grad.norm(2, dim=1) - 1).pow(2).mean()
loss = -score.mean() + 10.0 * penalty
loss.backward()
""",
    )

    invalid = (
        Invalid(
            """
import torch
x = torch.randn(3, requires_grad=True)
loss = (x ** 3).sum()
(grad,) = torch.autograd.grad(loss, x)
penalty = grad.pow(2).sum()
penalty.backward()
""",
            fixed="""
import torch
x = torch.randn(3, requires_grad=True)
loss = (x ** 3).sum()
(grad,) = torch.autograd.grad(loss, x, create_graph=True)
penalty = grad.pow(2).sum()
penalty.backward()
""",
            error=ERROR,
        ),
        Invalid(
            """
import torch
from torch import nn
critic = nn.Linear(2, 1)
real = torch.randn(8, 2, requires_grad=True)
score = critic(real)
(grad,) = torch.autograd.grad(score.sum(), real)
penalty = (grad.norm(2, dim=1) - 1).pow(2).mean()
loss = -score.mean() + 10.0 * penalty
loss.backward()
""",
            fixed="""
import torch
from torch import nn
critic = nn.Linear(2, 1)
real = torch.randn(8, 2, requires_grad=True)
score = critic(real)
(grad,) = torch.autograd.grad(score.sum(), real, create_graph=True)
penalty = (grad.norm(2, dim=1) - 1).pow(2).mean()
loss = -score.mean() + 10.0 * penalty
loss.backward()
""",
            error=None,
        ),
        # create_graph given by a name known to hold False: the fix sets it, not a second one.
        Invalid(
            """
import torch
from torch import nn
critic = nn.Linear(2, 1)
def penalty(x, create_graph=False):
    x = x.requires_grad_(True)
    (grad,) = torch.autograd.grad(critic(x).sum(), x, create_graph=create_graph)
    return grad.pow(2).sum()
loss = critic(torch.randn(4, 2)).mean() + penalty(torch.randn(4, 2))
loss.backward()
""",
            fixed="""
import torch
from torch import nn
critic = nn.Linear(2, 1)
def penalty(x, create_graph=False):
    x = x.requires_grad_(True)
    (grad,) = torch.autograd.grad(critic(x).sum(), x, create_graph=True)
    return grad.pow(2).sum()
loss = critic(torch.randn(4, 2)).mean() + penalty(torch.randn(4, 2))
loss.backward()
""",
            error=None,
        ),
    )

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        """One finding per autograd.grad call whose gradients are differentiated again."""
        for event, loss in ctx.analysis.backpropagated_without_history(LossKind.NO_CREATE_GRAPH):
            call = loss.node
            assert isinstance(call, ast.Call)
            name = expr_text(ctx.source, event.target)
            message = compose(
                no_graph_summary(name, event.via),
                f"The gradients from torch.autograd.grad(...) (line {call.lineno}) have no "
                f"history without create_graph=True, so differentiating `{name}` (line "
                f"{event.call.lineno}) fails; pass create_graph=True",
                NO_GRAD_FN.in_full,
            )
            related = [Related(ctx.node_range(event.call), f"second derivative here: {ERROR}")]
            yield self.finding(message, ctx.node_range(call), related, [_fix(ctx, call)])
        reported: set[int] = set()
        for event in ctx.analysis.backward_calls:
            terms = [t for t in event.value.inert_terms if t.kind is LossKind.NO_CREATE_GRAPH]
            for term in sorted(terms, key=lambda t: getattr(t.node, "lineno", 0)):
                call = term.node
                if not isinstance(call, ast.Call) or id(call) in reported:
                    continue
                reported.add(id(call))
                name = expr_text(ctx.source, event.target)
                message = compose(
                    f"The gradient term in `{name}` is a constant: it trains nothing",
                    "The gradients from torch.autograd.grad(...) have no history without "
                    f"create_graph=True, so the term built from them adds nothing to the "
                    f"gradient of `{name}` (line {event.call.lineno}) and no error is raised; "
                    "pass create_graph=True",
                )
                related = [Related(ctx.node_range(event.call), "backpropagated here")]
                yield self.finding(message, ctx.node_range(call), related, [_fix(ctx, call)])


def _fix(ctx: RuleContext, call: ast.Call) -> Fix:
    """Pass `create_graph=True` to the `torch.autograd.grad(...)` call: set the keyword the
    call already has (`create_graph=flag` of a flag known False), or add it."""
    given = next((kw for kw in call.keywords if kw.arg == "create_graph"), None)
    if given is not None:
        edit = replace_expr(ctx.source, given.value, "True")
    else:
        edit = add_keyword(ctx.source, call, "create_graph=True")
    return Fix("Add create_graph=True", Safety.SAFE, (edit,))
