"""GG404 `requires-grad-typo`

## What it does
Finds misspellings of `requires_grad`: as a keyword of a torch call
(`torch.zeros(3, require_grad=True)`) and as an attribute set on a known tensor
(`w.require_grad = True`, `encoder.weight.require_grad = False`).

## Why is this bad?
As a keyword, the misspelling fails at once:

    TypeError: zeros() got an unexpected keyword argument 'require_grad'

As an attribute it fails silently: Python happily stores a new attribute on the tensor and
`requires_grad` keeps its value. A tensor meant to train never receives a gradient; a
weight meant to be frozen (`= False`) keeps training. The message says which.

## Example
```python
w = torch.zeros(3, require_grad=True)
b = torch.zeros(1)
b.requires_grads = True
```

## Use instead
```python
w = torch.zeros(3, requires_grad=True)
b = torch.zeros(1)
b.requires_grad = True
```

## Fix safety
"Rename to requires_grad" corrects the spelling; the fix is safe.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from gradguard.analysis.facts import AttributeSet, Grad
from gradguard.core.findings import Finding, Fix, Position, Range, Safety, Severity, TextEdit
from gradguard.core.messages import compose
from gradguard.core.rule import Invalid, Rule, RuleContext

CORRECT = "requires_grad"


def is_typo(name: str) -> bool:
    """True for a name within two edits of `requires_grad` that is not a real torch name."""
    if name in (CORRECT, "requires_grad_", "retain_grad", "retains_grad"):
        return False
    lowered = name.lower()
    if abs(len(lowered) - len(CORRECT)) > 2:  # no fewer edits than the lengths differ by
        return False  # (most keywords: `dim`, `dtype`), without filling the table
    return _distance(lowered, CORRECT) <= 2


def _distance(a: str, b: str) -> int:
    previous = list(range(len(b) + 1))
    for i, char_a in enumerate(a, start=1):
        current = [i]
        for j, char_b in enumerate(b, start=1):
            current.append(
                min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (char_a != char_b))
            )
        previous = current
    return previous[-1]


class RequiresGradTypo(Rule):
    """A misspelled `requires_grad`."""

    code = "GG404"
    name = "requires-grad-typo"
    severity = Severity.ERROR
    summary = "misspelled requires_grad (keyword or tensor attribute)"

    valid = (
        """
import torch
w = torch.zeros(3, requires_grad=True)
w.requires_grad_(True)
x = torch.ones(2)
x.requires_grad = True
y = (x * 2)
y.retain_grad()
""",
        # Not a tensor: any attribute name is fine.
        """
import torch
class Config:
    pass
cfg = Config()
cfg.require_grad = True
""",
        # The private subclassing API's keyword really is `require_grad`.
        """
import torch
t = torch.Tensor._make_subclass(torch.Tensor, torch.randn(2), require_grad=True)
assert t.requires_grad
""",
    )

    invalid = (
        Invalid(
            """
import torch
w = torch.zeros(3, require_grad=True)
""",
            fixed="""
import torch
w = torch.zeros(3, requires_grad=True)
""",
            error="unexpected keyword argument 'require_grad'",
        ),
        Invalid(
            """
import torch
b = torch.zeros(1)
b.requires_grads = True
(b * 2).sum().backward()
""",
            fixed="""
import torch
b = torch.zeros(1)
b.requires_grad = True
(b * 2).sum().backward()
""",
            error="element 0 of tensors does not require grad",
        ),
        # A weight meant to be frozen: it keeps requiring grad and keeps training.
        Invalid(
            """
import torch
from torch import nn
encoder = nn.Linear(2, 2)
head = nn.Linear(2, 1)
encoder.weight.require_grad = False
head(encoder(torch.randn(4, 2))).sum().backward()
assert encoder.weight.grad is None, "the frozen weight got a gradient"
""",
            fixed="""
import torch
from torch import nn
encoder = nn.Linear(2, 2)
head = nn.Linear(2, 1)
encoder.weight.requires_grad = False
head(encoder(torch.randn(4, 2))).sum().backward()
assert encoder.weight.grad is None, "the frozen weight got a gradient"
""",
            error="the frozen weight got a gradient",
        ),
    )

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        """Misspelled keywords of torch calls and attributes set on tensors."""
        seen: set[int] = set()
        for torch_call in ctx.analysis.torch_calls:
            if torch_call.qualified.rsplit(".", 1)[-1].startswith("_"):
                # Private APIs spell it their own way: `Tensor._make_subclass(require_grad=)`.
                continue
            for keyword in torch_call.call.keywords:
                if keyword.arg is None or not is_typo(keyword.arg) or id(keyword) in seen:
                    continue
                seen.add(id(keyword))
                start = ctx.source.from_ast(keyword.lineno, keyword.col_offset)
                name_range = Range(start, Position(start.line, start.character + len(keyword.arg)))
                function = torch_call.qualified.rsplit(".", 1)[-1]
                error = f"{function}() got an unexpected keyword argument '{keyword.arg}'"
                message = compose(
                    f'Misspelled `{keyword.arg}` raises "{error}"',
                    f"`{keyword.arg}` is not `{CORRECT}`, so {torch_call.qualified}(...) raises "
                    "a TypeError",
                )
                yield self.finding(message, name_range, (), [_rename(name_range)])
        for use in ctx.analysis.events.of(AttributeSet):
            if not is_typo(use.attribute) or id(use.stmt) in seen:
                continue
            seen.add(id(use.stmt))
            target = _attribute_target(use.stmt, use.attribute)
            if target is None:
                continue
            end = ctx.source.from_ast(
                target.end_lineno or target.lineno, target.end_col_offset or 0
            )
            name_range = Range(Position(end.line, end.character - len(use.attribute)), end)
            yield self.finding(_message(use), name_range, (), [_rename(name_range)])


def _message(use: AttributeSet) -> str:
    """What the misspelt assignment leaves: a tensor that never starts requiring grad, one
    that keeps requiring it (a weight meant to be frozen still trains), or no change at all
    (`= False` on a tensor that did not require grad anyway)."""
    assigned = use.stmt.value if isinstance(use.stmt, ast.Assign) else None
    turns_off = isinstance(assigned, ast.Constant) and assigned.value is False
    if not turns_off:
        return compose(
            f"Misspelled `{use.attribute}` sets a new attribute: the tensor still does not "
            "require grad",
            f"`{use.attribute}` is not `{CORRECT}`: the tensor never requires grad, and no "
            "gradient is computed for it",
        )
    if use.value.grad is Grad.TRACKED:
        return compose(
            f"Misspelled `{use.attribute}` sets a new attribute: the tensor still requires grad",
            f"`{use.attribute}` is not `{CORRECT}`: the tensor keeps requiring grad, so its "
            "gradient is still computed and an optimizer holding it still updates it",
        )
    return compose(
        f"Misspelled `{use.attribute}` sets a new attribute: the line has no effect",
        f"`{use.attribute}` is not `{CORRECT}`; the tensor does not require grad anyway, so "
        "nothing changes: correct the name or delete the line",
    )


def _attribute_target(stmt: ast.stmt, name: str) -> ast.Attribute | None:
    targets = stmt.targets if isinstance(stmt, ast.Assign) else []
    for target in targets:
        if isinstance(target, ast.Attribute) and target.attr == name:
            return target
    return None


def _rename(name_range: Range) -> Fix:
    return Fix(f"Rename to {CORRECT}", Safety.SAFE, (TextEdit(name_range, CORRECT),))
