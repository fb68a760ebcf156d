"""requires_grad forced onto a tensor that has no history, which is then backpropagated as is.

`loss.requires_grad = True`, `loss.requires_grad_()` and `torch.tensor(x, requires_grad=True)`
turn a tensor without a `grad_fn` into a leaf that requires grad. When that leaf is the very
value `backward()` runs on, the "element 0 of tensors does not require grad" error is gone and
nothing else changed: the gradient stops at the leaf and never reaches the model.

The interpreter already says why the tensor had no history before the forcing (`Value.loss`:
computed under no_grad, detached, rebuilt from `.item()`, made by argmax...). What it binds
after the forcing is a leaf that requires grad; when the tensor certainly lost its history
at a real cut, that leaf carries the forcing (`Value.forced`, a `ForcedLeaf`), which flows
wherever that very tensor flows: assignments, returns of functions and of a module's
`forward`, tuple elements. This module ties the two together: a forcing use whose value
certainly lost its history at a real cut, and a backward call, in any function, on a value
that carries that forcing (or on the same name, bound to what the forcing left).

A forcing whose own run cannot tell what the forced tensor was (a loss module's `forward`
forcing a loss computed from its arguments) is resolved per call: a call of the function
from code whose arguments are known runs it again with them (`contextual.wants_context`),
and when that run returns the leaf of a forcing after a cut, the caller's value carries it;
a backward on it is reported at the forcing (`_forced_in_context`).

A fresh tensor (`x = torch.randn(3); x.requires_grad = True`) or data wrapped by
`torch.tensor(array)` is a genuine leaf input and is never reported; nor is a forced leaf that
is only used to compute the value backpropagated (`x_adv = x.detach().requires_grad_()` then
`loss = f(model(x_adv)); loss.backward()`: the gradient reaches the model through `loss`).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass

from gradguard.analysis.events import AttributeSet, GradRead, OptimizedTensor, RequiresGradCall
from gradguard.analysis.model import BackwardCall, ModuleAnalysis, TorchCall
from gradguard.analysis.names import dotted
from gradguard.analysis.parameters import is_true
from gradguard.analysis.values import (
    Grad,
    Kind,
    Loss,
    LossKind,
    Value,
    cut_before_forcing,
    forced_after_cut,
    real_cut,
)
from gradguard.analysis.walk import module_parents

# The events that may force requires_grad on a tensor: `x.requires_grad = True` and
# `x.requires_grad_()`.
_Forcing = AttributeSet | RequiresGradCall

__all__ = ["ForcedGrad", "forced_grad_backprops", "real_cut"]


@dataclass(frozen=True, eq=False)
class ForcedGrad:
    """A forcing of requires_grad on a tensor without history that a backward runs on.

    `node` is the forcing (the `x.requires_grad = True` statement, the `requires_grad_()`
    call, or the `torch.tensor(..., requires_grad=True)` call), `stmt` its statement, `target`
    the forced tensor's expression (the rewrapped data for `torch.tensor`), `via` how it was
    forced ("setattr", "method" or "rewrap"), `cut` why the tensor had no history (the real
    cut) and `backward` the first backward call that runs on the forced leaf.
    """

    node: ast.AST
    stmt: ast.stmt
    target: ast.expr
    via: str
    cut: Loss
    backward: BackwardCall


def forced_grad_backprops(analysis: ModuleAnalysis) -> Iterator[ForcedGrad]:
    """Every forcing of requires_grad on a tensor cut from its history, with the backward
    call that runs on the forced leaf (one per forcing, at its first backward)."""
    found = list(_forced_by_use(analysis))
    yield from found
    yield from _forced_in_context(analysis, {id(forced.node) for forced in found})
    yield from _forced_by_rewrap(analysis)


def _forced_by_use(analysis: ModuleAnalysis) -> Iterator[ForcedGrad]:
    """`x.requires_grad = True` and `x.requires_grad_()` on a tensor without history."""
    groups: dict[int, list[_Forcing]] = {}
    for use in analysis.events.of(AttributeSet, RequiresGradCall):
        if _forcing_kind(use) is not None:
            groups.setdefault(id(use.node), []).append(use)
    for uses in groups.values():
        first = uses[0]
        cuts = {id(_cut_before(use)) for use in uses}
        cut = _cut_before(first)
        if cut is None or len(cuts) != 1:
            continue  # some interpretation of the statement saw a tensor that may be tracked
        key = _forced_key(first)
        if key is not None and _data_replaced(analysis, first, key):
            continue
        event = _first_backward_on(analysis, first, key)
        via = _forcing_kind(first)
        if event is not None and via is not None:
            yield ForcedGrad(first.node, first.stmt, first.target, via, cut, event)


def _forced_in_context(analysis: ModuleAnalysis, reported: set[int]) -> Iterator[ForcedGrad]:
    """A forcing in a function of the file whose own run could not tell the forced tensor's
    history (it depends on what callers pass), backpropagated by a caller whose call ran it
    with its arguments and found the tensor cut (`TripletLoss.forward` forcing its mean
    loss, given embeddings the encoder re-wrapped from numpy): the backward's value is that
    very leaf (`Value.forced`), so on that path the forcing hid a real cut."""
    uses = {id(use.node): use for use in analysis.events.of(AttributeSet, RequiresGradCall)}
    for event in analysis.backward_calls:
        forced = forced_after_cut(event.value)
        if forced is None or id(forced.node) in reported:
            continue
        use = uses.get(id(forced.node))
        via = _forcing_kind(use) if use is not None else None
        if use is None or via is None:
            continue
        key = _forced_key(use)
        if key is not None and _data_replaced(analysis, use, key):
            continue
        reported.add(id(forced.node))
        yield ForcedGrad(use.node, use.stmt, use.target, via, forced.cut, event)


def _forcing_kind(use: _Forcing) -> str | None:
    """ "setattr" for `x.requires_grad = True`, "method" for `x.requires_grad_()` /
    `x.requires_grad_(True)`; None for anything else."""
    if isinstance(use, AttributeSet) and use.attribute == "requires_grad":
        stmt = use.stmt
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and is_true(stmt.value):
            return "setattr"
        return None
    if isinstance(use, RequiresGradCall) and isinstance(use.node, ast.Call):
        call = use.node
        if call.keywords or len(call.args) > 1:
            return "method" if _flag_keyword_true(call) else None
        if not call.args or is_true(call.args[0]):
            return "method"
    return None


def _flag_keyword_true(call: ast.Call) -> bool:
    """`x.requires_grad_(requires_grad=True)`."""
    return (
        not call.args
        and len(call.keywords) == 1
        and call.keywords[0].arg == "requires_grad"
        and is_true(call.keywords[0].value)
    )


def _cut_before(use: _Forcing) -> Loss | None:
    """Why the forced tensor certainly had no history, when it is a real cut."""
    return cut_before_forcing(use.value)


def _forced_key(use: _Forcing) -> str | None:
    """The name the forced leaf is bound to after the forcing statement."""
    stmt = use.stmt
    if _forcing_kind(use) == "setattr" or (isinstance(stmt, ast.Expr) and stmt.value is use.node):
        return dotted(use.target)
    if isinstance(stmt, ast.Assign) and stmt.value is use.node and len(stmt.targets) == 1:
        return dotted(stmt.targets[0])
    return None


def _data_replaced(analysis: ModuleAnalysis, forcing: _Forcing, key: str) -> bool:
    """`key.data = ...` somewhere in the function: the tensor's contents may come from
    elsewhere (and the interpreter forgets what it was, as it does after the forcing)."""
    return any(
        use.attribute == "data" and use.function is forcing.function and dotted(use.target) == key
        for use in analysis.events.of(AttributeSet)
    )


def _first_backward_on(
    analysis: ModuleAnalysis, forcing: _Forcing, key: str | None
) -> BackwardCall | None:
    """The first backward call on the leaf the forcing made: in any function, on a value
    carrying the forcing (`Value.forced`), or after the forcing in the same function, on
    `key` bound to what the forcing left."""
    for event in analysis.backward_calls:
        forced = forced_after_cut(event.value)
        if forced is not None and forced.node is forcing.node:
            return event
        if key is None or event.function is not forcing.function:
            continue
        if dotted(event.target) != key or not _left_by(event.value, forcing):
            continue
        if _runs_after(analysis, forcing.stmt, event.stmt):
            return event
    return None


def _left_by(value: Value, forcing: _Forcing) -> bool:
    """True when `value` is the tensor the forcing left bound to its name: a leaf without
    a recorded reason, bound by the forcing statement (`requires_grad_()`), or an unknown
    tensor still bound by the statement that bound the tensor before (`x.requires_grad =`)."""
    if value.kind is not Kind.TENSOR or value.loss is not None or value.origin is None:
        return False
    if _forcing_kind(forcing) == "method":
        return value.grad is Grad.TRACKED and value.leaf is True and value.origin is forcing.stmt
    if value.grad is Grad.UNTRACKED:
        return False
    return value.origin is forcing.value.origin


def _runs_after(analysis: ModuleAnalysis, first: ast.stmt, later: ast.stmt) -> bool:
    """True when `later` follows `first` in its block or in a block enclosing it."""
    current = first
    while True:
        for stmt in analysis.statements_after(current):
            if any(node is later for node in ast.walk(stmt)):
                return True
        owner, _ = analysis.block_of(current)
        if not isinstance(owner, ast.stmt) or isinstance(
            owner, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
        ):
            return False
        current = owner


def _forced_by_rewrap(analysis: ModuleAnalysis) -> Iterator[ForcedGrad]:
    """`torch.tensor(x, requires_grad=True)` (or `Variable(x, requires_grad=True)`) whose
    leaf is the only history of the value backpropagated (`rewrap_root`): of a tensor cut
    by no_grad, detach, a frozen model..., or of data whose history is not known, made in
    the very function that backpropagates it and used for nothing but that backward (its
    `.grad` never read, not handed to an optimizer, no hook registered). (A re-wrapped
    number from `.item()` is GG102's, a re-wrapped tensor with history GG105's.)"""
    statements = {id(torch_call.call): torch_call for torch_call in analysis.torch_calls}
    seen: set[int] = set()
    for event in analysis.backward_calls:
        value = event.value
        loss = value.loss
        if value.grad is not Grad.TRACKED or loss is None or loss.kind is not LossKind.REWRAP:
            continue
        if loss.wrapped_history or id(loss.node) in seen:
            continue
        cut = _rewrapped_cut(analysis, event, loss, statements)
        call = loss.node
        made = statements.get(id(call))
        if cut is None or not isinstance(call, ast.Call) or not call.args or made is None:
            continue
        if not any(kw.arg == "requires_grad" and is_true(kw.value) for kw in call.keywords):
            continue
        seen.add(id(call))
        yield ForcedGrad(call, made.stmt, call.args[0], "rewrap", cut, event)


def _rewrapped_cut(
    analysis: ModuleAnalysis, event: BackwardCall, loss: Loss, made: dict[int, TorchCall]
) -> Loss | None:
    """Why the re-wrapped data had no history for the backward: the real cut before the
    re-wrap, or (data whose history is not known) the re-wrap itself, when the new leaf
    lives and dies in the backward's function."""
    inner = real_cut(loss.inner)
    if inner is not None:
        return None if inner.kind is LossKind.CONVERSION else inner
    if not loss.wrapped_unknown or loss.inner is not None:
        return None
    torch_call = made.get(id(loss.node))
    if (
        torch_call is None
        or torch_call.function is None
        or torch_call.function is not event.function
    ):
        return None
    if event.via == "torch.autograd.grad" or any(kw.arg == "inputs" for kw in event.call.keywords):
        return None
    if _leaf_escapes(analysis.tree, torch_call.call, torch_call.function):
        return None
    return None if _leaf_used_otherwise(analysis, loss) else loss


