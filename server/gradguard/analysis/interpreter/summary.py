"""What a function looks like from its callers: `FunctionSummary`."""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from gradguard.analysis.graph import SavedNode
from gradguard.analysis.interpreter.methods import class_methods
from gradguard.analysis.model import (
    BackwardCall,
    InPlaceOnSaved,
)
from gradguard.analysis.names import kept_parameters, parameter_names
from gradguard.analysis.node_cache import cached_by_node
from gradguard.analysis.parameters import Freeze, ReplacedAttribute
from gradguard.analysis.values import (
    Carry,
    Value,
    evolve,
)
from gradguard.analysis.walk import LEAVES, children, own_nodes, walk

if TYPE_CHECKING:
    pass

# The key of a carry a call's result holds when the function returns one of its arguments
# rebound in a loop of its own to a tensor with history (`h = cell(x_t, h)` over the time
# steps of a chunk): `FunctionSummary.rebound`.
REBOUND_PREFIX = "%rebound:"


@dataclass(frozen=True)
class FunctionSummary:
    """A function as seen from its callers.

    `state_reads` are `self.<attr>` values the method reads before assigning them (with the
    reading expression); `state_writes` the values it leaves in `self.<attr>` on return.
    Together they let a caller see module state carried from one call to the next.
    """

    returned: Value
    state_reads: dict[str, tuple[ast.expr, Carry]] = field(default_factory=dict)
    state_writes: dict[str, Value] = field(default_factory=dict)
    # A module's `forward`: a stand-in graph node per input parameter. Graph nodes are
    # must-facts, so one in the returned value means every path computes it from that input,
    # and a caller's output then runs through the input's own history.
    input_nodes: dict[str, SavedNode] = field(default_factory=dict)
    # Every other function: a tag per parameter (see `FunctionInterpreter.enter_function`).
    param_tags: dict[str, Carry] = field(default_factory=dict)
    # In-place changes of saved tensors that every backward through the result trips over.
    changed_in_result: tuple[InPlaceOnSaved, ...] = ()
    # What the function appends to lists kept on `self` (`self.history.append(loss)`), by
    # attribute, joined over every append (see `gradguard.analysis.appended_state`).
    appended: dict[str, Value] = field(default_factory=dict)
    # Parameters the function rebinds in a loop of its own to a tensor with history and
    # returns (either unchanged, when the loop ran zero times, or with that history): by
    # parameter name, the loop's carry of it (see `rebound_parameters`).
    rebound: dict[str, Carry] = field(default_factory=dict)
    # The same for state on `self` the previous call left (`self.h = cell(x[:, i], self.h)`
    # over the time steps in `forward`), by attribute (see `rebound_state`).
    rebound_state: dict[str, Carry] = field(default_factory=dict)
    # The backward calls of a method whose graph runs through `self` state as the previous
    # call (or the calling method) left it, with those attributes; and the attributes whose
    # graph every call certainly frees (a backward through them, on every way out).
    state_backwards: tuple[tuple[BackwardCall, frozenset[str]], ...] = ()
    frees_state: frozenset[str] = frozenset()
    # Parameters whose module the function freezes whole on every way out of it (`def
    # freeze(model): model.requires_grad_(False)`), with the freeze: the caller's argument is
    # frozen after the call (see `InterpreterState.frozen_parameters`).
    frozen_parameters: dict[str, Freeze] = field(default_factory=dict)
    # Parameters an attribute of which the function sets, on some way through it, to a new
    # module with parameters of its own (`def load(model): model.fc = nn.Linear(...)`): an
    # optimizer the caller built before the call does not hold them.
    replaced_attributes: dict[str, ReplacedAttribute] = field(default_factory=dict)
    # The function's backward calls that freed, on every way out, graph nodes its result
    # certainly runs through (see `InterpreterState.frees_result`).
    frees_result: tuple[ast.Call, ...] = ()
    # The backward calls of the function whose graph runs through what parameters bring
    # (their stand-ins), with those parameters: a caller passing an argument whose graph
    # an earlier backward freed sees them run through it again.
    param_backwards: tuple[tuple[BackwardCall, frozenset[str]], ...] = ()
    # Parameters whose graph, as a caller passes it, the function's backward calls freed on
    # every way out of it, with those calls (see `InterpreterState.frees_parameters`).
    frees_parameters: dict[str, tuple[ast.Call, ...]] = field(default_factory=dict)


