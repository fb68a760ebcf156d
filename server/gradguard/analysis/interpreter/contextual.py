"""What a function of the file returns at one call, given that call's arguments.

A function's summary is computed once for every caller, so a parameter it cannot know
stays unknown, and so may what it returns: a loss module's `forward` computing
`self.crit(logits, targets)` cannot tell whether `targets` carry history (soft targets
could), so its loss has unknown history even when the caller passes integer labels and
logits cut by `.data`. When a call passes arguments whose facts are known and the summary's
result leaves its grad facts unknown, the function is interpreted once more for that call,
with those arguments bound and nothing recorded (its events are the summary's), and the
unknown autograd facts of the result are taken from that run
(`ModuleInterpreter.result_in_context`). Only autograd facts are refined: the carries and
activations of the result stay those the summary gives the call. The graph is refined where
the summary gives a part with history none (`with_run_graph`): the saving operations the
run went through for this call stand, one fresh node each, for this evaluation of the call
(two parts of the result share a node where the run found them sharing an operation), and
the nodes of the call's own arguments stay themselves. Shapes are the other
exception: when a call passes a tensor whose whole shape is known and the summary leaves the
shape of some tensor it returns partly unknown, the run's shape (which holds for this call's
arguments) is taken where it tells more (`forward` of a batch keeps its batch size).

A function whose callers run it under different grad modes has a summary made under an
unknown mode: a call made with recording on whose result has unknown history then takes it
from one run of the function in that mode, with its callers' facts (`unknown_history`,
`ModuleInterpreter.result_in_mode`: one run per function and mode, shared by its calls).
A run in context never starts another (one level), only functions of this file qualify, and
only calls made with gradient recording on (the summary assumes it).
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gradguard.analysis.converted_numbers import converted_from_history
from gradguard.analysis.events import InferenceSaved
from gradguard.analysis.graph import SavedNode, Saves
from gradguard.analysis.graph_inputs import is_stand_in
from gradguard.analysis.names import callee_name
from gradguard.analysis.node_cache import cached_by_node
from gradguard.analysis.shapes import Shape
from gradguard.analysis.values import Grad, Kind, Loss, LossKind, Value, evolve, forced_after_cut
from gradguard.analysis.walk import own_nodes

if TYPE_CHECKING:
    from gradguard.analysis.parameters import Freeze

# How deep a result's tuples and dicts are looked into.
_DEPTH = 3


@dataclass(frozen=True)
class ContextRun:
    """What one run in context found: what the function returns, the places it would
    save an inference tensor for backward (events the run did not report), and the
    parameters whose module (or a layer of it, by dotted key) it froze whole on every way
    out, with the freeze (`InterpreterState.frozen_parameters` of the run)."""

    returned: Value
    inference_saved: tuple[InferenceSaved, ...] = ()
    frozen: tuple[tuple[str, Freeze], ...] = ()


def wants_context(
    function: ast.FunctionDef | ast.AsyncFunctionDef, result: Value, passed: dict[str, Value] | None
) -> bool:
    """Whether a run with the call's arguments may tell more than the summary: some
    argument is a known tensor or module, and some part of the result has unknown history,
    the function reports what it gives a loss or a checkpoint (`reports_in_context`), an
    argument is an inference tensor the run may find saved for backward, or the function
    forces requires_grad and returns a tensor that requires grad: with this call's arguments
    the run may find that tensor is the leaf of a forcing after a cut (`ForcedLeaf`)."""
    if passed is None or not informative(passed):
        return False
    return (
        _unknown_grad(result, _DEPTH)
        or reports_in_context(function)
        or any(v.inference and v.kind is Kind.TENSOR for v in passed.values())
        or any(_inert_terms(v, _DEPTH) - result.inert_terms for v in passed.values())
        or (forces_requires_grad(function) and _tracked_unforced(result, _DEPTH))
        or (
            any(_exactly_shaped(v, _DEPTH) for v in passed.values())
            and _undecided_shape(result, _DEPTH)
        )
    )


@cached_by_node
def forces_requires_grad(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether the function's own code forces requires_grad on a tensor
    (`t.requires_grad = True`, `t.requires_grad_()`): whether that tensor had a history may
    depend on what each call passes."""
    for node in own_nodes(function.body):
        if isinstance(node, ast.Attribute) and node.attr == "requires_grad_":
            return True
        if (
            isinstance(node, ast.Attribute)
            and node.attr == "requires_grad"
            and isinstance(node.ctx, ast.Store)
        ):
            return True
    return False


