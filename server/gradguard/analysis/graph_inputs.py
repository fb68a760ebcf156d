"""The graph a function's result runs through, seen from one call: its own nodes and the
graphs of the arguments it was certainly computed from.

A helper such as `def diversity(feats): return (feats - feats.mean(0)).abs().mean()` saves
tensors of its own *and* hands back a tensor whose history runs through whatever graph
`feats` had at the call: `loss_div = diversity(feats)` after `loss_fake.backward()` (which
freed `feats`'s graph) fails with "Trying to backward through the graph a second time",
exactly as if the body were written inline.

The function's analysis binds each tensor-like parameter to a stand-in graph node (an
`ast.arg`, the same device a module's `forward` uses for its inputs). Graph nodes are
must-facts, so a stand-in in the returned value means every path computes the result from
that parameter with differentiable operations. At a call, the stand-in is replaced by the
graph the argument has there; the function's own nodes become one fresh node of the call
(two calls build two graphs). Stand-ins are never graphs of their own: they never make a
result look like it saved anything, and backward calls ignore them.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping, MutableMapping
from dataclasses import dataclass, field

from gradguard.analysis.call_sites import passed_arguments
from gradguard.analysis.graph import SavedNode, Saves
from gradguard.analysis.model import InPlaceOnSaved
from gradguard.analysis.node_cache import cached_by_node
from gradguard.analysis.values import Carry, Grad, Kind, Value, evolve

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef

# Values a parameter may hold for its stand-in to mean anything: a tensor, or not known.
_TENSOR_LIKE = (Kind.UNKNOWN, Kind.TENSOR)


def is_stand_in(node: SavedNode) -> bool:
    """A parameter's stand-in, not an operation that saved anything."""
    return isinstance(node.node, ast.arg) and not node.brought


def is_state_stand_in(node: SavedNode) -> bool:
    """A method's stand-in for the graph `self.<attr>` had when it was called (its `arg`
    is dotted, which no parameter's can be): see `InterpreterState.state_graph`."""
    return isinstance(node.node, ast.arg) and not node.brought and "." in node.node.arg


def own_nodes(graph: frozenset[SavedNode]) -> frozenset[SavedNode]:
    """The nodes of `graph` that are operations, not parameters' stand-ins."""
    return frozenset(n for n in graph if not is_stand_in(n))


@cached_by_node
def stand_in_of(param: ast.arg) -> SavedNode:
    """The one stand-in of `param` for a check and the incremental checks after it
    (`node_cache.tree_scope`): every run of the function (each pass, each call's context)
    binds the same object, so facts that hold it (what a call passes, a summary) are equal
    when nothing else changed, and the passes settle (see `model.settled`). Runs cannot mix
    through it: a stand-in is never a graph of its own, and a call replaces it by its
    argument's graph. (Kept in the node cache, not on the node: a node holding its stand-in,
    which holds the node, would make every tree cyclic garbage, freed only by a full
    collection.)"""
    return SavedNode(param, Saves.OTHER)


def bind_stand_ins(
    env: MutableMapping[str, Value], function: FunctionNode, skip: int
) -> dict[str, SavedNode]:
    """Give every named parameter of `function` (after the first `skip`, i.e. `self`) whose
    bound value may be a tensor a stand-in graph node; return them by parameter name."""
    spec = function.args
    found: dict[str, SavedNode] = {}
    for param in [*spec.posonlyargs, *spec.args, *spec.kwonlyargs][skip:]:
        bound = env.get(param.arg)
        if bound is None or bound.kind not in _TENSOR_LIKE or bound.elements is not None:
            continue
        stand_in = stand_in_of(param)
        found[param.arg] = stand_in
        env[param.arg] = evolve(bound, graph=bound.graph | {stand_in})
    return found


@dataclass(frozen=True)
class CallInputs:
    """What one call passes for a function's parameter stand-ins: the graph of each
    argument, and the stand-ins whose argument requires grad (under grad mode)."""

    graphs: dict[SavedNode, frozenset[SavedNode]] = field(default_factory=dict)
    tracked: frozenset[SavedNode] = frozenset()
    # The loop-carried values each argument depends on (in the caller).
    carries: dict[SavedNode, frozenset[Carry]] = field(default_factory=dict)

    def realised(self, node: SavedNode) -> bool:
        """Whether `node` of the function's analysis saved at this call: always, unless it
        saves only when a parameter requires grad and no such argument does here."""
        return not node.given or bool(node.given & self.tracked)