def rebound_parameters(returned: Value, input_nodes: dict[str, SavedNode]) -> dict[str, Carry]:
    """Parameters a function returns rebound by a loop of its own (`h = cell(x_t, h)` in
    `for x_t in chunk:`), from what it returns: an element (or the whole value) carrying
    a loop carry of the parameter's own name that started from the parameter as passed and
    whose new value is a tensor with history computed from it (graph nodes are must-facts:
    the parameter's stand-in in both; `cell(x_t, h.detach())` is not). A loop carry
    rebinds the name on every iteration that reaches its statement, so what comes back is
    the argument itself (no iteration) or a value with history built on it."""
    found: dict[str, Carry] = {}
    for part in returned.elements if returned.elements is not None else (returned,):
        for carry in part.carries:
            stand_in = input_nodes.get(carry.key)
            if stand_in is None or carry.loop is None or carry.stmt is None:
                continue
            initial = carry.initial
            if initial is None or stand_in not in initial.graph:
                continue  # detached (or replaced) before the loop
            if carry.value.holds_history() and stand_in in carry.value.graph:
                found.setdefault(carry.key, carry)
    return found


def rebound_state(
    function: ast.FunctionDef | ast.AsyncFunctionDef,
    reads: dict[str, tuple[ast.expr, Carry]],
    heads: Iterable[Value],
) -> dict[str, Carry]:
    """Attributes of `self` a method reads as the previous call left them and rebinds only
    in one loop of its own, to a tensor with history computed from them (`self.h =
    relu(self.h_h(self.h + x_t))` over the time steps in `forward`): what it leaves is the
    previous state unchanged (no iteration) or a value with history built on it. `heads`
    are the values the method's loops start their iterations from (they hold the carries)."""
    found: dict[str, Carry] = {}
    for head in heads:
        for carry in head.carries:
            attr = carry.key[5:] if carry.key.startswith("self.") else None
            read = reads.get(attr) if attr is not None else None
            if attr is None or read is None or attr in found:
                continue
            if carry.loop is None or carry.stmt is None or not carry.value.holds_history():
                continue
            tag = read[1]
            initial = carry.initial
            if initial is not None and tag not in initial.carries:
                continue  # reset or detached before the loop
            if tag in carry.value.all_carries() and _assigned_only_in(function, attr, carry.loop):
                found[attr] = carry
    return found


def _assigned_only_in(
    function: ast.FunctionDef | ast.AsyncFunctionDef, attr: str, loop: ast.AST
) -> bool:
    """Whether every assignment of `self.<attr>` in `function` lies in `loop` (so the
    value it leaves is the loop's or the one it found)."""
    inside = {id(node) for node in ast.walk(loop)}
    for node in ast.walk(function):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, ast.AugAssign | ast.AnnAssign):
            targets = [node.target]
        for target in targets:
            for part in ast.walk(target):
                if (
                    isinstance(part, ast.Attribute)
                    and part.attr == attr
                    and isinstance(part.value, ast.Name)
                    and part.value.id == "self"
                    and id(part) not in inside
                ):
                    return False
    return True


def rebound_write(written: Value | None, rebound: Carry, attr: str, read: Carry) -> Value:
    """What a method rebinding `self.<attr>` in its own loop (`rebound_state`) leaves there,
    seen from a loop calling it: the state it found (`read`) or the loop's value, which
    carries `rebound_tag`; bound where the loop rebinds it when the joins lost it."""
    base = written if written is not None else Value(carries=frozenset({read}))
    origin = base.origin if base.origin is not None else rebound.stmt
    tags = base.carries | {read, rebound_tag(f"self.{attr}", rebound)}
    return evolve(base, carries=tags, origin=origin)


def rebound_tag(name: str, carry: Carry) -> Carry:
    """The `REBOUND_PREFIX` carry a caller's value holds for `name` rebound by `carry`."""
    return Carry(f"{REBOUND_PREFIX}{name}", carry.loop, carry.stmt, carry.value, carry.initial)


def with_rebound(result: Value, summary: FunctionSummary, passed: set[str]) -> Value:
    """A call's result (`instantiate`d from `summary.returned`), with a `REBOUND_PREFIX`
    carry on each part that returns a parameter the call passed and the function rebinds in
    its own loop (`FunctionSummary.rebound`): a caller carrying that argument across its own
    loop then knows the state gains history in there (see GG201)."""
    rebound = {k: c for k, c in summary.rebound.items() if k in passed}
    if not rebound:
        return result
    returned = summary.returned
    if returned.elements is None or result.elements is None:
        return _tagged(result, returned, rebound)
    if len(returned.elements) != len(result.elements):
        return result
    elements = tuple(
        _tagged(part, source, rebound)
        for part, source in zip(result.elements, returned.elements, strict=True)
    )
    return evolve(result, elements=elements)


def _tagged(part: Value, source: Value, rebound: dict[str, Carry]) -> Value:
    tags = frozenset(
        rebound_tag(name, carry) for name, carry in rebound.items() if carry in source.carries
    )
    return evolve(part, carries=part.carries | tags) if tags else part


# The nodes that may change what they name (`assigned_self_attributes`), and those among
# them with a single target. Tuples built once: a union written in the loop is rebuilt for
# every node.
_MAY_CHANGE = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Call)
_ONE_TARGET = (ast.AugAssign, ast.AnnAssign)


