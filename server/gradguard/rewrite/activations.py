"""Fixes at an activation in front of a loss: removing it (`F.softmax(out, dim=1)` becomes
`out`) before a loss that applies the activation itself (GG110, GG111), or turning a softmax
into a log_softmax before a loss that expects log-probabilities (GG113)."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from gradguard.core.findings import Fix, Safety
from gradguard.core.text import SourceText
from gradguard.rewrite.expressions import expr_text, needs_parentheses, replace_expr

if TYPE_CHECKING:
    from gradguard.analysis.facts import Activation


def activation_argument(call: ast.Call, method: bool) -> ast.expr | None:
    """The tensor an activation call applies to: the receiver of a method (`x.softmax(1)`),
    else the first argument (`F.softmax(x, 1)`, a layer call `softmax(x)`)."""
    if method:
        return call.func.value if isinstance(call.func, ast.Attribute) else None
    if call.args and not isinstance(call.args[0], ast.Starred):
        return call.args[0]
    return None


def without_activation(
    source: SourceText, scope: ast.AST, activation: Activation, loss_input: ast.expr, title: str
) -> list[Fix]:
    """The fix removing `activation` in front of `loss_input` (see `remove_activation`), or
    none when the activation is a layer of an `nn.Sequential`, which a call edit cannot
    remove."""
    if activation.layer:
        return []
    method = activation.description.startswith(".")
    fix = remove_activation(source, scope, activation.node, loss_input, title, method=method)
    return [] if fix is None else [fix]


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

    Safe when the activation's result is used only as `loss_input` (see `only_for_loss`).
    Otherwise the probabilities may also be used elsewhere (metrics, a model's output), so
    the fix is unsafe."""
    if not isinstance(call, ast.Call):
        return None
    argument = activation_argument(call, method)
    if argument is None:
        return None
    text = expr_text(source, argument)
    if needs_parentheses(argument):
        text = f"({text})"
    edit = replace_expr(source, call, text)
    safety = Safety.SAFE if only_for_loss(scope, call, loss_input) else Safety.UNSAFE
    return Fix(title, safety, (edit,))


def to_log_softmax(
    source: SourceText, scope: ast.AST, activation: Activation, loss_input: ast.expr
) -> Fix | None:
    """`F.softmax(x, dim=1)` / `torch.softmax(x, 1)` / `x.softmax(1)` becomes the same call
    of `log_softmax`, same arguments: offered only when the probabilities are used by the loss
    alone (`only_for_loss`), where the change is exactly the log the loss expects. None for a
    layer, a bare imported `softmax(...)` or a softmax read elsewhere too."""
    call = activation.node
    if activation.layer or not isinstance(call, ast.Call):
        return None
    func = call.func
    if not (isinstance(func, ast.Attribute) and func.attr == "softmax"):
        return None
    if not only_for_loss(scope, call, loss_input):
        return None
    edit = replace_expr(source, func, f"{expr_text(source, func.value)}.log_softmax")
    return Fix("Use log_softmax", Safety.SAFE, (edit,))


def only_for_loss(scope: ast.AST, call: ast.Call, loss_input: ast.expr) -> bool:
    """The activation's result is used only as `loss_input`: the call is part of the loss
    input itself, or it is the whole right-hand side of `name = call` in the loss's own
    function (`scope`) and `name` is read nowhere else there."""
    if any(node is call for node in ast.walk(loss_input)):
        return True
    return _only_read_by(scope, call, loss_input)


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
