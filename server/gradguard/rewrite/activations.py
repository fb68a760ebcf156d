"""Removing an activation call (`F.softmax(out, dim=1)` becomes `out`) in front of a loss that
applies the activation itself (GG110, GG111)."""

from __future__ import annotations

import ast

from gradguard.core.findings import Fix, Safety
from gradguard.core.text import SourceText
from gradguard.rewrite.expressions import expr_text, needs_parentheses, replace_expr


def activation_argument(call: ast.Call, method: bool) -> ast.expr | None:
    """The tensor an activation call applies to: the receiver of a method (`x.softmax(1)`),
    else the first argument (`F.softmax(x, 1)`, a layer call `softmax(x)`)."""
    if method:
        return call.func.value if isinstance(call.func, ast.Attribute) else None
    if call.args and not isinstance(call.args[0], ast.Starred):
        return call.args[0]
    return None


def remove_activation(
    source: SourceText,
    scope: ast.AST,
    call: ast.AST,
    loss_input: ast.expr,
    title: str,
    *,
    method: bool,
) -> Fix | None:
    """Replace the activation `call` by the tensor it applies to.

    Safe when the activation's result is used only as `loss_input`: the call is part of the
    loss input itself, or it is the whole right-hand side of `name = call` in the loss's own
    function (`scope`) and `name` is read nowhere else there. Otherwise the probabilities may
    also be used elsewhere (metrics, a model's output), so the fix is unsafe."""
    if not isinstance(call, ast.Call):
        return None
    argument = activation_argument(call, method)
    if argument is None:
        return None
    text = expr_text(source, argument)
    if needs_parentheses(argument):
        text = f"({text})"
    edit = replace_expr(source, call, text)
    inline = any(node is call for node in ast.walk(loss_input))
    safety = Safety.SAFE if inline or _only_read_by(scope, call, loss_input) else Safety.UNSAFE
    return Fix(title, safety, (edit,))


def _only_read_by(scope: ast.AST, call: ast.Call, loss_input: ast.expr) -> bool:
    """`probs = F.softmax(out, 1)` in `scope`, and `probs` read only as `loss_input`."""
    if not isinstance(loss_input, ast.Name):
        return False
    name = loss_input.id
    bound = False
    reads = 0
    for node in ast.walk(scope):
        if isinstance(node, ast.Assign) and node.value is call:
            bound = len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
            bound = bound and node.targets[0].id == name  # type: ignore[attr-defined]
        elif isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load):
            reads += 1
        elif isinstance(node, ast.Global | ast.Nonlocal) and name in node.names:
            return False
    return bound and reads == 1