def _tracked_unforced(value: Value, depth: int) -> bool:
    """Some tensor part of `value` (through tuples and dicts) requires grad and is not
    known to be the leaf of a forcing after a cut."""
    if value.kind is Kind.TENSOR and value.grad is Grad.TRACKED and value.forced is None:
        return True
    if depth == 0 or value.elements is None:
        return False
    return any(_tracked_unforced(part, depth - 1) for part in value.elements)


def _inert_terms(value: Value, depth: int) -> frozenset[Loss]:
    """The terms without history (`Autograd.inert_terms`) an argument brings, also through
    the items and elements of a list, tuple or dict (fast weights `[w - lr * g ...]` built
    from gradients taken without create_graph): a run may find them in the result."""
    found = value.inert_terms
    if depth == 0:
        return found
    parts = [*(value.elements or ()), *((value.items,) if value.items is not None else ())]
    for part in parts:
        found |= _inert_terms(part, depth - 1)
    return found


def informative(passed: dict[str, Value]) -> bool:
    """Some argument a call passes is a known tensor or module: a run with them may tell
    more than the summary."""
    return any(_informative(v) for v in passed.values())


def _exactly_shaped(value: Value, depth: int) -> bool:
    """A tensor whose whole shape is known (or a tuple, list or dict holding one): what a
    run can compute the shapes of the result from (a batch size through a forward)."""
    if value.kind is Kind.TENSOR and value.shape.exact:
        return True
    if depth == 0 or value.elements is None:
        return False
    return any(_exactly_shaped(part, depth - 1) for part in value.elements)


def _undecided_shape(value: Value, depth: int) -> bool:
    """Some tensor part of `value` (through tuples and dicts) whose whole shape is not
    known."""
    if value.kind in (Kind.TENSOR, Kind.UNKNOWN) and not value.shape.exact:
        return True
    if depth == 0 or value.elements is None:
        return False
    return any(_undecided_shape(part, depth - 1) for part in value.elements)


def _more_known(found: Shape, summary: Shape) -> bool:
    """Whether a run's shape tells more than the summary's: the whole shape where the
    summary's is partial, or the number of elements being one or not where it is unknown."""
    if found.exact and not summary.exact:
        return True
    decided = found.single or found.not_single
    return decided and not (summary.single or summary.not_single)


def unknown_history(result: Value) -> bool:
    """Some part of `result` (through tuples and dicts) has unknown history."""
    return _unknown_grad(result, _DEPTH)


