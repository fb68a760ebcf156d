"""GG401 `requires-grad-on-non-leaf`

## What it does
Finds `y.requires_grad = True` (or `= False`, meant as a detach, or any other value: the
setter raises whatever it is given) on a tensor that was computed from tensors requiring
grad (a non-leaf: it has a `grad_fn`); with `True`, also when that happens from a loop's
second iteration on: `image.requires_grad = True` at the top of a
loop whose body ends with `image = image + r`
(an adversarial attack's steps) sets the flag on a leaf once, then on the computed image.
(The method `y.requires_grad_()` on such a tensor is a harmless no-op that returns `y`
unchanged, and is not reported, nor is a
loop that ends with a cast or move, `image = image.float()`: it returns the leaf itself when
the dtype and device already match.)

## Why is this bad?
Only leaves carry a user-settable `requires_grad` flag; a computed tensor already requires
grad through its inputs. Changing the flag raises

    RuntimeError: you can only change requires_grad flags of leaf variables.

Usually the intent is to read `y.grad` after `backward()`: that needs `y.retain_grad()`.

## Example
```python
y = x * 2
y.requires_grad = True
```

## Use instead
```python
y = x * 2
y.retain_grad()  # y.grad is filled in by backward()
```

In a loop that updates the tensor, start each iteration from a new leaf instead:
`image = image.detach().requires_grad_()`.

## Fix safety
"Use retain_grad()" replaces the statement with `y.retain_grad()`. `y` already requires
grad, so the only effect left to keep is getting its gradient; the fix is safe. In the loop
case, "Start from a new leaf" replaces it with `y = y.detach().requires_grad_()`, which cuts
the previous iterations' graph: what the loop means when it takes the gradient with respect
to `y`, but a change of meaning if anything backpropagates through the earlier steps, so it
is unsafe. For `y.requires_grad = False`, "Detach instead" replaces the statement with
`y = y.detach()`: what the line meant, but other names bound to the same tensor keep its
graph, so it is unsafe. A value that is not a literal (`y.requires_grad = flag`) gets no
fix: which one is meant depends on the value.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from gradguard.analysis.facts import AttributeSet, Carry, carried_history, dotted
from gradguard.core.findings import Finding, Fix, Related, Safety, Severity, TextEdit
from gradguard.core.messages import compose
from gradguard.core.rule import Invalid, Rule, RuleContext
from gradguard.rewrite.expressions import expr_text
from gradguard.rewrite.statements import stands_alone

ERROR = "you can only change requires_grad flags of leaf variables"


class RequiresGradOnNonLeaf(Rule):
    """Setting requires_grad on a computed tensor."""

    code = "GG401"
    name = "requires-grad-on-non-leaf"
    severity = Severity.ERROR
    summary = "requires_grad set on a tensor computed from tensors that require grad"

    valid = (
        """
import torch
x = torch.ones(2)
x.requires_grad = True
w = torch.ones(2).requires_grad_()
y = (w * 2).detach()
y.requires_grad_()
z = w * 3
z.retain_grad()
z.sum().backward()
""",
    )

    invalid = (
        Invalid(
            """
import torch
x = torch.ones(2, requires_grad=True)
y = x * 2
y.requires_grad = True
y.sum().backward()
print(y.grad)
""",
            fixed="""
import torch
x = torch.ones(2, requires_grad=True)
y = x * 2
y.retain_grad()
y.sum().backward()
print(y.grad)
""",
            error=ERROR,
        ),
        # An attack's steps: the second pass sets the flag on the stepped (computed) image.
        Invalid(
            """
import torch
from torch import nn
model = nn.Linear(4, 3)
x, y = torch.rand(2, 4), torch.tensor([0, 1])
x_adv = x.clone()
for _ in range(3):
    x_adv.requires_grad = True
    loss = nn.functional.cross_entropy(model(x_adv), y)
    grad = torch.autograd.grad(loss, x_adv)[0]
    x_adv = x_adv + 0.01 * grad.sign()
""",
            fixed="""
import torch
from torch import nn
model = nn.Linear(4, 3)
x, y = torch.rand(2, 4), torch.tensor([0, 1])
x_adv = x.clone()
for _ in range(3):
    x_adv = x_adv.detach().requires_grad_()
    loss = nn.functional.cross_entropy(model(x_adv), y)
    grad = torch.autograd.grad(loss, x_adv)[0]
    x_adv = x_adv + 0.01 * grad.sign()