def call_inputs(
    function: FunctionNode,
    input_nodes: Mapping[str, SavedNode],
    call: ast.Call,
    args: list[Value],
    *,
    skip_self: bool,
    grad_on: bool,
) -> CallInputs:
    """Each stand-in of `function` mapped to the graph its argument has at `call` (only the
    parameters the call names; defaults have no graph)."""
    if not input_nodes:
        return CallInputs()
    passed = passed_arguments(function, call, args, skip_self=skip_self) or {}
    graphs: dict[SavedNode, frozenset[SavedNode]] = {}
    tracked: set[SavedNode] = set()
    carries: dict[SavedNode, frozenset[Carry]] = {}
    for name, stand_in in input_nodes.items():
        value = passed.get(name)
        if value is None or value.kind not in _TENSOR_LIKE:
            continue
        # The whole graph, the caller's own stand-ins included (for its parameters, or for
        # the graph `self.<attr>` had when it was called): a helper's result computed from
        # the argument runs through whatever history that stands for, so chains of helpers
        # (`feature_matching(f)` handing `f` to `moments`) keep it.
        graphs[stand_in] = value.graph
        carries[stand_in] = value.all_carries()
        if grad_on and value.kind is Kind.TENSOR and value.grad is Grad.TRACKED:
            tracked.add(stand_in)
    return CallInputs(graphs, frozenset(tracked), carries)


def instantiate(
    value: Value,
    call: ast.Call,
    inputs: CallInputs,
    fresh: SavedNode | None = None,
) -> Value:
    """A function's returned value as one call sees it: its own graph nodes (those that
    saved at this call) stand for one fresh node of this call, and each parameter stand-in
    for the graph of the argument the call passed for it (and the loop-carried values that
    argument depends on: the result is computed from it). A result whose grad the function
    could not tell requires grad when it is computed from an argument that does."""
    if value.elements is not None:
        elements = tuple(instantiate(e, call, inputs, fresh) for e in value.elements)
        return evolve(
            value,
            elements=elements,
            graph=frozenset(),
            saved_in=frozenset(),
            items_saved=frozenset(),
        )
    if not value.graph and not value.saved_in and not value.items_saved:
        return value
    graph: frozenset[SavedNode] = frozenset()
    if any(inputs.realised(n) for n in own_nodes(value.graph)):
        graph = frozenset({fresh if fresh is not None else SavedNode(call, Saves.OTHER)})
    carries = value.carries
    for node in value.graph:
        graph |= inputs.graphs.get(node, frozenset())
        carries |= inputs.carries.get(node, frozenset())
    result = evolve(
        value, graph=graph, saved_in=frozenset(), items_saved=frozenset(), carries=carries
    )
    if value.grad is Grad.UNKNOWN and value.graph & inputs.tracked:
        result = evolve(result, grad=Grad.TRACKED, kind=Kind.TENSOR)
    return result


def realised_changes(
    changes: tuple[InPlaceOnSaved, ...], inputs: CallInputs
) -> tuple[InPlaceOnSaved, ...]:
    """The in-place changes of a function's result that happen at this call: a change of a
    tensor saved only when an argument requires grad counts when one does."""
    return tuple(c for c in changes if any(inputs.realised(n) for n in c.saved_by))


def with_saved_output(result: Value, returned: Value, call: ast.Call, inputs: CallInputs) -> Value:
    """A call's result that the function's last operation saved for its own backward
    (`return self.relu(self.bn(x))` with `nn.ReLU(inplace=True)`, `return torch.sigmoid(h)`):
    the result is that saved tensor, so an in-place change of it at the caller (`x =
    self.act(x)` with another in-place ReLU, `out += 1`) breaks every backward through it,
    exactly as if the body were written inline. One node of this call stands for that
    operation, both in the result's history and among the nodes that saved it. Only a
    single tensor (elements of a tuple would share the node), only when that operation
    saved at this call (an argument it depends on requires grad here), and only when it is
    certain: the node saved the returned tensor on every path and the result's history
    runs through it."""
    if (
        returned.elements is not None
        or result.elements is not None
        or result.kind is not Kind.TENSOR
        or result.grad is not Grad.TRACKED
    ):
        return result
    saver = returned.saved_in & own_nodes(returned.graph)
    if not any(n.saves is Saves.OUTPUT and inputs.realised(n) for n in saver):
        return result
    node = SavedNode(call, Saves.OUTPUT)
    return evolve(result, graph=result.graph | {node}, saved_in=result.saved_in | {node})