def reports_in_context(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether the function's own code calls a loss or a checkpoint by name, or converts
    to numpy: what those are given decides findings inside it (GG110-GG113: softmax output
    given to `nll_loss`; GG112: a checkpoint's inputs; GG502: `np.abs(w)` of a parameter a
    caller passes), and a run with a call's arguments reports them. Or it copies values
    into a new tensor (`torch.tensor(per_task)`): whether they had history, and so whether
    the result holds a copy that cuts it (`Autograd.copies`, GG105), is the call's."""
    return _calls_reported(function)


@cached_by_node
def _calls_reported(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return any(
        isinstance(node, ast.Call)
        and (callee_name(node.func) in _REPORTED_CALLEES or _numpy_conversion(node.func))
        for node in own_nodes(function.body)
    )


def _numpy_conversion(func: ast.expr) -> bool:
    """`x.numpy()` or a function of numpy by its usual names (`np.abs`, `numpy.mean`)."""
    if not isinstance(func, ast.Attribute):
        return False
    if func.attr == "numpy":
        return True
    root = func.value
    while isinstance(root, ast.Attribute):
        root = root.value
    return isinstance(root, ast.Name) and root.id in ("np", "numpy")


_REPORTED_CALLEES = frozenset(
    {
        "nll_loss",
        "cross_entropy",
        "binary_cross_entropy",
        "binary_cross_entropy_with_logits",
        "checkpoint",
        "checkpoint_sequential",
        "tensor",
        "as_tensor",
    }
)


def refined(result: Value, found: Value) -> Value:
    """`result` with each part of unknown history given the history `found` (the run in
    context) certainly has, part by part (elements of tuples and dicts of the same shape)."""
    return _refined(result, found, _DEPTH)


def _informative(value: Value, depth: int = _DEPTH) -> bool:
    """A tensor or module (or a tuple, list or dict holding one): what autograd facts are
    made of. Strings, numbers and unknown objects tell a summary nothing it lacked."""
    if value.kind in (Kind.TENSOR, Kind.MODULE):
        return True
    if depth == 0:
        return False
    parts = [*(value.elements or ()), *([value.items] if value.items is not None else [])]
    return any(_informative(part, depth - 1) for part in parts)


def _unknown_grad(value: Value, depth: int) -> bool:
    if value.kind in (Kind.TENSOR, Kind.UNKNOWN) and value.grad is Grad.UNKNOWN:
        return True
    if _unknown_rewrap(value):
        return True
    if depth == 0 or value.elements is None:
        return False
    return any(_unknown_grad(element, depth - 1) for element in value.elements)


def _refined(result: Value, found: Value, depth: int) -> Value:
    if (
        result.grad is Grad.UNKNOWN
        and found.grad is not Grad.UNKNOWN
        and result.kind in (Kind.TENSOR, Kind.UNKNOWN)
        and (found.kind in (Kind.TENSOR, Kind.SCALAR) or converted_from_history(found))
        and result.kind in (found.kind, Kind.UNKNOWN)
    ):
        # All its autograd facts at once: they hold together (a leaf made by
        # `requires_grad_()` is TRACKED *and* a leaf).
        result = evolve(result, autograd=found.autograd, kind=found.kind)
    elif (
        result.kind is Kind.TENSOR
        and result.grad is Grad.TRACKED
        and result.forced is None
        and forced_after_cut(found) is not None
    ):
        # For this call, the tensor is the leaf a forcing made after a cut (`loss.mean()`
        # of embeddings the caller cut, then `requires_grad = True`): all its autograd
        # facts at once, the leaf and its forcing.
        result = evolve(result, autograd=found.autograd)
    elif (
        _unknown_rewrap(result)
        and found.grad is Grad.UNTRACKED
        and found.loss is not None
        and found.loss.kind is LossKind.REWRAP
    ):
        # No history either way; the run says whether what was re-wrapped had some
        # (`torch.tensor(task_losses)` of the losses this call computes).
        result = evolve(result, autograd=found.autograd)
    if (
        result.kind in (Kind.TENSOR, Kind.UNKNOWN)
        and found.kind is Kind.TENSOR
        and _more_known(found.shape, result.shape)
    ):
        # The run's shape holds for this call: its arguments are this call's.
        result = evolve(result, shape=found.shape)
    if found.inert_terms - result.inert_terms and result.grad is found.grad:
        # Terms certainly without history the run found feeding the result (a gradient
        # penalty added on the path this call takes).
        result = evolve(result, inert_terms=result.inert_terms | found.inert_terms)
    if found.copies - result.copies and result.grad is found.grad:
        # Copies of tensors with history the run found feeding the result
        # (`torch.tensor(task_losses)` inside a loss module's forward).
        result = evolve(result, copies=result.copies | found.copies)
    if _structure_from_run(result, found, depth):
        # The summary joined paths of different structure (`return logits` when no labels
        # are given, `return loss, logits` otherwise); the run takes this call's path.
        assert found.elements is not None
        parts = tuple(_refined(result, theirs, depth - 1) for theirs in found.elements)
        return evolve(result, kind=Kind.SEQUENCE, elements=parts)
    pairs = _paired_parts(result, found, depth)
    if pairs is None:
        return result
    parts = tuple(_refined(mine, theirs, depth - 1) for mine, theirs in pairs)
    if all(a is b for a, (b, _) in zip(parts, pairs, strict=True)):
        return result
    return evolve(result, elements=parts)


def _paired_parts(result: Value, found: Value, depth: int) -> list[tuple[Value, Value]] | None:
    """The parts of a tuple or dict the summary gives (`result`) with the run's parts of
    the same place (`found`), when both have the same structure and `depth` allows looking
    into them; None otherwise."""
    mine, theirs = result.elements, found.elements
    if (
        depth == 0
        or mine is None
        or theirs is None
        or len(mine) != len(theirs)
        or result.fields != found.fields
    ):
        return None
    return list(zip(mine, theirs, strict=True))


def _structure_from_run(result: Value, found: Value, depth: int) -> bool:
    """`result` is of unknown kind and structure where the run in context returned a tuple
    (no fields) of known length: the run's structure holds for this call."""
    return (
        depth > 0
        and result.kind is Kind.UNKNOWN
        and result.elements is None
        and found.kind is Kind.SEQUENCE
        and found.elements is not None
        and found.fields is None
    )


def with_inference(result: Value, found: Value) -> Value:
    """`result` of a call under inference_mode, each tensor part an inference tensor when
    the run in this mode (`found`) allocated it there (part by part, as `refined`)."""
    return _with_inference(result, found, _DEPTH)


def _with_inference(result: Value, found: Value, depth: int) -> Value:
    if result.kind is Kind.TENSOR and found.kind is Kind.TENSOR and found.inference:
        result = evolve(result, inference=True)
    if (
        depth == 0
        or result.elements is None
        or found.elements is None
        or len(result.elements) != len(found.elements)
    ):
        return result
    parts = tuple(
        _with_inference(mine, theirs, depth - 1)
        for mine, theirs in zip(result.elements, found.elements, strict=True)
    )
    return evolve(result, elements=parts)


def _unknown_rewrap(value: Value) -> bool:
    """A value without history re-wrapped from values the summary could not see
    (`torch.tensor(xs)` of a parameter's items): whether they had history is unknown."""
    loss = value.loss
    return (
        value.grad is Grad.UNTRACKED
        and loss is not None
        and loss.kind is LossKind.REWRAP
        and loss.wrapped_unknown
        and not loss.wrapped_history
    )


def with_run_graph(result: Value, found: Value, call: ast.Call, passed: dict[str, Value]) -> Value:
    """`result` of `call` with the graph the run in context (`found`) certainly went through,
    part by part, where the summary left a part with history no graph (`forward` returning
    `(out, feats) if return_feats else out`: the summary joined both paths; the run took
    this call's). A node of a passed argument's graph stays itself; every other node the run
    went through (made by the function's own code, on this call's path) becomes a node of
    this call, created afresh: each evaluation of the call builds its own graph. Nodes that
    save only when a parameter requires grad (`SavedNode.given`) and parameters' stand-ins
    are left out: only what certainly saved counts."""
    theirs = frozenset().union(*(_graph_of(v, _DEPTH) for v in passed.values()))
    fresh: dict[SavedNode, SavedNode] = {}

    def mapped(node: SavedNode) -> SavedNode:
        if node in theirs:
            return node
        if node not in fresh:
            fresh[node] = SavedNode(call, Saves.OTHER)
        return fresh[node]

    return _with_graph(result, found, mapped, _DEPTH)


def _graph_of(value: Value, depth: int) -> frozenset[SavedNode]:
    """The graph nodes of `value` and of its parts (tuples, dicts)."""
    nodes = value.graph
    if depth > 0:
        for part in [*(value.elements or ()), *([value.items] if value.items is not None else [])]:
            nodes |= _graph_of(part, depth - 1)
    return nodes


def _with_graph(
    result: Value, found: Value, mapped: Callable[[SavedNode], SavedNode], depth: int
) -> Value:
    certain = frozenset(n for n in found.graph if not n.given and not is_stand_in(n))
    if (
        certain
        and not result.graph
        and result.kind is Kind.TENSOR
        and found.kind is Kind.TENSOR
        and result.grad is Grad.TRACKED
        and found.grad is Grad.TRACKED
    ):
        result = evolve(result, graph=frozenset(mapped(n) for n in certain))
    pairs = _paired_parts(result, found, depth)
    if pairs is None:
        return result
    parts = tuple(_with_graph(mine, theirs, mapped, depth - 1) for mine, theirs in pairs)
    if all(a is b for a, (b, _) in zip(parts, pairs, strict=True)):
        return result
    return evolve(result, elements=parts)