""",
            unsafe_fix=True,
            error=ERROR,
        ),
    )

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        """One finding per requires_grad change on a tensor with history."""
        for use in ctx.analysis.events.of(AttributeSet):
            if use.attribute != "requires_grad":
                continue
            statement = use.stmt
            if not isinstance(statement, ast.Assign):
                continue
            if use.value.has_history:
                # The setter raises on a non-leaf whatever the value assigned.
                yield self._on_computed(ctx, use, statement)
            elif _is_true(statement.value):
                carried = carried_history(use)
                if carried is not None:
                    yield self._second_pass(ctx, use, carried)

    def _on_computed(self, ctx: RuleContext, use: AttributeSet, statement: ast.Assign) -> Finding:
        """`target.requires_grad = value` on a tensor with history, worded by the value when
        it is a literal."""
        if _is_false(statement.value):
            return self._switched_off(ctx, use, statement)
        if _is_true(statement.value):
            return self._switched_on(ctx, use, statement)
        name = expr_text(ctx.source, use.target)
        message = compose(
            f'`{name}` is not a leaf: this raises "{ERROR}"',
            f"`{name}` is computed from tensors that require grad (it has a grad_fn), so its "
            f"requires_grad cannot change, whatever the value assigned; to read "
            f"`{name}.grad`, call `{name}.retain_grad()`, to stop gradients flowing through "
            f"it, use `{name} = {name}.detach()`",
        )
        return self.finding(message, ctx.node_range(statement), _computed_here(ctx, use))

    def _switched_on(self, ctx: RuleContext, use: AttributeSet, statement: ast.Assign) -> Finding:
        """`target.requires_grad = True` on a tensor with history: meant to read its grad."""
        name = expr_text(ctx.source, use.target)
        message = compose(
            f'`{name}` is not a leaf: this raises "{ERROR}"',
            f"`{name}` is computed from tensors that require grad (it has a grad_fn), so "
            f"its requires_grad cannot change; to read `{name}.grad`, call "
            f"`{name}.retain_grad()`",
        )
        fixes = []
        if stands_alone(ctx.source, statement):
            rng = ctx.node_range(statement)
            edit = TextEdit(rng, f"{name}.retain_grad()")
            fixes.append(Fix("Use retain_grad()", Safety.SAFE, (edit,)))
        return self.finding(message, ctx.node_range(statement), _computed_here(ctx, use), fixes)

    def _switched_off(self, ctx: RuleContext, use: AttributeSet, statement: ast.Assign) -> Finding:
        """`target.requires_grad = False` on a tensor with history: meant as a detach."""
        name = expr_text(ctx.source, use.target)
        message = compose(
            f'`{name}` is not a leaf: this raises "{ERROR}"',
            f"`{name}` is computed from tensors that require grad (it has a grad_fn), so its "
            f"requires_grad cannot be turned off; to stop gradients flowing through it, use "
            f"`{name} = {name}.detach()`",
        )
        fixes = []
        if stands_alone(ctx.source, statement) and dotted(use.target) is not None:
            edit = TextEdit(ctx.node_range(statement), f"{name} = {name}.detach()")
            fixes.append(Fix("Detach instead", Safety.UNSAFE, (edit,)))
        return self.finding(message, ctx.node_range(statement), _computed_here(ctx, use), fixes)

    def _second_pass(self, ctx: RuleContext, use: AttributeSet, carried: Carry) -> Finding:
        """The flag set again on what the previous iteration computed."""
        name = expr_text(ctx.source, use.target)
        assert carried.stmt is not None and carried.loop is not None
        message = compose(
            f'`{name}` is not a leaf on later iterations: "{_SHORT_ERROR}"',
            f"The loop at line {carried.loop.lineno} sets `{name}.requires_grad` again after "
            f"line {carried.stmt.lineno} computed `{name}` from tensors that require grad; "
            f"start each iteration from a new leaf with "
            f"`{name} = {name}.detach().requires_grad_()`",
            f'Full error: "{ERROR}"',
        )
        related = [Related(ctx.node_range(carried.stmt), f"`{name}` computed here")]
        fixes = []
        if isinstance(use.target, ast.Name) and stands_alone(ctx.source, use.stmt):
            text = f"{name} = {name}.detach().requires_grad_()"
            edit = TextEdit(ctx.node_range(use.stmt), text)
            fixes.append(Fix("Start from a new leaf", Safety.UNSAFE, (edit,)))
        return self.finding(message, ctx.node_range(use.stmt), related, fixes)


_SHORT_ERROR = "can only change requires_grad flags of leaf variables"


def _computed_here(ctx: RuleContext, use: AttributeSet) -> list[Related]:
    """Where the target was computed, when known."""
    if use.value.origin is None:
        return []
    name = expr_text(ctx.source, use.target)
    return [Related(ctx.node_range(use.value.origin), f"`{name}` computed here")]


def _is_true(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is True


def _is_false(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is False