# Where a tensor is only computed with: `leaf.sum()`, `leaf * w`, `-leaf`, `leaf < 0`.
_COMPUTED_WITH = ast.Attribute | ast.BinOp | ast.UnaryOp | ast.Compare


def _leaf_escapes(tree: ast.Module, call: ast.Call, function: ast.AST) -> bool:
    """The leaf `call` makes may be kept by something other than the values computed from
    it: it is not used right there in a computation (`torch.tensor(v, requires_grad=True)
    .mean()`), nor bound to a plain name of `function` whose every read computes with it
    (`loss.backward()`, `loss.item()`, `total + loss`); a list, a call's argument, an
    attribute or a `return` may hand it to an optimizer."""
    parents = module_parents(tree)
    parent = parents.get(id(call))
    if isinstance(parent, _COMPUTED_WITH):
        return False
    if not (isinstance(parent, ast.Assign) and len(parent.targets) == 1):
        return True
    target = parent.targets[0]
    if not isinstance(target, ast.Name):
        return True
    wrapped = {id(node) for node in ast.walk(call)}  # `loss = Variable(loss, ...)`
    return any(
        isinstance(node, ast.Name)
        and node.id == target.id
        and isinstance(node.ctx, ast.Load)
        and id(node) not in wrapped
        and not isinstance(parents.get(id(node)), _COMPUTED_WITH)
        for node in ast.walk(function)
    )


def _leaf_used_otherwise(analysis: ModuleAnalysis, rewrap: Loss) -> bool:
    """The leaf made by `rewrap` has its `.grad` read, is listed in an optimizer, or the
    function registers a hook (on it or on anything grown from it)."""
    for use in analysis.events.of(GradRead, OptimizedTensor):
        loss = use.value.loss
        if loss is not None and loss.node is rewrap.node:
            return True
    return any(
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in ("register_hook", "retain_grad")
        for node in ast.walk(analysis.tree)
    )