@cached_by_node
def assigned_self_attributes(function: ast.FunctionDef | ast.AsyncFunctionDef) -> frozenset[str]:
    """The attributes of `self` that `function` assigns, or may change in place, anywhere in
    its body: `self.x = ...`, `self.x += ...`, `self.x[i] = ...`, `self.x.data = ...`, or an
    in-place method (`self.x.detach_()`, `self.x.mul_(2)`). Cached per function: every call
    of a method of its class asks again."""
    found: set[str] = set()
    # The nodes of `walk(function)`, in another order (the answer is a set), without the
    # context under each Name (a Name changes nothing; a quarter of all nodes are Names).
    stack: list[ast.AST] = [function]
    pop, push = stack.pop, stack.extend
    while stack:
        node = pop()
        if type(node) is ast.Name or type(node) in LEAVES:
            continue
        push(children(node))
        if not isinstance(node, _MAY_CHANGE):  # most nodes: one test instead of three
            continue
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, _ONE_TARGET):
            targets = [node.target]
        elif isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr.endswith("_"):
                targets = [func.value]
        for target in targets:
            for part in walk(target):
                if (
                    isinstance(part, ast.Attribute)
                    and isinstance(part.value, ast.Name)
                    and part.value.id == "self"
                ):
                    found.add(part.attr)
    return frozenset(found)


@cached_by_node
def _self_calls(function: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[str, ...]:
    """The names `function` calls as `self.<name>(...)`, in walk order."""
    return tuple(
        node.func.attr
        for node in walk(function)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "self"
    )


@cached_by_node
def _class_assigned(owner: ast.ClassDef) -> frozenset[str]:
    """The `self` attributes any method of the class assigns or changes in place."""
    return frozenset().union(*map(assigned_self_attributes, class_methods(owner).values()))


def changed_self_attributes(
    method: ast.FunctionDef | ast.AsyncFunctionDef, owner: ast.ClassDef | None
) -> frozenset[str] | None:
    """The `self` attributes a call of `method` may rebind or change in place, through the
    methods of its class `owner` it calls too (`assigned_self_attributes`); None when it
    calls an inherited method (see `_through_own_methods`). Calling an attribute
    (`self.netD(x)`, a module) rebinds nothing of `self`."""
    return _through_own_methods(method, owner, assigned_self_attributes)


def mentioned_self_attributes(
    method: ast.FunctionDef | ast.AsyncFunctionDef, owner: ast.ClassDef | None
) -> frozenset[str] | None:
    """The `self` attributes a call of `method` may read or change, through the methods of
    its class `owner` it calls too: every `self.<attr>` they mention (`self_attributes`);
    None when it calls an inherited method. Calling an attribute (`self.model(x)`) touches
    that attribute only."""
    return _through_own_methods(method, owner, self_attributes)


def _through_own_methods(
    method: ast.FunctionDef | ast.AsyncFunctionDef,
    owner: ast.ClassDef | None,
    of_function: Callable[[ast.FunctionDef | ast.AsyncFunctionDef], frozenset[str]],
) -> frozenset[str] | None:
    """The union of `of_function` over `method` and the methods of its class `owner` it
    calls as `self.<name>(...)`, transitively. None when it calls `self.<name>(...)` for a
    name that is neither a method of the class nor an attribute the class assigns (an
    inherited method: it may do anything)."""
    methods = class_methods(owner) if owner is not None else {}
    attributes = _class_assigned(owner) if owner is not None else frozenset()
    found: set[str] = set()
    seen: set[str] = set()
    todo = [method]
    while todo:
        function = todo.pop()
        found |= of_function(function)
        for name in _self_calls(function):
            if name in methods:
                if name not in seen:
                    seen.add(name)
                    todo.append(methods[name])
            elif name not in attributes:
                return None
    return frozenset(found)


@cached_by_node
def self_attributes(function: ast.FunctionDef | ast.AsyncFunctionDef) -> frozenset[str]:
    """Every `self.<attr>` a method mentions, read or written."""
    return frozenset(
        node.attr
        for node in walk(function)
        if isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "self"
    )


@cached_by_node
def returned_parameter(function: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    """The parameter a function always returns as it was passed (`def load(model, path):
    model.load_state_dict(...); return model`): every `return` of its own code returns that
    name, its last statement is one of them (it cannot fall off the end), and nothing
    rebinds the name. A call returns the very object it passed then. None otherwise."""
    if not function.body or not isinstance(function.body[-1], ast.Return):
        return None
    last = function.body[-1].value
    if not isinstance(last, ast.Name) or last.id not in parameter_names(function):
        return None
    name = last.id
    for node in own_nodes(function.body):
        if isinstance(node, ast.Return) and not (
            isinstance(node.value, ast.Name) and node.value.id == name
        ):
            return None
    return name if name in kept_parameters(function) else None
