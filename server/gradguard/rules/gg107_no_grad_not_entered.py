"""GG107 `no-grad-not-entered`

## What it does
Finds `torch.no_grad()`, `torch.enable_grad()` and `torch.inference_mode()` written as a
statement of their own instead of a `with` block or a decorator.

## Why is this bad?
These are context managers: calling one creates an object and throws it away, without
entering it. Gradient recording is not changed at all, so code meant to run without a graph
still builds one (using memory, and letting later updates be recorded). There is no error
to warn you.

## Example
```python
torch.no_grad()
predictions = model(x)
```

## Use instead
```python
with torch.no_grad():
    predictions = model(x)
```

## Fix safety
"Turn into a with block" makes the call a `with` statement over the statements that follow
it in the same block. It changes what is recorded, so it is unsafe. (Where switching the
mode for the rest of the program was meant, use `torch.set_grad_enabled(False)`.)
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from gradguard.analysis import torch_api as api
from gradguard.core.findings import Finding, Fix, Position, Range, Safety, Severity, TextEdit
from gradguard.core.messages import compose
from gradguard.core.rule import Invalid, Rule, RuleContext
from gradguard.rewrite.expressions import expr_text
from gradguard.rewrite.statements import delete_statement, indentation, indented_block, stands_alone

_MANAGERS = api.NO_GRAD | api.ENABLE_GRAD | api.INFERENCE_MODE


class NoGradNotEntered(Rule):
    """A grad-mode context manager called but never entered."""

    code = "GG107"
    name = "no-grad-not-entered"
    severity = Severity.WARNING
    summary = "torch.no_grad() called as a statement has no effect"

    valid = (
        """
import torch
from torch import nn
model = nn.Linear(2, 1)
with torch.no_grad():
    out = model(torch.randn(1, 2))
torch.set_grad_enabled(False)
out = model(torch.randn(1, 2))
torch.set_grad_enabled(True)
""",
        """
import torch
guard = torch.no_grad()
with guard:
    pass
@torch.no_grad()
def predict(x):
    return x * 2
""",
    )

    invalid = (
        Invalid(
            """
import torch
from torch import nn
model = nn.Linear(2, 1)
torch.no_grad()
out = model(torch.randn(1, 2))
assert not out.requires_grad
""",
            fixed="""
import torch
from torch import nn
model = nn.Linear(2, 1)
with torch.no_grad():
    out = model(torch.randn(1, 2))
    assert not out.requires_grad
""",
            unsafe_fix=True,
            error="AssertionError",
        ),
    )

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        """One finding per grad-mode context manager used as a bare statement."""
        for torch_call in ctx.analysis.torch_calls:
            stmt = torch_call.stmt
            if torch_call.qualified not in _MANAGERS:
                continue
            if not (isinstance(stmt, ast.Expr) and stmt.value is torch_call.call):
                continue
            text = expr_text(ctx.source, torch_call.call)
            message = compose(
                f"`{text}` on its own line has no effect: gradient recording is unchanged",
                f"It creates a context manager and throws it away; use `with {text}:` around "
                "the code",
            )
            fix = _fix(ctx, stmt, text)
            yield self.finding(message, ctx.node_range(stmt), (), [fix] if fix else [])


def _fix(ctx: RuleContext, stmt: ast.Expr, text: str) -> Fix | None:
    if not stands_alone(ctx.source, stmt):
        return None
    title = "Turn into a with block"
    following = list(ctx.analysis.statements_after(stmt))
    if not following:
        return Fix(title, Safety.UNSAFE, (delete_statement(ctx.source, stmt),))
    indent = indentation(ctx.source, stmt)
    first = stmt.lineno - 1
    # The block starts right after the call: the comment lines before the next statement
    # go into it with the code they describe.
    body = indented_block(ctx.source, following, indent, first=stmt.end_lineno or stmt.lineno)
    last = (following[-1].end_lineno or following[-1].lineno) - 1
    newline = ctx.source.newline
    # stands_alone() left at most a comment after the call: it stays on the `with` line.
    call_end = ctx.source.from_ast(stmt.end_lineno or stmt.lineno, stmt.end_col_offset or 0)
    comment = ctx.source.line(call_end.line)[call_end.character :]
    replacement = f"{indent}with {text}:{comment}{newline}{body}"
    region = Range(Position(first, 0), Position(last, len(ctx.source.line(last))))
    return Fix(title, Safety.UNSAFE, (TextEdit(region, replacement),))
