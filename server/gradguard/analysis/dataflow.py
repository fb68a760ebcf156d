"""One flow-sensitive pass per function (and the module body) over `ast`.

The interpreter walks statements in order with an environment mapping names and dotted
attribute paths (`h`, `self.hidden`) to abstract `Value`s. Branches are analysed separately
and joined; loops are run once as a probe to learn what one iteration produces, then again
with every name the body (re)defines tagged as a `Carry`, so a value that flows from one
iteration into the next can be recognised where it is used. Nothing here knows any rule.
"""

from __future__ import annotations

import ast
import dataclasses
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from gradguard.analysis import activations, narrowing, shapes
from gradguard.analysis import backpropagated as backprop
from gradguard.analysis import graph as graphs
from gradguard.analysis import parameters as params
from gradguard.analysis import torch_api as api
from gradguard.analysis.call_sites import CallerFacts, CallSites, passed_arguments
from gradguard.analysis.graph import GRAPH_STATE_KEY, SavedNode, Saves
from gradguard.analysis.imports import COMPOUND, Scope, ScopeNode, build_scope, walrus_names
from gradguard.analysis.model import (
    BackwardCall,
    FunctionNode,
    InPlaceOnSaved,
    LoopNode,
    ModuleAnalysis,
    TorchCall,
    UseKind,
    ValueUse,
)
from gradguard.analysis.names import dotted
from gradguard.analysis.node_cache import cached_by_node
from gradguard.analysis.private_modules import private_names
from gradguard.analysis.values import (
    NONE,
    UNKNOWN,
    Carry,
    ClassInfo,
    ConditionalLoss,
    Grad,
    GradOff,
    Kind,
    Loss,
    LossKind,
    ModuleRef,
    Value,
    combine,
    evolve,
    join,
    literal,
)

Env = dict[str, Value]

_CONVERSION_BUILTINS = {"float": Kind.SCALAR, "int": Kind.SCALAR, "bool": Kind.SCALAR}
_PLAIN_BUILTINS = frozenset(
    [
        "len",
        "print",
        "range",
        "isinstance",
        "issubclass",
        "str",
        "repr",
        "enumerate",
        "zip",
        "sorted",
        "min",
        "max",
        "abs",
        "round",
        "hasattr",
        "getattr",
        "setattr",
        "id",
        "type",
        "format",
        "open",
        "iter",
        "next",
        "dict",
        "set",
    ]
)
# An nn.Module known only from how it is used (`model.eval()`), of a class the file does not
# show: it owns parameters, its output's structure is unknown.
MODULE_BY_USE = ModuleRef(kind=api.ModuleKind(has_parameters=True, output=None))
_PLAIN_KINDS = frozenset([Kind.SCALAR, Kind.NONE, Kind.OTHER])
_READ_ONLY_MAPPING_METHODS = frozenset({"get", "keys", "values", "items", "copy"})


@dataclass(frozen=True)
class GradMode:
    """Gradient recording at a program point: on, off (and why), or unknown."""

    enabled: bool | None
    off: GradOff | None = None
    # Unknown, but decided by a test of one name: `torch.set_grad_enabled(phase == "train")`
    # records exactly when `phase == "train"`; a branch that knows `phase == "val"` runs
    # with recording off, switched off at `condition_off`.
    condition: narrowing.Condition | None = None
    condition_off: GradOff | None = None

    def on_branch(self, facts: narrowing.Facts) -> GradMode:
        """This mode on a branch where `facts` hold."""
        if self.condition is None:
            return self
        decided = facts.decides(self.condition)
        if decided is None:
            return self
        return GRAD_ON if decided else GradMode(False, self.condition_off)


GRAD_ON = GradMode(True)
GRAD_UNKNOWN = GradMode(None)


class _Frame:
    """Push a control-flow frame for the duration of a `with` block (cheaper than
    `contextlib.contextmanager`, which this hot path used to pay for)."""

    __slots__ = ("entry", "frames")

    def __init__(self, frames: list[tuple[str, ast.AST]], entry: tuple[str, ast.AST]) -> None:
        self.frames = frames
        self.entry = entry

    def __enter__(self) -> None:
        self.frames.append(self.entry)

    def __exit__(self, *exc: object) -> None:
        self.frames.pop()


@dataclass
class _LoopFrame:
    node: LoopNode
    breaks: list[Env | None] = field(default_factory=list)
    continues: list[Env | None] = field(default_factory=list)


def join_env(a: Env | None, b: Env | None) -> Env | None:
    """Merge two environments; `None` stands for an unreachable path."""
    if a is None:
        return None if b is None else dict(b)
    if b is None:
        return dict(a)
    merged: Env = {}
    for key, left in a.items():
        right = b.get(key)
        if right is left:
            merged[key] = left
        else:
            merged[key] = join(left, right) if right is not None else UNKNOWN
    for key in b.keys() - a.keys():
        merged[key] = UNKNOWN
    return merged


def _merge_branch_graphs(stmt: ast.If, body: Env, orelse: Env, merged: Env) -> None:
    """Values whose history runs through different saving nodes on the two branches of one
    `if` (`out = data_parallel(self.main, x)` or `out = self.main(x)`) still certainly run
    through *the one the branch took*. One node per `if` stands for that choice: every
    value joined here shares it, because one branch was taken for all of them."""
    choice: SavedNode | None = None
    for key, value in merged.items():
        left, right = body.get(key), orelse.get(key)
        if left is None or right is None or left is right or key == GRAPH_STATE_KEY:
            continue  # (what a backward freed is certain only if freed on both branches)
        for field_name in ("graph", "saved_in"):
            a, b = getattr(left, field_name), getattr(right, field_name)
            if a and b and not (a <= b or b <= a):
                if choice is None:
                    choice = SavedNode(stmt, Saves.OTHER)
                joined = getattr(value, field_name) | {choice}
                value = evolve(value, **{field_name: joined})
        merged[key] = value


def join_envs(envs: Iterable[Env | None]) -> Env | None:
    """Merge many environments."""
    result: Env | None = None
    first = True
    for env in envs:
        result = (None if env is None else dict(env)) if first else join_env(result, env)
        first = False
    return result


class ModuleInterpreter:
    """Drives the analysis of one module: scopes, classes, module-level names, functions."""

    def __init__(
        self,
        tree: ast.Module,
        analysis: ModuleAnalysis,
        text: str | None = None,
        *,
        call_sites: CallSites | None = None,
        parameter_facts: dict[int, CallerFacts] | None = None,
    ) -> None:
        self.tree = tree
        self.text = text
        self._backward_lines: list[int] | None = None
        # Calls of the file's functions seen in this pass, and what earlier passes learnt
        # about parameters from them (see `gradguard.analysis.call_sites`).
        self.call_sites = call_sites if call_sites is not None else CallSites()
        self.parameter_facts = parameter_facts or {}
        self.walrus = walrus_names(text) if text is not None else _walrus_targets(tree)
        self.functions: list[FunctionNode] = []
        self.declared_global: set[str] = set()
        self.analysis = analysis
        self.scopes: dict[int, Scope] = {}
        self.parent_scope: dict[int, ScopeNode] = {}
        self.classes: dict[int, ClassInfo] = {}
        self.summaries: dict[int, FunctionSummary] = {}
        self._method_facts: dict[int, tuple[bool, frozenset[str]]] = {}
        self.depth = 0  # how many summaries are being computed inside one another
        self.in_progress: set[int] = set()
        self.globals: Env = {}
        self.collecting_globals = False
        self._pending_attributes: list[ClassInfo] = []
        if text is None:
            self.freezes_parameters = _mentions_freezing(tree)
        else:
            self.freezes_parameters = _FREEZING.search(text) is not None
        # Certain freezing facts only where nothing in the file may unfreeze a parameter.
        self.frozen_facts = self.freezes_parameters and not params.may_unfreeze(
            text if text is not None else ast.unparse(tree)
        )
        self._index_scopes(tree)
        self._class_check: params.ClassCheck | None = None

    @property
    def class_check(self) -> params.ClassCheck:
        """Which local module classes own every parameter their outputs depend on."""
        if self._class_check is None:
            module_scope = self.scope_of(self.tree)

            def resolve(node: ast.ClassDef, expr: ast.expr) -> str | None:
                return self.scope_of(self.parent_scope.get(id(node), self.tree)).resolve(expr)

            def module_name(name: str) -> str:
                if (module_scope.counts or {}).get(name) != 1:
                    return ""
                for stmt in self.tree.body:
                    if isinstance(stmt, ast.Import | ast.ImportFrom) and any(
                        (a.asname or a.name.split(".")[0]) == name for a in stmt.names
                    ):
                        return "import"
                    if isinstance(stmt, ast.ClassDef) and stmt.name == name:
                        return "class"
                value = self.globals.get(name)
                if value is not None and value.kind is Kind.SCALAR:
                    return "constant"
                return ""

            self._class_check = params.ClassCheck(module_name, resolve, self._local_class)
        return self._class_check

    # -- scopes ------------------------------------------------------------------------------

    def _index_scopes(self, tree: ast.Module) -> None:
        """Record each function's and class's enclosing scope, visiting statements only."""
        stack: list[tuple[ast.stmt, ScopeNode]] = [(stmt, tree) for stmt in reversed(tree.body)]
        while stack:
            stmt, owner = stack.pop()
            if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                self.parent_scope[id(stmt)] = owner
                if not isinstance(stmt, ast.ClassDef):
                    self.functions.append(stmt)
                stack.extend((child, stmt) for child in reversed(stmt.body))
                continue
            if isinstance(stmt, ast.Global):
                self.declared_global.update(stmt.names)
            if not isinstance(stmt, COMPOUND):
                continue
            for name in ("finalbody", "orelse", "body"):
                block = getattr(stmt, name, None)
                if block:
                    stack.extend((child, owner) for child in reversed(block))
            for handler in getattr(stmt, "handlers", ()):
                stack.extend((child, owner) for child in reversed(handler.body))
            for case in getattr(stmt, "cases", ()):
                stack.extend((child, owner) for child in reversed(case.body))

    def scope_of(self, node: ScopeNode) -> Scope:
        """The name-resolution scope of a module, function or class node."""
        key = id(node)
        if key not in self.scopes:
            parent_node = self.parent_scope.get(key)
            parent = self.scope_of(parent_node) if parent_node is not None else None
            self.scopes[key] = build_scope(node, parent, extra_bound=self.walrus)
        return self.scopes[key]

    # -- driver ------------------------------------------------------------------------------

    def run(self) -> None:
        """Analyse module-level names, the module body, then every function not yet done."""
        module_scope = self.scope_of(self.tree)
        self.globals = self._module_constants(module_scope)
        body = FunctionInterpreter(self, module_scope, None, record=True)
        body.env = dict(self.globals)
        body.run_block(self.tree.body)
        for node in self.functions:
            self.summary(node)

    def may_call_backward(self, node: FunctionNode | ast.Module) -> bool:
        """Whether `.backward(` may appear in the node's lines (True without the text)."""
        if self.text is None:
            return True
        if self._backward_lines is None:
            self._backward_lines = _lines_holding(self.text, ".backward(")
        if isinstance(node, ast.Module):
            return bool(self._backward_lines)
        end = node.end_lineno or node.lineno
        return any(node.lineno <= line <= end for line in self._backward_lines)

    def _module_constants(self, scope: Scope) -> Env:
        """Module-level names bound exactly once to a class, function, module or constructor
        result; functions of the file may rely on them."""
        counts = {
            name: count
            for name, count in (scope.counts or {}).items()
            if name not in self.declared_global
        }
        scratch = FunctionInterpreter(self, scope, None, record=False)
        self.collecting_globals = True  # function summaries must wait for the globals
        for stmt in self.tree.body:
            if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                if counts.get(stmt.name) == 1:
                    scratch.run_block([stmt])
            elif (
                isinstance(stmt, ast.Assign)
                and len(stmt.targets) == 1
                and isinstance(stmt.targets[0], ast.Name)
                and counts.get(stmt.targets[0].id) == 1
                and isinstance(stmt.value, ast.Call | ast.Constant)
            ):
                scratch.run_block([stmt])
        self.collecting_globals = False
        retouched = _grad_state_changed(self.text)
        constants = {
            name: value
            for name, value in (scratch.env or {}).items()
            if value.kind in (Kind.MODULE, Kind.CLASS, Kind.FUNCTION, Kind.INSTANCE)
            or (value.kind is Kind.SCALAR and value.loss is not None)
            or isinstance(value.const, bool)
            or is_optimizer(value)
            or (_parameter_leaf(value) and retouched is not None and name not in retouched)
        }
        self.globals = constants
        for info in self._pending_attributes:
            self._collect_attributes(info)
        self._pending_attributes.clear()
        return constants

    def class_info(self, node: ast.ClassDef) -> ClassInfo:
        """What the file says about a class: is it an nn.Module, which modules it owns."""
        key = id(node)
        if key in self.classes:
            return self.classes[key]
        scope = self.scope_of(self.parent_scope.get(key, self.tree))
        is_module = False
        for base in node.bases:
            qualified = scope.resolve(base)
            if qualified in api.MODULE_BASES:
                is_module = True
            elif isinstance(base, ast.Name):
                local = self._local_class(base.id)
                if local is not None and local is not node and self.class_info(local).is_module:
                    is_module = True
        info = ClassInfo(node=node, is_module=is_module)
        self.classes[key] = info
        if self.collecting_globals:
            # `self.model = Net()` needs the module-level names being collected right now.
            self._pending_attributes.append(info)
        else:
            self._collect_attributes(info)
        return info

    def _local_class(self, name: str) -> ast.ClassDef | None:
        for stmt in self.tree.body:
            if isinstance(stmt, ast.ClassDef) and stmt.name == name:
                return stmt
        return None

    def _collect_attributes(self, info: ClassInfo) -> None:
        """`self.x = nn.Linear(...)` in `__init__`, for attributes assigned nowhere else; and
        plain dicts and lists of modules (`self.models = {"encoder": ...}`, or filled key by
        key in `__init__`) that no code of the file changes afterwards."""
        stores: dict[str, int] = {}
        for method in info.node.body:
            if isinstance(method, ast.FunctionDef | ast.AsyncFunctionDef):
                for target in _assignment_targets(method.body):
                    if isinstance(target, ast.Attribute) and dotted(target.value) == "self":
                        stores[target.attr] = stores.get(target.attr, 0) + 1
        init = next(
            (s for s in info.node.body if isinstance(s, ast.FunctionDef) and s.name == "__init__"),
            None,
        )
        if init is None:
            return
        scratch = FunctionInterpreter(self, self.scope_of(init), init, record=False)
        changed = _containers_changed(self.tree, init)
        containers: dict[str, Value] = {}
        for stmt in init.body:
            if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
                # A helper building layers (`def block(...): ... return layers`), for
                # `self.model = nn.Sequential(*block(...))` below.
                scratch.run_stmt(stmt)
                continue
            if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1):
                continue
            target = stmt.targets[0]
            if (
                isinstance(target, ast.Subscript)
                and isinstance(target.value, ast.Attribute)
                and dotted(target.value.value) == "self"
                and target.value.attr in containers
            ):
                # `self.models["encoder"] = Encoder()`, key by key.
                attr = target.value.attr
                item = _with_field(containers[attr], target.slice, scratch.eval(stmt.value))
                containers[attr] = item if item is not None else UNKNOWN
                continue
            if (
                isinstance(target, ast.Attribute)
                and isinstance(target.value, ast.Name)
                and target.value.id == "self"
                and stores.get(target.attr) == 1
            ):
                value = scratch.eval(stmt.value)
                if value.kind is Kind.MODULE or (value.kind is Kind.TENSOR and value.leaf):
                    info.attributes[target.attr] = value
                elif value.kind in (Kind.MAPPING, Kind.SEQUENCE) and target.attr not in changed:
                    containers[target.attr] = value
        for attr, value in containers.items():
            if value.elements and all(e.kind is Kind.MODULE for e in value.elements):
                info.attributes[attr] = value

    def method_facts(self, method: FunctionNode) -> tuple[bool, frozenset[str]]:
        """Whether a method calls methods of `self`, and the `self` attributes it mentions."""
        key = id(method)
        if key not in self._method_facts:
            attributes = frozenset(_self_attributes(method))
            self._method_facts[key] = (_calls_on_self(method), attributes)
        return self._method_facts[key]

    def _changed_in_returned_graph(
        self, node: FunctionNode, interpreter: FunctionInterpreter, returned: Value
    ) -> tuple[InPlaceOnSaved, ...]:
        """In-place changes, inside the function, of tensors saved by graph nodes that what it
        returns certainly runs through, still changed on every way out: any backward through
        the result trips over them."""
        if not returned.graph:
            return ()
        state = join_envs([*interpreter.exits, interpreter.env])
        marker = state.get(GRAPH_STATE_KEY) if state is not None else None
        modified = marker.saved_in if marker is not None else frozenset()
        reaching = modified & returned.graph
        if not reaching:
            return ()
        return tuple(
            change
            for change in self.analysis.inplace_on_saved
            if change.function is node and change.saved_by & reaching
        )

    def summary(self, node: FunctionNode) -> Value:
        """Analyse a function once (recording its facts) and return what it returns."""
        return self.summary_of(node).returned

    def summary_of(self, node: FunctionNode) -> FunctionSummary:
        """What a function returns and how it reads and writes `self` state."""
        key = id(node)
        if key in self.summaries:
            return self.summaries[key]
        if key in self.in_progress or self.collecting_globals:
            return FunctionSummary(UNKNOWN)
        if self.depth >= _SUMMARY_DEPTH:
            # Deep chains of helper calls cost time and rarely decide anything: unknown is
            # always a safe answer (not cached: the function may still be analysed itself).
            return FunctionSummary(UNKNOWN)
        self.in_progress.add(key)
        self.depth += 1
        try:
            interpreter = FunctionInterpreter(self, self.scope_of(node), node, record=True)
            interpreter.enter_function(node)
            interpreter.run_block(node.body)
            returned = join(interpreter.returned, NONE if interpreter.env is not None else None)
            if interpreter.returned is None and interpreter.env is None:
                returned = UNKNOWN
            summary = FunctionSummary(
                returned,
                interpreter.state_reads,
                interpreter.state_writes(),
                interpreter.input_nodes,
                interpreter.param_tags,
                self._changed_in_returned_graph(node, interpreter, returned),
            )
        finally:
            self.in_progress.discard(key)
            self.depth -= 1
        self.summaries[key] = summary
        return summary


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


# How deep summaries of called functions nest before the answer is simply "unknown".
_SUMMARY_DEPTH = 3


def _lines_holding(text: str, needle: str) -> list[int]:
    """1-based numbers of the lines holding `needle` (a plain substring)."""
    lines: list[int] = []
    at = text.find(needle)
    while at >= 0:
        lines.append(text.count("\n", 0, at) + 1)
        at = text.find(needle, at + len(needle))
    return lines


# `x.requires_grad = <anything but True>` or `x.requires_grad_(<anything but True>)`.
_FREEZING = re.compile(r"\.requires_grad\s*=(?!=)(?!\s*True\b)|requires_grad_\((?!\s*\)|\s*True\b)")


def _mentions_freezing(tree: ast.Module) -> bool:
    """True when the file may freeze parameters (`requires_grad = False`,
    `requires_grad_(False)`): a module call's output is then tracked only if its input is."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Attribute) and t.attr == "requires_grad" for t in node.targets
        ):
            if not _is_true(node.value):
                return True
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "requires_grad_"
            and node.args
            and not _is_true(node.args[0])
        ):
            return True
    return False


class FunctionInterpreter:
    """Abstract interpretation of one function body (or the module body)."""

    def __init__(
        self,
        module: ModuleInterpreter,
        scope: Scope,
        function: FunctionNode | None,
        *,
        record: bool,
    ) -> None:
        self.module = module
        self.scope = scope
        self.function = function
        self.record = record
        self.env: Env | None = {}
        self.mode = GRAD_ON
        self.returned: Value | None = None
        self.frames: list[tuple[str, ast.AST]] = []  # ("loop"|"cond", node), innermost last
        self.loops: list[_LoopFrame] = []
        self.stmt: ast.stmt | None = None
        # The value each carried name has at the top of an iteration, by id(carry): a read of
        # exactly that value reads the previous iteration's state.
        self.heads: dict[int, Value] = {}
        # `self.<attr>` read before this function assigned it: the state a previous call left.
        self.state_reads: dict[str, tuple[ast.expr, Carry]] = {}
        self.attribute_roots: set[str] = set()
        self.exits: list[Env | None] = []
        self._backpropagated: frozenset[str] | None = None
        self.input_nodes: dict[str, SavedNode] = {}
        self.param_tags: dict[str, Carry] = {}
        self._private: frozenset[str] | None = None

    # -- environment -------------------------------------------------------------------------

    def lookup(self, key: str, node: ast.expr | None = None) -> Value:
        """The value bound to `key`; records reads of loop-carried values."""
        if self.env is None:
            return UNKNOWN
        value = self.env.get(key)
        if value is None:
            if "." not in key and key not in self.env and not self._bound_here(key):
                return self.module.globals.get(key, UNKNOWN)
            return UNKNOWN
        if self.record and node is not None and value.carries:
            for carry in value.carries:
                if carry.key == key and self.heads.get(id(carry)) is value:
                    self.module.analysis.carry_reads.setdefault(carry, []).append(node)
        return value

    def state_writes(self) -> dict[str, Value]:
        """`self.<attr>` values this function leaves behind, on every way out of it."""
        exits = join_envs([*self.exits, self.env])
        if exits is None or self.function is None:
            return {}
        return {
            key[5:]: value
            for key, value in exits.items()
            if key.startswith("self.") and key.count(".") == 1 and value.origin is not None
        }

    def _bound_here(self, name: str) -> bool:
        return self.function is not None and self.scope.is_bound_locally(name)

    def bind_key(self, key: str, value: Value) -> None:
        """Bind `key`, forgetting what was known about attributes below it."""
        if self.env is None:
            return
        self._forget_below(key)
        self._note_attribute(key)
        self.env[key] = value.with_origin(self.stmt)

    def _note_attribute(self, key: str) -> None:
        """Remember the roots of a dotted key (`self`, `self.model` for `self.model.h`)."""
        parts = key.split(".")
        for end in range(1, len(parts)):
            self.attribute_roots.add(".".join(parts[:end]))

    def bind(self, target: ast.expr, value: Value) -> None:
        """Assign `value` to an assignment target (names, attributes, tuples, subscripts)."""
        if value.kind is Kind.MODULE:
            self._note_replacement(target, value)
        if isinstance(target, ast.Attribute | ast.Subscript) and value.kind not in _PLAIN_KINDS:
            # A module, tensor or unknown stored into some object may give a frozen module
            # a trainable submodule or parameter.
            self._unfreeze(None)
        if isinstance(target, ast.Name):
            self.bind_key(target.id, value)
        elif isinstance(target, ast.Attribute):
            key = dotted(target)
            base_key = dotted(target.value)
            if base_key is not None and self.env is not None and base_key in self.env:
                base = self.env[base_key]
                if base.kind is Kind.TENSOR and self.stmt is not None:
                    self.record_use("setattr", target.attr, self.stmt, target.value, base)
                if base.kind is Kind.TENSOR and target.attr in ("requires_grad", "data"):
                    self.env[base_key] = evolve(UNKNOWN, kind=Kind.TENSOR, origin=base.origin)
            if key is not None:
                self.bind_key(key, value)
            else:
                self.eval(target.value)
        elif isinstance(target, ast.Tuple | ast.List):
            self._bind_sequence(target.elts, value)
        elif isinstance(target, ast.Subscript):
            base_key = dotted(target.value)
            self._subscript_store(target, self.stmt)
            if base_key is not None and self.env is not None and base_key in self.env:
                base = self.env[base_key]
                carries = base.carries | value.all_carries()
                if base.has_history and self.mode.enabled is True:
                    # Writing into a tensor with history keeps its history (CopySlices).
                    mutated = Value(Grad.TRACKED, Kind.TENSOR, carries=carries, graph=base.graph)
                elif (
                    base.kind is Kind.TENSOR
                    and not (base.leaf and base.grad is not Grad.UNTRACKED)
                    and value.kind is Kind.TENSOR
                    and value.has_history
                    and self.mode.enabled is True
                ):
                    # `values[step] = value` into a plain buffer: the buffer now has the
                    # stored value's history (CopySlices) and keeps its graph alive.
                    graph = base.graph | value.graph
                    mutated = Value(Grad.TRACKED, Kind.TENSOR, carries=carries, graph=graph)
                elif (keyed := _with_field(base, target.slice, value)) is not None:
                    # `losses["total"] = loss` into a dict whose keys are known.
                    mutated = keyed
                else:
                    mutated = evolve(UNKNOWN, kind=base.kind, carries=carries)
                self.env[base_key] = mutated
        elif isinstance(target, ast.Starred):
            self.bind(target.value, UNKNOWN)

    def _subscript_store(self, target: ast.Subscript, stmt: ast.AST | None) -> None:
        """`x[i] = v` / `x[i] += v` writes into `x` in place."""
        self.eval(target.slice)
        base_key = dotted(target.value)
        if base_key is None or self.env is None:
            return
        if base_key in self.env:
            base = self.env[base_key]
        elif isinstance(target.value, ast.Attribute):
            base = self.eval(target.value)  # `conv.weight[...] = w`: the layer's weight
        else:
            return
        if base.kind is Kind.TENSOR and stmt is not None:
            self.record_use("inplace", "setitem", stmt, target.value, base)
            self.modified_in_place(stmt, target.value, base)
        self.env[base_key] = activations.module_cleared(activations.cleared(base))

    def _bind_sequence(self, targets: list[ast.expr], value: Value) -> None:
        has_star = any(isinstance(t, ast.Starred) for t in targets)
        if (
            value.elements is not None
            and value.kind is not Kind.MAPPING  # unpacking a dict gives its keys
            and len(value.elements) == len(targets)
            and not has_star
        ):
            for target, element in zip(targets, value.elements, strict=True):
                self.bind(target, element)
            return
        if value.kind is Kind.TENSOR:
            element = evolve(value, elements=None, leaf=False, shape=shapes.UNKNOWN_SHAPE)
        else:
            element = evolve(UNKNOWN, carries=value.all_carries())
        for target in targets:
            self.bind(target, element)

    # -- grad mode ---------------------------------------------------------------------------

    def grad_mode_of(self, expr: ast.expr, owner: ast.AST) -> GradMode | None:
        """The grad mode a context manager or decorator expression switches to, if any."""
        call = expr if isinstance(expr, ast.Call) else None
        qualified = self.scope.resolve(call.func if call else expr)
        if qualified is None:
            return None
        if qualified in api.NO_GRAD and call is not None:
            return GradMode(False, GradOff(expr, "torch.no_grad()", owner))
        if (
            qualified in api.NO_GRAD
            and call is None
            and isinstance(owner, ast.FunctionDef | ast.AsyncFunctionDef)
        ):
            return GradMode(False, GradOff(expr, "torch.no_grad", owner))
        if qualified in api.INFERENCE_MODE:
            flag = self._flag_argument(call, "mode") if call else True
            if flag is False:
                return GRAD_ON if self.mode.enabled else self.mode
            if flag is None:
                return GRAD_UNKNOWN
            return GradMode(False, GradOff(expr, "torch.inference_mode()", owner, inference=True))
        if qualified in api.ENABLE_GRAD:
            return GRAD_ON
        if qualified in api.SET_GRAD_ENABLED and call is not None:
            flag = self._flag_argument(call, "mode")
            if flag is None:
                test = call.args[0] if call.args and not call.keywords else None
                condition = narrowing.condition_of(test) if test is not None else None
                if condition is None:
                    return GRAD_UNKNOWN
                text = ast.unparse(test)  # type: ignore[arg-type]
                described = f"torch.set_grad_enabled({text}) with `{text}` false"
                off = GradOff(expr, described, owner, conditional=True)
                return GradMode(None, None, condition, off)
            if flag:
                return GRAD_ON
            return GradMode(False, GradOff(expr, "torch.set_grad_enabled(False)", owner))
        return None

    def _flag_argument(self, call: ast.Call | None, keyword: str) -> bool | None:
        if call is None:
            return None
        arg: ast.expr | None = call.args[0] if call.args else None
        for kw in call.keywords:
            if kw.arg == keyword:
                arg = kw.value
        if arg is None:
            return True
        value = self.eval(arg)
        return value.const if isinstance(value.const, bool) else None

    # -- statements --------------------------------------------------------------------------

    def enter_function(self, node: FunctionNode) -> None:
        """Bind parameters and apply grad-mode decorators before running the body."""
        assert self.env is not None
        args = node.args
        params = [*args.posonlyargs, *args.args, *args.kwonlyargs]
        for extra in (args.vararg, args.kwarg):
            if extra is not None:
                params.append(extra)
        owner = self.module.parent_scope.get(id(node))
        is_method = isinstance(owner, ast.ClassDef) and not any(
            isinstance(d, ast.Name) and d.id == "staticmethod" for d in node.decorator_list
        )
        for index, param in enumerate(params):
            value = self._annotated(param.annotation)
            if index == 0 and is_method and isinstance(owner, ast.ClassDef):
                info = self.module.class_info(owner)
                is_classmethod = any(
                    isinstance(d, ast.Name) and d.id == "classmethod" for d in node.decorator_list
                )
                if not is_classmethod:
                    kind = Kind.MODULE if info.is_module else Kind.INSTANCE
                    value = Value(kind=kind, module=ModuleRef(local=info), instance_of=info)
            if (
                is_method
                and node.name == "forward"
                and index > 0
                and value is UNKNOWN
                and param is not args.vararg
                and param is not args.kwarg
            ):
                stand_in = SavedNode(param, Saves.OTHER)
                self.input_nodes[param.arg] = stand_in
                value = Value(graph=frozenset({stand_in}))
            self.env[param.arg] = value
        callers = self.module.parameter_facts.get(id(node))
        if callers is not None:
            for name, known in callers.parameters.items():
                if known.kind is not Kind.UNKNOWN or known.grad is not Grad.UNKNOWN:
                    self.env[name] = known
            # The grad mode every call runs it under (a decorator below still wins).
            if callers.grad_enabled is False and callers.grad_off is not None:
                self.mode = GradMode(False, callers.grad_off)
            elif callers.grad_enabled is not True:
                self.mode = GRAD_UNKNOWN
        if node.name != "forward":
            # Tag each parameter, so a caller can tell whether what it passes reaches a
            # backward() in here (see `_params_carried_across_calls`).
            first = 1 if is_method else 0
            for param in [*args.posonlyargs, *args.args, *args.kwonlyargs][first:]:
                tag = Carry(f"%param:{param.arg}", None, None, UNKNOWN, None)
                self.param_tags[param.arg] = tag
                bound = self.env.get(param.arg, UNKNOWN)
                self.env[param.arg] = evolve(bound, carries=bound.carries | {tag})
        for decorator in node.decorator_list:
            mode = self.grad_mode_of(decorator, node)
            if mode is not None:
                self.mode = mode

    def _annotated(self, annotation: ast.expr | None) -> Value:
        if annotation is None:
            return UNKNOWN
        qualified = self.scope.resolve(annotation)
        if qualified in ("torch.Tensor", "torch.FloatTensor"):
            return Value(kind=Kind.TENSOR)
        if qualified in api.MODULE_BASES:
            return Value(kind=Kind.MODULE, module=ModuleRef())
        return UNKNOWN

    def run_block(self, body: list[ast.stmt]) -> None:
        """Interpret statements in order; stops at unreachable code."""
        saved_mode = self.mode
        for stmt in body:
            if self.env is None:
                break
            self.run_stmt(stmt)
        # set_grad_enabled(...) statements do not leak out of a function body.
        if self.function is not None and body is self.function.body:
            self.mode = saved_mode

    def run_stmt(self, stmt: ast.stmt) -> None:
        """Interpret one statement."""
        previous, self.stmt = self.stmt, stmt
        try:
            handler = _STMT_HANDLERS.get(type(stmt))
            if handler is not None:
                handler(self, stmt)
            else:
                for child in ast.iter_child_nodes(stmt):
                    if isinstance(child, ast.expr):
                        self.eval(child)
        finally:
            self.stmt = previous

    def _stmt_Expr(self, stmt: ast.Expr) -> None:
        value = stmt.value
        if isinstance(value, ast.Call):
            qualified = self.scope.resolve(value.func)
            if qualified in api.SET_GRAD_ENABLED:
                mode = self.grad_mode_of(value, stmt)
                if mode is not None:
                    self.mode = mode
                return
        self.eval(value)

    def _stmt_Assign(self, stmt: ast.Assign) -> None:
        value = self.eval(stmt.value)
        if (
            len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name)
            and value.grad is Grad.UNKNOWN
            and value.unless is None
            and value.kind in (Kind.UNKNOWN, Kind.TENSOR)
            and stmt.targets[0].id in self.backpropagated
        ):
            # `loss = criterion(model(x), y)` with unknown parts, then `loss.backward()`:
            # whenever that backward runs, `loss` is a tensor with history.
            value = evolve(value, grad=Grad.TRACKED, kind=Kind.TENSOR)
        for target in stmt.targets:
            self.bind(target, value)
        if len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            self._backpropagated_attributes(stmt.targets[0].id, value)

    def _backpropagated_attributes(self, name: str, value: Value) -> None:
        """`output = model(**batch)` then `output.loss.backward()`: `output.loss` is a tensor
        with history from this binding on (a model output's loss, read as an attribute)."""
        if value.kind is not Kind.UNKNOWN or self.env is None:
            return
        prefix = f"{name}."
        for key in self.backpropagated:
            if key.startswith(prefix) and "." not in key[len(prefix) :]:
                self.bind_key(key, Value(grad=Grad.TRACKED, kind=Kind.TENSOR))

    @property
    def backpropagated(self) -> frozenset[str]:
        """Names bound exactly once in this function, by a plain assignment, on which
        `.backward()` is called (see `backprop.backpropagated_names`)."""
        if self._backpropagated is None:
            self._backpropagated = frozenset()
            node = self.function if self.function is not None else self.module.tree
            if self.module.may_call_backward(node):
                self._backpropagated = backprop.backpropagated_names(node)
        return self._backpropagated

    def _stmt_AnnAssign(self, stmt: ast.AnnAssign) -> None:
        if stmt.value is not None:
            self.bind(stmt.target, self.eval(stmt.value))

    def _stmt_AugAssign(self, stmt: ast.AugAssign) -> None:
        current = self.eval(stmt.target) if not isinstance(stmt.target, ast.Subscript) else UNKNOWN
        value = self.eval(stmt.value)
        result = self.arithmetic(stmt, [current, value])
        if isinstance(stmt.op, ast.Add) and value.kind is Kind.TENSOR:
            self.record_use("accumulate", "Add", stmt, stmt.target, current, value)
        if current.kind is Kind.TENSOR:
            operator = type(stmt.op).__name__
            self.record_use("inplace", operator, stmt, stmt.target, current)
            self.modified_in_place(stmt, stmt.target, current)
            if self.mode.enabled is False and not isinstance(stmt.target, ast.Subscript):
                # `w -= lr * w.grad` under no_grad changes the data of the same tensor:
                # it keeps its requires_grad, leaf-ness and creation (as `w.add_()` does).
                return
            # `x += y` on a tensor changes x in place: it stays the same (leaf) tensor.
            result = evolve(result, leaf=current.leaf)
        elif isinstance(stmt.target, ast.Subscript):
            self._subscript_store(stmt.target, stmt)
        self.bind(stmt.target, result)

    def _stmt_Return(self, stmt: ast.Return) -> None:
        value = self.eval(stmt.value) if stmt.value is not None else NONE
        self.exits.append(self.env)
        self.returned = value if self.returned is None else join(self.returned, value)
        self.env = None

    def _stmt_Raise(self, stmt: ast.Raise) -> None:
        if stmt.exc is not None:
            self.eval(stmt.exc)
        self.env = None

    def _stmt_Break(self, stmt: ast.Break) -> None:
        if self.loops:
            self.loops[-1].breaks.append(self.env)
        self.env = None

    def _stmt_Continue(self, stmt: ast.Continue) -> None:
        if self.loops:
            self.loops[-1].continues.append(self.env)
        self.env = None

    def _stmt_Delete(self, stmt: ast.Delete) -> None:
        for target in stmt.targets:
            key = dotted(target)
            if key is not None and self.env is not None:
                self.env.pop(key, None)

    def _stmt_Global(self, stmt: ast.Global) -> None:
        if self.env is not None:
            for name in stmt.names:
                self.env[name] = UNKNOWN

    _stmt_Nonlocal = _stmt_Global

    def _stmt_Import(self, stmt: ast.Import | ast.ImportFrom) -> None:
        for alias in stmt.names:
            name = alias.asname or alias.name.split(".")[0]
            if name != "*":
                self.bind_key(name, Value(kind=Kind.OTHER))

    _stmt_ImportFrom = _stmt_Import

    def _stmt_FunctionDef(self, stmt: FunctionNode) -> None:
        for decorator in stmt.decorator_list:
            if self.grad_mode_of(decorator, stmt) is None:
                self.eval(decorator)
        self.bind_key(stmt.name, Value(kind=Kind.FUNCTION, function=stmt))

    _stmt_AsyncFunctionDef = _stmt_FunctionDef

    def _stmt_ClassDef(self, stmt: ast.ClassDef) -> None:
        info = self.module.class_info(stmt)
        self.bind_key(stmt.name, Value(kind=Kind.CLASS, instance_of=info))

    def _stmt_If(self, stmt: ast.If) -> None:
        self.eval(stmt.test)
        start, start_mode = self.env, self.mode
        when_true, when_false = narrowing.of_test(stmt.test)
        with self._frame("cond", stmt):
            self.env = self._narrowed(start, when_true)
            self.mode = body_start = start_mode.on_branch(when_true)
            self.run_block(stmt.body)
            after_body, body_mode = self.env, self.mode
            self.env = self._narrowed(start, when_false)
            self.mode = else_start = start_mode.on_branch(when_false)
            self.run_block(stmt.orelse)
        after_else = self.env
        self.env = join_env(after_body, after_else)
        if after_body is not None and after_else is not None and self.env is not None:
            _merge_branch_graphs(stmt, after_body, after_else, self.env)
        if body_mode == body_start and self.mode == else_start:
            self.mode = start_mode  # neither branch switched modes itself
        elif self.mode != body_mode:
            self.mode = GRAD_UNKNOWN

    def _narrowed(self, env: Env | None, facts: narrowing.Facts) -> Env | None:
        """A copy of `env` on a branch where the test's `facts` hold (`h is None` there)."""
        if env is None:
            return None
        branch = dict(env)
        for key in facts.none:
            if key in branch:
                branch[key] = NONE
        if facts.equal or facts.unequal or facts.truthy or facts.falsy:
            for key, value in env.items():
                unless = value.unless
                if unless is not None and facts.decides(unless.condition) is False:
                    branch[key] = Value(
                        Grad.UNTRACKED, value.kind, unless.loss, origin=value.origin
                    )
        return branch

    def _stmt_With(self, stmt: ast.With | ast.AsyncWith) -> None:
        saved = self.mode
        for item in stmt.items:
            mode = self.grad_mode_of(item.context_expr, stmt)
            if mode is not None:
                if mode.off is not None and self.mode.enabled is False and self.mode.off:
                    mode = GradMode(False, dataclasses.replace(mode.off, outer=self.mode.off))
                self.mode = mode
            else:
                self.eval(item.context_expr)
            if item.optional_vars is not None:
                self.bind(item.optional_vars, UNKNOWN)
        self.run_block(stmt.body)
        self.mode = saved

    _stmt_AsyncWith = _stmt_With

    def _stmt_Try(self, stmt: ast.Try) -> None:
        start = self.env
        self.run_block(stmt.body)
        after_body = self.env
        # An exception may leave the body at any point: handlers see either state.
        handler_start = join_env(start, after_body)
        outcomes: list[Env | None] = []
        with self._frame("cond", stmt):
            for handler in stmt.handlers:
                self.env = dict(handler_start) if handler_start is not None else None
                if handler.type is not None:
                    self.eval(handler.type)
                if handler.name:
                    self.bind_key(handler.name, UNKNOWN)
                self.run_block(handler.body)
                outcomes.append(self.env)
        self.env = after_body
        self.run_block(stmt.orelse)
        outcomes.insert(0, self.env)
        self.env = join_envs(outcomes)
        if stmt.finalbody:
            if self.env is None:
                self.env = dict(handler_start) if handler_start is not None else None
                self.run_block(stmt.finalbody)
                self.env = None
            else:
                self.run_block(stmt.finalbody)

    _stmt_TryStar = _stmt_Try

    def _stmt_Match(self, stmt: ast.Match) -> None:
        self.eval(stmt.subject)
        start = self.env
        outcomes: list[Env | None] = [start]
        with self._frame("cond", stmt):
            for case in stmt.cases:
                self.env = dict(start) if start is not None else None
                for node in ast.walk(case.pattern):
                    name = getattr(node, "name", None)
                    if isinstance(name, str):
                        self.bind_key(name, UNKNOWN)
                if case.guard is not None:
                    self.eval(case.guard)
                self.run_block(case.body)
                outcomes.append(self.env)
        self.env = join_envs(outcomes)

    def _stmt_For(self, stmt: ast.For | ast.AsyncFor) -> None:
        iterable = self.eval(stmt.iter)
        element = UNKNOWN
        if iterable.kind is Kind.TENSOR:
            element = evolve(iterable, leaf=False, elements=None, shape=shapes.UNKNOWN_SHAPE)
        elif self._iterates_parameters(stmt.iter):
            element = Value(grad=Grad.TRACKED, kind=Kind.TENSOR, leaf=True)
        self._loop(stmt, lambda: self.bind(stmt.target, element))
        self._elements_changed_in_place(stmt)
        if self.module.frozen_facts:
            owner = params.freeze_loop_owner(stmt)
            if owner is not None:
                method = "named_parameters" if isinstance(stmt.target, ast.Tuple) else "parameters"
                self._freeze(owner, stmt, f"a loop over `{ast.unparse(owner)}.{method}()`")

    _stmt_AsyncFor = _stmt_For

    def _elements_changed_in_place(self, stmt: ast.For | ast.AsyncFor) -> None:
        """`for h in hidden: h.detach_()` changes the elements of `hidden` themselves: what
        they carried from an earlier iteration may be cut, so it is no longer certain."""
        container = dotted(stmt.iter)
        if container is None or self.env is None or not isinstance(stmt.target, ast.Name):
            return
        value = self.env.get(container)
        if value is None or not value.all_carries():
            return
        name = stmt.target.id
        for node in ast.walk(stmt):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id == name
                and node.func.attr.endswith("_")
                and not node.func.attr.startswith("_")
            ):
                self.env[container] = value.without_carries()
                return

    # -- parameters: frozen modules, stale optimizers -----------------------------------------

    def _freeze(self, owner: ast.expr, node: ast.AST, description: str) -> Value | None:
        """Every parameter of the module `owner` was just frozen: remember where, if the
        module is one whose outputs then certainly have no history."""
        key = dotted(owner)
        if key is None or self.env is None or self.stmt is None:
            return None
        if not self.module.frozen_facts:
            return None
        value = self.env.get(key)
        ref = value.module if value is not None else None
        if value is None or value.kind is not Kind.MODULE or ref is None:
            return None
        if not ref.self_contained or not params.owns_parameters(ref):
            return None
        frozen = evolve(value, frozen=params.Freeze(node, self.stmt, key, description))
        self.env[key] = frozen
        return frozen

    def _unfreeze(self, ref: ModuleRef | None) -> None:
        """Forget frozen facts: of every module sharing `ref`, or of all modules (None)."""
        if self.env is None or not self.module.frozen_facts:
            return
        for key, value in list(self.env.items()):
            if value.frozen is not None and (ref is None or value.module is ref):
                self.env[key] = evolve(value, frozen=None)

    def _note_replacement(self, target: ast.expr, value: Value) -> None:
        """A freshly built module with parameters bound to `target`: optimizers built before
        on the module it replaces (or joins) do not hold its parameters."""
        ref = value.module
        if (
            self.env is None
            or self.stmt is None
            or value.kind is not Kind.MODULE
            or ref is None
            or not ref.self_contained
            or not params.owns_parameters(ref)
        ):
            return
        key = dotted(target)
        base = dotted(target.value) if isinstance(target, ast.Attribute | ast.Subscript) else None
        for name, optimizer in list(self.env.items()):
            built = optimizer.optimizes
            if built is None or built.stale is not None:
                continue
            owner = self.env.get(built.key)
            same = owner is not None and owner.module is built.module
            if isinstance(target, ast.Name) and key == built.key:
                if ref is built.module:
                    continue
                replacement = params.Replacement(self.stmt, target, ref, rebound=True)
            elif base == built.key and same:
                attr = target.attr if isinstance(target, ast.Attribute) else ""
                runs = params.runs_attribute(built.module, attr)
                if isinstance(target, ast.Subscript):
                    runs = built.module.qualified in api.SEQUENTIAL
                if not runs:
                    continue
                replacement = params.Replacement(self.stmt, target, built.module, rebound=False)
            else:
                continue
            stale = dataclasses.replace(built, stale=replacement)
            self.env[name] = evolve(optimizer, optimizes=stale)

    def _iterates_parameters(self, expr: ast.expr) -> bool:
        """`for p in model.parameters()` over a known module: leaves that require grad
        (unless something may have frozen them, see `may_be_frozen`)."""
        if not isinstance(expr, ast.Call) or expr.args:
            return False
        func = expr.func
        if not isinstance(func, ast.Attribute) or func.attr != "parameters":
            return False
        key = dotted(func.value)
        owner = self.lookup(key) if key is not None else UNKNOWN
        if owner.kind is not Kind.MODULE or owner.module is None:
            return False
        return not self.may_be_frozen(key, owner)

    def may_be_frozen(self, key: str | None, value: Value) -> bool:
        """Whether some code may have turned off `requires_grad` on parameters of the module
        `value` held at `key`: only when the file freezes something at all, and not when the
        module was built right here (a torch.nn layer, a Sequential of them, a qualifying
        local class) and never leaves this function (see `analysis.private_modules`)."""
        if not self.module.freezes_parameters:
            return False
        ref = value.module
        if key is None or self.function is None or ref is None or not ref.self_contained:
            return True
        if self._private is None:
            self._private = private_names(self.function, self.scope.resolve)
        return key.split(".", 1)[0] not in self._private or "." in key

    def _stmt_While(self, stmt: ast.While) -> None:
        self._loop(stmt, lambda: self.eval(stmt.test))

    def _loop(self, stmt: LoopNode, at_head: object) -> None:
        """Probe one iteration, then run it again with loop-carried names tagged."""
        head_action = at_head if callable(at_head) else (lambda: None)
        before = self.env
        if before is None:
            return
        infinite = isinstance(stmt, ast.While) and _is_true(stmt.test)
        record = self.record
        self.record = False
        try:
            probe_end, _ = self._iteration(stmt, dict(before), head_action)
        finally:
            self.record = record
        head = dict(before)
        if probe_end is not None:
            for key, value in probe_end.items():
                previous = before.get(key)
                if previous is value:
                    continue
                if key == GRAPH_STATE_KEY:
                    # What holds at the top of every iteration: what held before the loop.
                    if previous is not None:
                        head[key] = join(previous, value)
                    continue
                if previous is not None and value.origin is previous.origin:
                    continue  # annotated in the loop (e.g. retain_grad), not re-bound
                carry = Carry(key, stmt, value.origin, value, previous)
                merged = join(previous, value) if previous is not None else evolve(value)
                head[key] = evolve(merged, carries=merged.carries | {carry})
                self.heads[id(carry)] = head[key]
        mode = self.mode
        end, breaks = self._iteration(stmt, head, head_action)
        if self.mode != mode:
            self.mode = GRAD_UNKNOWN
        exits: list[Env | None] = [end, *breaks]
        if not infinite:
            exits.insert(0, before)
        self.env = join_envs(exits)
        if stmt.orelse and not infinite:
            self.run_block(stmt.orelse)

    def _iteration(
        self, stmt: LoopNode, head: Env, head_action: object
    ) -> tuple[Env | None, list[Env | None]]:
        self.env = head
        frame = _LoopFrame(stmt)
        self.loops.append(frame)
        try:
            with self._frame("loop", stmt):
                if callable(head_action):
                    head_action()
                self.run_block(stmt.body)
        finally:
            self.loops.pop()
        end = join_envs([self.env, *frame.continues])
        return end, frame.breaks

    def _frame(self, kind: str, node: ast.AST) -> _Frame:
        return _Frame(self.frames, (kind, node))

    def every_iteration(self) -> frozenset[LoopNode]:
        """Loops whose every iteration reaches the current point."""
        loops: set[LoopNode] = set()
        for kind, node in reversed(self.frames):
            if kind == "cond":
                break
            assert isinstance(node, ast.For | ast.AsyncFor | ast.While)
            loops.add(node)
            break  # an inner loop may run zero times: outer loops are not guaranteed
        return frozenset(loops)

    # -- expressions -------------------------------------------------------------------------

    def eval(self, expr: ast.expr) -> Value:
        """The abstract value of an expression (evaluating nested calls for their effects)."""
        handler = _EXPR_HANDLERS.get(type(expr))
        if handler is not None:
            result: Value = handler(self, expr)
            return result
        for child in ast.iter_child_nodes(expr):
            if isinstance(child, ast.expr) and not isinstance(
                expr, ast.Lambda | ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp
            ):
                self.eval(child)
        return UNKNOWN

    def _expr_Constant(self, expr: ast.Constant) -> Value:
        return literal(expr)

    def _expr_JoinedStr(self, expr: ast.JoinedStr) -> Value:
        for value in expr.values:
            self.eval(value)
        return Value(grad=Grad.UNTRACKED, kind=Kind.OTHER)

    def _expr_FormattedValue(self, expr: ast.FormattedValue) -> Value:
        self.eval(expr.value)
        return Value(grad=Grad.UNTRACKED, kind=Kind.OTHER)

    def _expr_Name(self, expr: ast.Name) -> Value:
        return self.lookup(expr.id, expr)

    def _expr_Attribute(self, expr: ast.Attribute) -> Value:
        key = dotted(expr)
        if key is not None and self.env is not None and key in self.env:
            if expr.attr == "grad":
                self._record_bound_grad(expr)
            return self.lookup(key, expr)
        base = self.eval(expr.value)
        if (
            base.kind is Kind.SEQUENCE
            and base.fields is not None
            and base.elements is not None
            and expr.attr in base.fields
        ):
            return base.elements[base.fields.index(expr.attr)]
        info = base.instance_of or (base.module.local if base.module else None)
        if info is not None and expr.attr in info.attributes and base.kind is not Kind.CLASS:
            return info.attributes[expr.attr]
        if expr.attr == "weight" and self._owns_weight(dotted(expr.value), base):
            # `layer.weight` of a torch.nn layer built here: a leaf parameter that requires
            # grad (unless the file may change requires_grad somewhere).
            return Value(Grad.TRACKED, Kind.TENSOR, leaf=True)
        if key is not None and key.startswith("self.") and key.count(".") == 1:
            # State left by an earlier call: tag it, so a caller can tell whether it reaches
            # what this method returns or stores (a `.detach()` drops the tag).
            _, tag = self.state_reads.setdefault(
                expr.attr, (expr, Carry(key, None, None, UNKNOWN, None))
            )
            return Value(carries=frozenset({tag}))
        if base.kind is Kind.TENSOR:
            if expr.attr == "grad":
                self.record_use("grad", "grad", expr, expr.value, base)
            if expr.attr == "data":
                return Value(
                    Grad.UNTRACKED, Kind.TENSOR, Loss(LossKind.DETACH, expr, ".data"), leaf=True
                )
            if expr.attr in api.TENSOR_VIEWS:
                return self.tensor_op(expr, [base])
            return Value(
                kind=Kind.OTHER if expr.attr in ("shape", "dtype", "device") else Kind.UNKNOWN
            )
        return UNKNOWN

    def _owns_weight(self, key: str | None, module: Value) -> bool:
        """True when `module` (held at `key`) is a torch.nn layer with a `weight` parameter
        that certainly requires grad: built with its parameters here, and nothing may have
        frozen them (`may_be_frozen`)."""
        ref = module.module
        if module.kind is not Kind.MODULE or ref is None or ref.qualified is None:
            return False
        kind = ref.kind or api.nn_module_kind(ref.qualified)
        name = ref.qualified.rsplit(".", 1)[-1]
        return (
            kind is not None
            and kind.has_parameters
            and name in api.WEIGHTED_LAYERS
            and not self.may_be_frozen(key, module)
            and module.frozen is None
        )

    def _record_bound_grad(self, expr: ast.Attribute) -> None:
        """A read of `x.grad` after `x.grad = ...` on some path (or joined from a loop's
        later iterations): recorded as "grad-bound", for rules that check the path."""
        base_key = dotted(expr.value)
        base = self.env.get(base_key) if self.env is not None and base_key else None
        if base is not None and base.kind is Kind.TENSOR:
            self.record_use("grad-bound", "grad", expr, expr.value, base)

    def _expr_NamedExpr(self, expr: ast.NamedExpr) -> Value:
        value = self.eval(expr.value)
        self.bind(expr.target, value)
        return value

    def _expr_Tuple(self, expr: ast.Tuple | ast.List) -> Value:
        elements = [self.eval(e) for e in expr.elts]
        if any(isinstance(e, ast.Starred) for e in expr.elts):
            return Value(
                kind=Kind.UNKNOWN, carries=frozenset().union(*(e.all_carries() for e in elements))
            )
        return Value(grad=Grad.UNKNOWN, kind=Kind.SEQUENCE, elements=tuple(elements))

    _expr_List = _expr_Tuple

    def _expr_Dict(self, expr: ast.Dict) -> Value:
        """`{"loss": loss, "logits": out}`: a mapping whose string keys are known."""
        values = [self.eval(value) for value in expr.values]
        keys: list[str] = []
        for key in expr.keys:
            if key is None or not isinstance(key, ast.Constant) or not isinstance(key.value, str):
                for key_expr in expr.keys:
                    if key_expr is not None:
                        self.eval(key_expr)
                carries = frozenset().union(*(v.all_carries() for v in values))
                return Value(kind=Kind.OTHER, carries=carries)
            keys.append(key.value)
        if len(set(keys)) != len(keys):
            return Value(
                kind=Kind.OTHER, carries=frozenset().union(*(v.all_carries() for v in values))
            )
        return Value(kind=Kind.MAPPING, elements=tuple(values), fields=tuple(keys))

    def _expr_ListComp(self, expr: ast.ListComp | ast.GeneratorExp | ast.SetComp) -> Value:
        """`[f(x) for x in xs]`: a list whose every element is what `f(x)` gives (the
        comprehension's own names do not leak)."""
        if self.env is None:
            return UNKNOWN
        outer = self.env
        self.env = dict(outer)
        try:
            for generator in expr.generators:
                iterable = self.eval(generator.iter)
                element = UNKNOWN
                if iterable.kind is Kind.TENSOR:
                    element = evolve(iterable, leaf=False, shape=shapes.UNKNOWN_SHAPE)
                elif iterable.items is not None:
                    element = iterable.items
                self.bind(generator.target, element)
                for condition in generator.ifs:
                    self.eval(condition)
            item = self.eval(expr.elt) if self.env is not None else UNKNOWN
        finally:
            self.env = outer
        if isinstance(expr, ast.SetComp):
            return Value(kind=Kind.OTHER, carries=item.all_carries())
        return Value(kind=Kind.SEQUENCE, items=item.with_origin(None))

    _expr_GeneratorExp = _expr_ListComp
    _expr_SetComp = _expr_ListComp

    def _expr_IfExp(self, expr: ast.IfExp) -> Value:
        self.eval(expr.test)
        return join(self.eval(expr.body), self.eval(expr.orelse))

    def _expr_BoolOp(self, expr: ast.BoolOp) -> Value:
        values = [self.eval(v) for v in expr.values]
        result = values[0]
        for value in values[1:]:
            result = join(result, value)
        return result

    def _expr_Compare(self, expr: ast.Compare) -> Value:
        values = [self.eval(value) for value in (expr.left, *expr.comparators)]
        if any(v.kind is Kind.TENSOR for v in values):
            return self.non_differentiable(expr, "a comparison")
        return UNKNOWN

    def non_differentiable(self, node: ast.AST, description: str) -> Value:
        """The result of an op autograd cannot differentiate (argmax, comparisons, integer
        casts): a tensor that never requires grad."""
        return Value(
            Grad.UNTRACKED, Kind.TENSOR, Loss(LossKind.NON_DIFFERENTIABLE, node, description)
        )

    def _expr_BinOp(self, expr: ast.BinOp) -> Value:
        operands = [self.eval(expr.left), self.eval(expr.right)]
        if isinstance(expr.op, ast.Mult | ast.Div | ast.MatMult):
            self.note_saved_operands(
                expr, type(expr.op).__name__, [expr.left, expr.right], operands
            )
        result = self.inference_result(self.arithmetic(expr, operands))
        saves = graphs.binary_saves(expr.op)
        if saves is None or result.grad is not Grad.TRACKED:
            return result
        return self.saving_op(expr, result, saves, operands, [expr.left, expr.right])

    def _expr_UnaryOp(self, expr: ast.UnaryOp) -> Value:
        operand = self.eval(expr.operand)
        if isinstance(expr.op, ast.Not):
            return Value(grad=Grad.UNTRACKED, kind=Kind.SCALAR)
        result = self.arithmetic(expr, [operand])
        # `+x` returns x itself; `-x` allocates.
        return self.inference_result(result) if isinstance(expr.op, ast.USub) else result

    def _expr_Subscript(self, expr: ast.Subscript) -> Value:
        base = self.eval(expr.value)
        index = self.eval(expr.slice)
        if base.elements is not None and isinstance(expr.slice, ast.Constant):
            position = expr.slice.value
            if base.kind is Kind.MAPPING and base.fields is not None:
                if position in base.fields:
                    return base.elements[base.fields.index(position)]
                return evolve(UNKNOWN, carries=base.all_carries())
            if isinstance(position, int) and -len(base.elements) <= position < len(base.elements):
                return base.elements[position]
        if base.kind is Kind.TENSOR:
            return self.tensor_op(expr, [base, index])
        return evolve(UNKNOWN, carries=base.all_carries())

    def _expr_Starred(self, expr: ast.Starred) -> Value:
        """`*layers` in a call: the unpacked value itself (callers check for Starred)."""
        return self.eval(expr.value)

    def _expr_Await(self, expr: ast.Await) -> Value:
        self.eval(expr.value)
        return UNKNOWN

    def arithmetic(self, node: ast.AST, operands: list[Value]) -> Value:
        """Arithmetic on tensors is a differentiable op; on Python numbers it is a number."""
        if any(v.kind is Kind.TENSOR for v in operands):
            result = self.tensor_op(node, operands)
            op = getattr(node, "op", None)
            if isinstance(op, ast.operator | ast.unaryop):
                shape = shapes.operator_shape(op, [_shape_of(v) for v in operands])
                result = evolve(result, shape=shape)
            return result
        if all(v.kind is Kind.SCALAR for v in operands):
            losses = [v.loss for v in operands if v.loss is not None]
            reasons = [loss for loss in losses if loss.kind is not LossKind.LITERAL] or losses
            return Value(
                grad=Grad.UNTRACKED, kind=Kind.SCALAR, loss=reasons[0] if reasons else None
            )
        carries = frozenset().union(*(v.all_carries() for v in operands))
        if self.mode.enabled is False and self.mode.off is not None:
            loss = Loss(LossKind.NO_GRAD, node, self.mode.off.description, self.mode.off)
            return Value(grad=Grad.UNTRACKED, kind=Kind.UNKNOWN, loss=loss)
        if all(v.grad is Grad.UNTRACKED for v in operands):
            # Arithmetic on values that certainly do not require grad cannot require grad.
            return combine(operands, result_kind=Kind.UNKNOWN)
        return evolve(UNKNOWN, carries=carries)

    def tensor_op(self, node: ast.AST, inputs: list[Value], kind: Kind = Kind.TENSOR) -> Value:
        """A differentiable torch operation under the current grad mode."""
        if self.mode.enabled is False and self.mode.off is not None:
            loss = Loss(LossKind.NO_GRAD, node, self.mode.off.description, self.mode.off)
            return Value(grad=Grad.UNTRACKED, kind=kind, loss=loss)
        result = combine(inputs, result_kind=kind)
        if self.mode.enabled is None:
            unless = None
            if self.mode.condition is not None and self.mode.condition_off is not None:
                off = self.mode.condition_off
                loss = Loss(LossKind.NO_GRAD, node, off.description, off)
                unless = ConditionalLoss(self.mode.condition, loss)
            return evolve(result, grad=Grad.UNKNOWN, loss=None, graph=frozenset(), unless=unless)
        return result

    def inference_result(self, value: Value) -> Value:
        """A tensor newly allocated under torch.inference_mode() is an inference tensor."""
        off = self.mode.off
        if self.mode.enabled is False and off is not None and off.inference:
            if value.kind is Kind.TENSOR:
                return evolve(value, inference=True)
            if value.elements is not None:
                elements = tuple(self.inference_result(e) for e in value.elements)
                return evolve(value, elements=elements)
        return value

    def note_saved_operands(
        self, node: ast.AST, name: str, exprs: list[ast.expr], values: list[Value]
    ) -> None:
        """A binary op that saves each operand for the other's gradient: record an inference
        tensor in it when the other operand requires grad (autograd will refuse to save it)."""
        if self.mode.enabled is not True or len(exprs) < 2 or len(values) < 2:
            return
        for index in (0, 1):
            value, other = values[index], values[1 - index]
            expr = exprs[index]
            requires_grad = other.kind is Kind.TENSOR and other.grad is Grad.TRACKED
            if value.inference and requires_grad and not isinstance(expr, ast.Starred):
                self.record_use("inference-saved", name, node, expr, value, other)

    def saving_op(
        self,
        node: ast.AST,
        result: Value,
        saves: Saves | None,
        inputs: list[Value],
        exprs: list[ast.expr],
        *,
        inputs_saved: bool = False,
    ) -> Value:
        """The result of an operation that saves tensors for backward: a new graph node on
        its history; the result itself is saved (`saves` OUTPUT), or each input that another
        input's requires_grad makes autograd keep (INPUTS; all of them with `inputs_saved`)."""
        if saves is None or result.grad is not Grad.TRACKED or self.mode.enabled is not True:
            return result
        saved = SavedNode(node, saves)
        if saves is Saves.INPUTS:
            for index, expr in enumerate(exprs):
                others = (v for i, v in enumerate(inputs) if i != index)
                if inputs_saved or any(v.grad is Grad.TRACKED for v in others):
                    self._mark_saved(expr, saved)
        own = frozenset({saved}) if saves is Saves.OUTPUT else frozenset()
        return evolve(result, graph=result.graph | {saved}, saved_in=own)

    def _mark_saved(self, expr: ast.expr, saved: SavedNode) -> None:
        """Remember that `saved` keeps the tensor bound to `expr` (a name or attribute)."""
        key = dotted(expr)
        if key is None or self.env is None:
            return
        value = self.env.get(key)
        # Loop-carried values keep their identity: it is how their reads are recognised.
        if value is not None and value.kind is Kind.TENSOR and not value.carries:
            self.env[key] = evolve(value, saved_in=value.saved_in | {saved})

    def _graph_state(self) -> tuple[frozenset[SavedNode], frozenset[SavedNode]]:
        """Graph nodes certainly freed by a backward, and nodes whose saved tensors were
        certainly changed in place, at this point."""
        state = self.env.get(GRAPH_STATE_KEY) if self.env is not None else None
        if state is None:
            return frozenset(), frozenset()
        return state.graph, state.saved_in

    def _set_graph_state(self, freed: frozenset[SavedNode], modified: frozenset[SavedNode]) -> None:
        # A pseudo-variable, so every join of environments joins the state too (intersection:
        # only what holds on every path is certain).
        if self.env is not None:
            self.env[GRAPH_STATE_KEY] = Value(kind=Kind.OTHER, graph=freed, saved_in=modified)

    def modified_in_place(self, node: ast.AST, target: ast.expr, value: Value) -> None:
        """An in-place change of `value`: the graph nodes that saved it can no longer use it."""
        if not value.saved_in:
            return
        freed, modified = self._graph_state()
        self._set_graph_state(freed, modified | value.saved_in)
        if self.record and self.stmt is not None:
            self.module.analysis.inplace_on_saved.append(
                InPlaceOnSaved(node, self.stmt, target, value, value.saved_in, self.function)
            )

    def backpropagate(self, call: ast.Call, target: ast.expr, value: Value, via: str) -> None:
        """A backward()/autograd.grad() call: record it, then free the graph it ran through."""
        freed, modified = self._graph_state()
        tracked = value.grad is Grad.TRACKED
        frees = tracked and via != "torch.autograd.grad" and self._frees_graph(call, via)
        # (A forward's stand-in for its input is no graph of its own: see FunctionSummary.)
        through = frozenset(n for n in value.graph if not isinstance(n.node, ast.arg))
        through = through if tracked else frozenset()
        self.record_backward(call, target, value, via, frees, through & freed, through & modified)
        if frees and not value.graph <= freed:
            self._set_graph_state(freed | value.graph, modified)

    def _frees_graph(self, call: ast.Call, via: str) -> bool:
        """Whether a backward call certainly frees its graph: no `retain_graph`, no
        `create_graph` (which implies retaining), no `inputs`, nothing positional for them."""
        positional = 1 if via == "backward" else 2
        if len(call.args) > positional or any(kw.arg is None for kw in call.keywords):
            return False
        if any(kw.arg not in api.BACKWARD_KEYWORDS for kw in call.keywords):
            # An unknown keyword (`retain_variables=True`, from before torch 0.4) makes the
            # call unknown, never "the default".
            return False
        if self._keyword(call, "inputs") is not None:
            return False
        return not (
            self._flag_keyword(call, "retain_graph") or self._flag_keyword(call, "create_graph")
        )

    # -- calls -------------------------------------------------------------------------------

    def _expr_Call(self, call: ast.Call) -> Value:
        func = call.func
        qualified = self.scope.resolve(func)
        if qualified is not None and qualified.startswith("torch"):
            return self.torch_call(call, qualified)
        if qualified is not None and qualified.startswith("numpy."):
            return self.numpy_call(call, qualified)
        if isinstance(func, ast.Name) and self._is_builtin(func.id):
            return self.builtin_call(call, func.id)
        if isinstance(func, ast.Attribute):
            key = dotted(func)
            callee_known = key is not None and self.env is not None and key in self.env
            receiver = self.eval(func.value)
            if not callee_known:
                info = receiver.instance_of or (receiver.module.local if receiver.module else None)
                attribute = info.attributes.get(func.attr) if info is not None else None
                if attribute is None or receiver.kind is Kind.CLASS:
                    return self.method_call(call, receiver, func)
                return self.call_value(call, attribute)
        return self.call_value(call, self.eval(func))

    def numpy_call(self, call: ast.Call, qualified: str) -> Value:
        """`np.mean(losses)`, `np.array(out)`: numpy turns tensors into arrays through
        `Tensor.numpy()`; the result is an array, never a tensor."""
        args = self.arguments(call)
        converts = api.NUMPY_CONVERTS.get(qualified.removeprefix("numpy."))
        if converts is not None and call.args and not isinstance(call.args[0], ast.Starred):
            first = args[0]
            if first.kind is Kind.TENSOR and converts == "tensor":
                self.record_use("conversion", "array", call, call.args[0], first)
            elif first.kind is Kind.SEQUENCE:
                parts = first.elements if first.elements is not None else (first.items,)
                tracked = [p for p in parts if p is not None and p.kind is Kind.TENSOR]
                converted = next((p for p in tracked if p.grad is Grad.TRACKED), None)
                if converted is not None:
                    self.record_use("conversion", "array-items", call, call.args[0], converted)
        loss = Loss(LossKind.CONVERSION, call, f"{qualified}()")
        return Value(grad=Grad.UNTRACKED, kind=Kind.OTHER, loss=loss)

    def _is_builtin(self, name: str) -> bool:
        if self.env is not None and name in self.env:
            return False
        if name in self.module.globals:
            return False
        scope: Scope | None = self.scope
        while scope is not None:
            if scope.is_bound_locally(name):
                return False
            scope = scope.parent
        return name in _CONVERSION_BUILTINS or name in _PLAIN_BUILTINS or name in ("tuple", "list")

    def arguments(self, call: ast.Call) -> list[Value]:
        """Evaluate positional and keyword arguments in order."""
        values = [self.eval(arg) for arg in call.args]
        values.extend(self.eval(kw.value) for kw in call.keywords)
        return values

    def _keyword(self, call: ast.Call, name: str) -> ast.keyword | None:
        return next((kw for kw in call.keywords if kw.arg == name), None)

    def torch_call(self, call: ast.Call, qualified: str) -> Value:
        """A call of a torch API resolved through the imports."""
        if self.record and self.stmt is not None:
            self.module.analysis.torch_calls.append(
                TorchCall(call, qualified, self.stmt, self.function)
            )
        if qualified in api.BACKWARD_FUNCTIONS or qualified in api.GRAD_FUNCTIONS:
            keyword = "tensors" if qualified in api.BACKWARD_FUNCTIONS else "outputs"
            target = call.args[0] if call.args else None
            kw = self._keyword(call, keyword)
            if kw is not None:
                target = kw.value
            values = self.arguments(call)
            if target is not None:
                value = values[0] if call.args else self.eval(target)
                via = "torch.autograd.backward" if keyword == "tensors" else "torch.autograd.grad"
                self.backpropagate(call, target, value, via)
            if keyword == "outputs":
                return self._gradients(call)
            return NONE
        args = self.arguments(call)
        loss_name = api.LOSS_FUNCTIONS.get(qualified)
        if loss_name is not None:
            self._record_loss_input(call, loss_name, args)
        if qualified in api.DATA_PARALLEL and len(call.args) >= 2 and len(args) >= 2:
            parallel = args[0]
            if parallel.kind is Kind.MODULE and parallel.module is not None:
                # The module's own call, as written `module(inputs)` at the same place.
                called = ast.copy_location(ast.Call(call.args[0], [call.args[1]], []), call)
                ast.fix_missing_locations(called)
                return self.module_call(called, parallel.module, [args[1]], parallel.frozen)
        like = _shape_of(args[0]) if call.args and args else shapes.UNKNOWN_SHAPE
        if qualified in api.FACTORIES or qualified in api.LEGACY_CONSTRUCTORS:
            shape = shapes.factory_shape(qualified, call, like)
            return self.inference_result(evolve(self._leaf(call, qualified, None), shape=shape))
        if qualified in api.REWRAP:
            inner = args[0] if args else UNKNOWN
            shape = shapes.factory_shape(qualified, call, like)
            leaf = evolve(self._leaf(call, qualified, inner), shape=shape)
            return leaf if qualified in api.MAY_ALIAS else self.inference_result(leaf)
        if qualified in api.PARAMETER:
            # nn.Parameter(data, requires_grad=True): the flag may also come second.
            flag = args[1] if len(call.args) > 1 else None
            for index, kw in enumerate(call.keywords):
                if kw.arg == "requires_grad":
                    flag = args[len(call.args) + index]
            if flag is not None and flag.const is not True:
                grad = Grad.UNTRACKED if flag.const is False else Grad.UNKNOWN
                return Value(grad=grad, kind=Kind.TENSOR, leaf=True, shape=like)
            return Value(grad=Grad.TRACKED, kind=Kind.TENSOR, leaf=True, shape=like)
        if qualified in api.NON_DIFFERENTIABLE:
            return self.non_differentiable(call, f"{qualified}()")
        name = qualified.rsplit(".", 1)[-1]
        if qualified == f"torch.{name}" and name in api.INDEX_REDUCTIONS:
            positional = args[1 : len(call.args)]
            reduced = self._index_reduction(call, name, args[0] if args else UNKNOWN, positional)
            if reduced is not None:
                return reduced
        in_place = qualified.endswith("_") or self._flag_keyword(call, "inplace")
        if in_place and call.args and args:
            # torch.relu_(y), F.relu(y, inplace=True): the first argument changes in place.
            self.modified_in_place(call, call.args[0], args[0])
            self._forget_activation(call.args[0])
        if qualified in api.DIFFERENTIABLE or qualified.startswith(api.FUNCTIONAL_PREFIX):
            if qualified in api.SAVES_OPERANDS:
                self.note_saved_operands(call, qualified, call.args, args)
            result = self.tensor_op(call, args)
            saves = graphs.function_saves(qualified)
            result = self.saving_op(call, result, saves, args, list(call.args))
            result = evolve(
                result,
                shape=self._call_shape(call, qualified, args),
                activation=activations.of_function(call, qualified, args),
            )
            if (
                qualified in api.MAY_ALIAS
                or "dropout" in qualified
                or self._keyword(call, "inplace") is not None
            ):
                return result
            return self.inference_result(result)
        if qualified in api.TUPLE_RETURNING:
            return self.tensor_op(call, args, kind=Kind.UNKNOWN)
        if qualified in api.SEQUENTIAL:
            layers_given = _unpacked_layers(call, args)
            if layers_given is not None:
                return Value(
                    kind=Kind.MODULE,
                    module=ModuleRef(qualified, kind=_sequential_kind(layers_given)),
                )
            fresh = (
                bool(args)
                and not call.keywords
                and all(
                    params.constructed_here(a) and v.module is not None and v.module.self_contained
                    for a, v in zip(call.args, args, strict=True)
                )
            )
            layers = shapes.sequence_of([a.module.layer if a.module else None for a in args])
            first = args[0].module if args and call.args else None
            first_saves = first is not None and (
                first.saves_input
                or (first.qualified or "").rsplit(".", 1)[-1] in api.SAVES_INPUT_MODULES
            )
            module = ModuleRef(
                qualified,
                kind=_sequential_kind(args),
                layer=layers,
                self_contained=fresh,
                saves_input=first_saves,
                applies=activations.of_sequential(call, args),
            )
            return Value(kind=Kind.MODULE, module=module)
        module_kind = api.nn_module_kind(qualified)
        last = qualified.rsplit(".", 1)[-1]
        if module_kind is not None or (qualified.startswith("torch.nn.") and last[:1].isupper()):
            inplace = self._keyword(call, "inplace")
            in_place = inplace is not None and not (
                isinstance(inplace.value, ast.Constant) and inplace.value.value is False
            )
            # A layer computes from its inputs and its own parameters only (containers and
            # wrappers such as DataParallel hold modules built elsewhere; lazy layers make
            # their parameters later).
            own = (
                module_kind is not None
                and module_kind.output is not None
                and not last.startswith("Lazy")
            )
            layer = shapes.layer_of(last, call)
            ref = ModuleRef(
                qualified=qualified,
                inplace=in_place,
                layer=layer,
                self_contained=own,
                applies=activations.of_layer(call, qualified),
            )
            if module_kind is not None and self._flag_keyword(call, "return_indices"):
                # `nn.MaxPool2d(2, return_indices=True)` returns (values, indices).
                ref = dataclasses.replace(ref, kind=api.ModuleKind(False, None))
            elif module_kind is not None and any(
                isinstance(kw.value, ast.Constant) and kw.value.value is False
                for kw in call.keywords
                if kw.arg in api.AFFINE_KEYWORDS
            ):
                ref = dataclasses.replace(ref, kind=api.ModuleKind(False, module_kind.output))
            return Value(kind=Kind.MODULE, module=ref)
        if (
            qualified.startswith("torch.optim.")
            and qualified.count(".") == 2
            and last[:1].isupper()
        ):
            self._record_optimized(call, qualified, args)
            return Value(
                kind=Kind.OTHER,
                module=ModuleRef(qualified=qualified),
                optimizes=self._optimized_module(call),
            )
        return UNKNOWN

    def _index_reduction(
        self, call: ast.Call, name: str, source: Value, positional: list[Value]
    ) -> Value | None:
        """`torch.max(x, 1)`, `x.topk(k)`...: a `(values, indices)` pair whose indices never
        require grad; None when the form may not return a pair (`torch.max(x, y)`)."""
        if any(isinstance(a, ast.Starred) for a in call.args):
            return None
        if api.INDEX_REDUCTIONS[name] == "with_dim":
            has_dim = self._keyword(call, "dim") is not None
            if positional:
                # The first argument after the input is `dim` only when it is a number.
                has_dim = positional[0].kind is Kind.SCALAR
            if not has_dim:
                return None
        values = evolve(self.tensor_op(call, [source]), shape=shapes.UNKNOWN_SHAPE)
        indices = self.non_differentiable(call, f"the index output of {name}()")
        return Value(
            kind=Kind.SEQUENCE, elements=(values, indices), fields=api.INDEX_REDUCTION_FIELDS
        )

    def _call_shape(self, call: ast.Call, qualified: str, args: list[Value]) -> shapes.Shape:
        """The shape of a differentiable torch function's or functional loss's result."""
        name = qualified.rsplit(".", 1)[-1]
        positional = [_shape_of(a) for a in args[: len(call.args)]]
        keywords = [_shape_of(a) for a in args[len(call.args) :]]
        if any(isinstance(a, ast.Starred) for a in call.args):
            return shapes.UNKNOWN_SHAPE
        if name in shapes.LOSSES and qualified.startswith(api.FUNCTIONAL_PREFIX):
            reduction = shapes.reduction_of(name, call, functional=True)
            inputs = [*positional, shapes.UNKNOWN_SHAPE, shapes.UNKNOWN_SHAPE]
            return shapes.loss_shape(name, reduction, inputs[0], inputs[1])
        return shapes.op_shape(name, call, positional, keywords)

    def _optimized_module(self, call: ast.Call) -> params.OptimizedParameters | None:
        """`torch.optim.X(model.parameters(), ...)` on a module built in this file."""
        first: ast.expr | None = call.args[0] if call.args else None
        keyword = self._keyword(call, "params")
        if keyword is not None:
            first = keyword.value
        if not (
            isinstance(first, ast.Call)
            and isinstance(first.func, ast.Attribute)
            and first.func.attr == "parameters"
            and not first.args
            and not first.keywords
            and self.stmt is not None
            and self.env is not None
        ):
            return None
        key = dotted(first.func.value)
        owner = self.env.get(key) if key is not None else None
        if owner is None or owner.kind is not Kind.MODULE or owner.module is None:
            return None
        return params.OptimizedParameters(call, self.stmt, key or "", owner.module)

    def _flag_keyword(self, call: ast.Call, name: str) -> bool:
        """True when `name=` is passed with a value other than a literal False/None."""
        keyword = self._keyword(call, name)
        return keyword is not None and not (
            isinstance(keyword.value, ast.Constant) and keyword.value.value in (False, None)
        )

    def _gradients(self, call: ast.Call) -> Value:
        """What `torch.autograd.grad(outputs, inputs)` returns: one gradient per input, with
        history only when `create_graph=True`."""
        inputs = call.args[1] if len(call.args) > 1 else None
        keyword = self._keyword(call, "inputs")
        if keyword is not None:
            inputs = keyword.value
        create = self._keyword(call, "create_graph")
        if create is not None and not (
            isinstance(create.value, ast.Constant) and create.value.value is False
        ):
            return UNKNOWN
        if isinstance(inputs, ast.List | ast.Tuple) and not any(
            isinstance(e, ast.Starred) for e in inputs.elts
        ):
            count = len(inputs.elts)
        elif isinstance(inputs, ast.Name):
            count = 1
        else:
            return UNKNOWN
        loss = Loss(LossKind.NO_CREATE_GRAPH, call, "torch.autograd.grad(...)")
        gradient = Value(grad=Grad.UNTRACKED, kind=Kind.TENSOR, loss=loss)
        return Value(kind=Kind.SEQUENCE, elements=(gradient,) * count)

    def _record_optimized(self, call: ast.Call, qualified: str, args: list[Value]) -> None:
        """Tensors listed literally as an optimizer's parameters: `SGD([w, b], lr=...)`."""
        if not call.args or not isinstance(call.args[0], ast.List | ast.Tuple) or not args:
            return
        elements = args[0].elements or ()
        for expr, value in zip(call.args[0].elts, elements, strict=False):
            if value.kind is Kind.TENSOR:
                self.record_use("optimize", qualified, call, expr, value)

    def _leaf(self, call: ast.Call, qualified: str, inner: Value | None) -> Value:
        requires = self._keyword(call, "requires_grad")
        wants_grad = requires is not None and self.eval(requires.value).const is True
        if requires is not None and not wants_grad and self.eval(requires.value).const is not False:
            return Value(kind=Kind.TENSOR, leaf=True)
        if inner is not None:
            history = combine([inner]).grad is Grad.TRACKED
            loss = Loss(
                LossKind.REWRAP,
                call,
                f"{qualified}(...)",
                inner=inner.loss,
                wrapped_history=history,
            )
        else:
            loss = Loss(LossKind.FACTORY, call, f"{qualified}(...)")
        grad = Grad.TRACKED if wants_grad else Grad.UNTRACKED
        return Value(grad=grad, kind=Kind.TENSOR, loss=loss, leaf=True)

    def builtin_call(self, call: ast.Call, name: str) -> Value:
        """`float(x)`, `int(x)`, `tuple(x)`, `len(x)`...: builtins not shadowed in this file."""
        args = self.arguments(call)
        if name in _CONVERSION_BUILTINS:
            loss = Loss(LossKind.CONVERSION, call, f"{name}()")
            return Value(grad=Grad.UNTRACKED, kind=Kind.SCALAR, loss=loss)
        if name in ("tuple", "list") and len(args) == 1 and args[0].elements is not None:
            return args[0]
        return Value(kind=Kind.OTHER) if name in _PLAIN_BUILTINS else UNKNOWN

    def method_call(self, call: ast.Call, receiver: Value, func: ast.Attribute) -> Value:
        """`receiver.name(...)` where the callee is not a known attribute value."""
        name = func.attr
        receiver_key = dotted(func.value)
        if name == "backward":
            args = self.arguments(call)
            self.backpropagate(call, func.value, receiver, "backward")
            return NONE
        args = self.arguments(call)
        if receiver.kind is Kind.TENSOR:
            return self.tensor_method(call, receiver, receiver_key, name, args)
        if receiver.kind is Kind.MODULE:
            if name == "requires_grad_" and params.freezes_argument(call):
                frozen = self._freeze(func.value, call, f"`{ast.unparse(call)}`")
                return frozen if frozen is not None else receiver
            if receiver.frozen is not None and name not in params.KEEPS_FROZEN:
                self._unfreeze(receiver.module)
            if name == "forward":
                self.record_use("forward", name, call, func.value, receiver)
                return self.call_value(call, receiver, evaluated=args)
            if name in api.MODULE_SELF_METHODS:
                if name in ("eval", "train"):
                    self.record_use("module-mode", name, call, func.value, receiver)
                return receiver
            if name in api.MODULE_INFO_METHODS:
                return Value(kind=Kind.OTHER)
            if receiver_key is not None and self.env is not None and receiver_key in self.env:
                # `seq.append(layer)`, `seq.add_module(...)`: its last layer may change.
                self.env[receiver_key] = activations.module_cleared(self.env[receiver_key])
        if (
            receiver.grad is Grad.UNTRACKED
            and receiver.kind is Kind.UNKNOWN
            and self.mode.enabled is False
            and self.mode.off is not None
        ):
            # A method of a value computed with recording off (an unlisted tensor method's
            # result) computes without recording too.
            loss = Loss(LossKind.NO_GRAD, call, self.mode.off.description, self.mode.off)
            return Value(grad=Grad.UNTRACKED, kind=Kind.UNKNOWN, loss=loss)
        if (module_value := self._module_by_use(call, receiver, receiver_key)) is not None:
            self.record_use("module-mode", name, call, func.value, module_value)
            return module_value
        if receiver.kind is Kind.MAPPING:
            key = (
                call.args[0].value if call.args and isinstance(call.args[0], ast.Constant) else None
            )
            fields, elements = receiver.fields, receiver.elements
            if name == "get" and fields is not None and elements is not None and key in fields:
                return elements[fields.index(key)]
            if name not in _READ_ONLY_MAPPING_METHODS and receiver_key is not None and self.env:
                # update / pop / setdefault / clear...: the keys are no longer known.
                changed = Value(kind=Kind.MAPPING, carries=receiver.all_carries())
                self.env[receiver_key] = evolve(changed, origin=receiver.origin)
            return UNKNOWN
        if receiver.kind in (Kind.SCALAR, Kind.NONE, Kind.OTHER, Kind.SEQUENCE):
            if is_optimizer(receiver):
                self.record_use("optimizer", name, call, func.value, receiver)
                # add_param_group, load_state_dict...: it may hold other parameters now.
                if (
                    receiver.optimizes is not None
                    and name not in ("step", "zero_grad")
                    and receiver_key is not None
                    and self.env is not None
                ):
                    self.env[receiver_key] = evolve(receiver, optimizes=None)
            elif receiver.kind is Kind.SEQUENCE and name == "append" and len(args) == 1:
                self.record_use("append", name, call, func.value, receiver, args[0])
                if receiver_key is not None and self.env is not None and not call.keywords:
                    self.env[receiver_key] = _with_item(receiver, args[0])
            return UNKNOWN
        method = _local_method(receiver, name)
        if method is not None and receiver.kind is not Kind.CLASS:
            self.module.call_sites.note(
                method, call, args, self.mode.enabled, self.mode.off, is_method=True
            )
            summary = self.module.summary_of(method)
            self._state_carried_across_calls(method, summary)
            self._params_carried_across_calls(method, summary, call, args, skip_self=True)
            returned = summary.returned
            prefix = f"{receiver_key}."
            known_state = self.env is not None and any(k.startswith(prefix) for k in self.env)
            if receiver_key is not None and known_state:
                if self.module.method_facts(method)[0]:
                    self._forget_below(receiver_key)
                else:
                    # The method can only change the attributes it mentions.
                    for attr in self.module.method_facts(method)[1]:
                        self._forget_below(f"{receiver_key}.{attr}")
                        if self.env is not None:
                            self.env.pop(f"{receiver_key}.{attr}", None)
            self.taint_arguments(call)
            return self._called_under_mode(
                method, call, _instantiate(returned.without_carries(), call)
            )
        if receiver.kind is Kind.UNKNOWN and receiver.graph and name in api.DIFFERENTIABLE_METHODS:
            # `img.view(n, -1)` on a value that may be a tensor: if the result has history,
            # it runs through the receiver's (a forward's input, see FunctionSummary).
            self.taint_arguments(call)
            return Value(graph=receiver.graph)
        # An unknown method may change its receiver's attributes and detach what it is given.
        if receiver_key is not None:
            self._forget_below(receiver_key)
            if name.endswith("_") and not name.startswith("_") and self.env is not None:
                # `h.detach_()` on a value that may be a tensor or None (narrowed to "not
                # None" by the branch it runs on): an in-place method may cut its history.
                current = self.env.get(receiver_key)
                if current is not None and current.carries:
                    self.env[receiver_key] = current.without_carries()
        self.taint_arguments(call)
        return UNKNOWN

    def _module_by_use(
        self, call: ast.Call, receiver: Value, receiver_key: str | None
    ) -> Value | None:
        """`model.eval()` on a name of unknown value (a parameter, most often) tells that it
        is an `nn.Module`: no other object of training code has an `eval()` taking nothing
        (pandas' takes an expression). From there on the name is that module. `train()` is
        not used this way: `trainer.train()` starts a Hugging Face training run."""
        func = call.func
        if not (
            isinstance(func, ast.Attribute)
            and func.attr == "eval"
            and not call.args
            and not call.keywords
            and receiver.kind is Kind.UNKNOWN
            and receiver_key is not None
            and "." not in receiver_key
            and self.env is not None
        ):
            return None
        value = Value(kind=Kind.MODULE, module=MODULE_BY_USE)
        self.env[receiver_key] = value
        return value

    def tensor_method(
        self, call: ast.Call, receiver: Value, key: str | None, name: str, args: list[Value]
    ) -> Value:
        """A method of a value known to be a tensor."""
        if name in api.CONVERSIONS:
            kind = Kind.SCALAR if name == "item" else Kind.OTHER
            loss = Loss(LossKind.CONVERSION, call, f".{name}()")
            assert isinstance(call.func, ast.Attribute)
            self.record_use("conversion", name, call, call.func.value, receiver)
            return Value(grad=Grad.UNTRACKED, kind=kind, loss=loss)
        if name in api.DETACH_METHODS:
            return Value(
                Grad.UNTRACKED, Kind.TENSOR, Loss(LossKind.DETACH, call, ".detach()"), leaf=True
            )
        if name == "detach_":
            detached = Value(
                Grad.UNTRACKED, Kind.TENSOR, Loss(LossKind.DETACH, call, ".detach_()"), leaf=True
            )
            if key is not None:
                self.bind_key(key, detached)
            return detached
        if name == "retain_grad":
            if key is not None and self.env is not None:
                self.env[key] = evolve(receiver, retains_grad=True)
            return NONE
        if name == "requires_grad_":
            assert isinstance(call.func, ast.Attribute)
            self.record_use("requires_grad_", name, call, call.func.value, receiver)
            flag = args[0].const if args else True
            value = Value(
                grad=Grad.TRACKED if flag is True else Grad.UNKNOWN, kind=Kind.TENSOR, leaf=True
            )
            if key is not None:
                self.bind_key(key, value)
            return value
        if name in api.NON_DIFFERENTIABLE_METHODS:
            return self.non_differentiable(call, f".{name}()")
        if name in api.INDEX_REDUCTIONS:
            reduced = self._index_reduction(call, name, receiver, args[: len(call.args)])
            if reduced is not None:
                return reduced
        if (
            name in api.MAYBE_IDENTITY_METHODS
            and self.mode.enabled is False
            and receiver.grad is not Grad.UNTRACKED
        ):
            # `w.to(device)` returns `w` itself when nothing changes: no_grad cannot strip
            # its requires_grad then.
            return Value(kind=Kind.TENSOR)
        if name in api.DIFFERENTIABLE_METHODS:
            assert isinstance(call.func, ast.Attribute)
            inputs = [receiver, *args]
            if name in ("mul", "div", "matmul", "mm", "bmm"):
                self.note_saved_operands(call, f".{name}()", [call.func.value, *call.args], inputs)
            result = self.tensor_op(call, inputs)
            saves = graphs.method_saves(name)
            result = self.saving_op(call, result, saves, inputs, [call.func.value, *call.args])
            positional = [_shape_of(receiver), *(_shape_of(a) for a in args[: len(call.args)])]
            keywords = [_shape_of(a) for a in args[len(call.args) :]]
            result = evolve(
                result,
                shape=shapes.op_shape(name, call, positional, keywords),
                activation=activations.of_method(call, name, receiver),
            )
            if name in api.MAY_ALIAS_METHODS:
                return result
            return self.inference_result(result)
        if name in api.SHAPE_METHODS:
            return Value(kind=Kind.OTHER)
        if name.endswith("_") and not name.startswith("_"):
            assert isinstance(call.func, ast.Attribute)
            self.record_use("inplace", name, call, call.func.value, receiver)
            self.modified_in_place(call, call.func.value, receiver)
            # In place: the receiver now also depends on the arguments.
            if key is not None and self.mode.enabled is not False:
                self.bind_key(
                    key, evolve(self.tensor_op(call, [receiver, *args]), leaf=receiver.leaf)
                )
            elif key is not None:
                self._forget_activation(call.func.value)
            return activations.cleared(receiver)
        if self.mode.enabled is False and self.mode.off is not None:
            # Whatever an unlisted method computes with recording off carries no history.
            loss = Loss(LossKind.NO_GRAD, call, self.mode.off.description, self.mode.off)
            return Value(grad=Grad.UNTRACKED, kind=Kind.UNKNOWN, loss=loss)
        return Value(kind=Kind.UNKNOWN)

    def call_value(
        self, call: ast.Call, callee: Value, evaluated: list[Value] | None = None
    ) -> Value:
        """Call an already evaluated callee: a module, a local function or class, or unknown."""
        args = evaluated if evaluated is not None else self.arguments(call)
        if callee.kind is Kind.MODULE and callee.module is not None:
            return self.module_call(call, callee.module, args, callee.frozen)
        if callee.kind is Kind.CLASS and callee.instance_of is not None:
            info = callee.instance_of
            if info.is_module:
                plain = (
                    all(_plain(v) for v in args)
                    and not any(isinstance(a, ast.Starred) for a in call.args)
                    and all(kw.arg is not None for kw in call.keywords)
                )
                own = plain and self.module.class_check.self_contained(info)
                ref = ModuleRef(local=info, self_contained=own)
                return Value(kind=Kind.MODULE, module=ref, instance_of=info)
            return Value(kind=Kind.INSTANCE, instance_of=info)
        if callee.kind is Kind.FUNCTION and callee.function is not None:
            self.module.call_sites.note(
                callee.function, call, args, self.mode.enabled, self.mode.off, is_method=False
            )
            summary = self.module.summary_of(callee.function)
            self._params_carried_across_calls(callee.function, summary, call, args)
            self.taint_arguments(call)
            return self._called_under_mode(
                callee.function, call, _instantiate(summary.returned.without_carries(), call)
            )
        self.taint_arguments(call)
        return UNKNOWN

    def module_call(
        self,
        call: ast.Call,
        module: ModuleRef,
        args: list[Value],
        frozen: params.Freeze | None = None,
    ) -> Value:
        """`model(x)`: outputs follow the module's kind and the grad mode."""
        self.record_use(
            "module-call",
            module.qualified or "",
            call,
            call.func,
            Value(kind=Kind.MODULE, module=module),
        )
        if module.qualified is not None:
            loss_name = api.LOSS_MODULES.get(module.qualified.rsplit(".", 1)[-1])
            if loss_name is not None and module.qualified.startswith("torch.nn."):
                self._record_loss_input(call, loss_name, args)
            kind = module.kind or api.nn_module_kind(module.qualified)
            if kind is None or kind.output is None:
                self.taint_arguments(call)
                if self.mode.enabled is False:
                    return evolve(self.tensor_op(call, args), kind=Kind.UNKNOWN)
                return UNKNOWN
            owner = dotted(call.func)
            owns_graph = kind.has_parameters and not self.may_be_frozen(
                owner, Value(kind=Kind.MODULE, module=module)
            )
            self._note_module_inputs(call, module, owns_graph, args)
            base = self.tensor_op(call, args)
            if owns_graph and self.mode.enabled is True:
                base = evolve(base, grad=Grad.TRACKED, loss=None)
            elif kind.has_parameters and self.mode.enabled is True and base.grad is Grad.UNTRACKED:
                # The file freezes something: this module's output requires grad unless its
                # parameters are the frozen ones, which only a certain freeze tells.
                base = _frozen_output(base, frozen) if frozen else evolve(UNKNOWN, kind=base.kind)
            if module.inplace and call.args and args:
                self.modified_in_place(call, call.args[0], args[0])
            saves = graphs.module_saves(module.qualified)
            if saves is None and kind.has_parameters:
                saves = Saves.OTHER
            exprs = list(call.args)
            base = self.saving_op(call, base, saves, args, exprs, inputs_saved=owns_graph)
            if module.layer is not None and kind.output == "tensor" and call.args:
                inputs = [_shape_of(a) for a in args[: len(call.args)]] + [shapes.UNKNOWN_SHAPE]
                base = evolve(base, shape=module.layer.output(inputs[0], inputs[1]))
            if kind.has_parameters:
                base = self.inference_result(base)
            if kind.output == "tensor":
                base = evolve(base, activation=activations.of_module_call(call, module))
            return _shaped(kind.output, base)
        if module is MODULE_BY_USE:
            # A module of unknown class (see `_module_by_use`): its parameters require grad
            # unless this file freezes something; what it returns is a tensor or a structure
            # of them, so only the grad mode is known of it.
            self.taint_arguments(call)
            if self.mode.enabled is False:
                return evolve(self.tensor_op(call, args), kind=Kind.UNKNOWN)
            if self.mode.enabled is True and not self.module.freezes_parameters:
                return Value(grad=Grad.TRACKED, kind=Kind.UNKNOWN)
            return UNKNOWN
        if module.local is not None:
            forward = next(
                (
                    s
                    for s in module.local.node.body
                    if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef) and s.name == "forward"
                ),
                None,
            )
            if forward is None:
                self.taint_arguments(call)
                return UNKNOWN
            summary = self.module.summary_of(forward)
            used = _used_arguments(forward, call, args)
            base = self.tensor_op(call, used)
            state = self._module_state_in(call, summary)
            if state:
                base = evolve(base, carries=base.carries | state)
            self._module_state_out(call, summary, base)
            if frozen is not None and self.mode.enabled is True and base.grad is Grad.UNTRACKED:
                return _restamp(summary.returned, _frozen_output(base, frozen), GRAD_OFF_FROZEN)
            output = _restamp(summary.returned, base, self.mode)
            if output.kind is Kind.TENSOR and summary.returned.kind is Kind.TENSOR:
                # Shape facts of `forward` hold for any input: its parameters are unknown there.
                output = evolve(output, shape=summary.returned.shape)
                if summary.returned.activation is not None and not _layers_replaced(
                    self.module.tree, forward
                ):
                    # So does the activation it ends with, unless a layer it runs may be
                    # swapped from outside (`model.fc = nn.Identity()`).
                    output = evolve(output, activation=summary.returned.activation)
            fresh = SavedNode(call, Saves.OTHER)
            output = _with_call_graph(output, summary.returned, fresh, summary, base.graph)
            if summary.returned.graph and output.grad is Grad.TRACKED:
                self._result_changed_in_place(fresh, summary)
            return output
        self.taint_arguments(call)
        return UNKNOWN

    def _record_loss_input(self, call: ast.Call, loss: str, args: list[Value]) -> None:
        """`criterion(out, y)`, `F.cross_entropy(input=out, target=y)`: the value a loss
        takes as `input`, for the rules about logits and probabilities."""
        if any(isinstance(a, ast.Starred) for a in call.args):
            return
        target = call.args[0] if call.args else None
        value = args[0] if call.args and args else None
        for index, kw in enumerate(call.keywords):
            if kw.arg == "input" and target is None:
                target, value = kw.value, args[len(call.args) + index]
        if target is not None and value is not None:
            self.record_use("loss-input", loss, call, target, value)

    def _forget_activation(self, target: ast.expr) -> None:
        """`target` was changed in place: whatever activation made it is no longer certain."""
        key = dotted(target)
        if key is not None and self.env is not None and key in self.env:
            self.env[key] = activations.cleared(self.env[key])

    def _note_module_inputs(
        self, call: ast.Call, module: ModuleRef, owns_graph: bool, args: list[Value]
    ) -> None:
        """Inference tensors a torch.nn module would save for backward (see GG106)."""
        name = (module.qualified or "").rsplit(".", 1)[-1]
        if name in api.SAVES_OPERANDS_MODULES:
            self.note_saved_operands(call, module.qualified or name, call.args, args)
            return
        saves = module.saves_input or name in api.SAVES_INPUT_MODULES
        if not (saves and owns_graph and call.args and args and self.mode.enabled is True):
            return
        first = call.args[0]
        if args[0].inference and not isinstance(first, ast.Starred):
            parameters = Value(grad=Grad.TRACKED, kind=Kind.MODULE, module=module)
            self.record_use(
                "inference-saved", module.qualified or name, call, first, args[0], parameters
            )

    def _state_carried_across_calls(self, method: FunctionNode, summary: FunctionSummary) -> None:
        """A method called on every iteration of a loop (`trainer.train_batch(x)`), seen
        from that loop.

        Its backward calls that run on every call of it make the loop a training loop; the
        ones that run through state the previous call left on `self`, without a detach in
        between, reach into the previous call's graph. Both are recorded in
        `ModuleAnalysis.backward_in_calls`, their value carrying that state from one call
        to the next. A total it keeps on `self` (`self.running_loss += loss`) is an
        accumulation carried by the loop (`ModuleAnalysis.uses`).
        """
        loops = self.every_iteration()
        if not self.record or not loops:
            return
        analysis = self.module.analysis
        inside = [event for event in analysis.backward_calls if event.function is method]
        for loop in loops:
            for event in inside:
                if not event.loops and _runs_on_every_call(analysis, event.stmt, method):
                    analysis.backward_in_calls.append(
                        _seen_from_loops(event, frozenset(), frozenset({loop}))
                    )
        for attr, (read, tag) in summary.state_reads.items():
            written = summary.state_writes.get(attr)
            if written is None or tag not in written.all_carries():
                continue
            if written.origin is None or not written.holds_history():
                continue
            for loop in loops:
                carry = Carry(f"self.{attr}", loop, written.origin, written, None)
                for event in inside:
                    if tag not in event.value.all_carries():
                        continue
                    analysis.carry_reads.setdefault(carry, []).append(read)
                    analysis.backward_in_calls.append(
                        _seen_from_loops(event, frozenset({carry}), frozenset({loop}))
                    )
                for use in list(analysis.uses):
                    if use.kind != "accumulate" or use.function is not method:
                        continue
                    if dotted(use.target) != f"self.{attr}" or tag not in use.value.carries:
                        continue
                    if not use.every_iteration and not _runs_on_every_call(
                        analysis, use.stmt, method
                    ):
                        continue
                    analysis.uses.append(
                        dataclasses.replace(
                            use,
                            value=evolve(use.value, carries=frozenset({carry})),
                            every_iteration=frozenset({loop}),
                        )
                    )

    def _called_under_mode(self, function: FunctionNode, call: ast.Call, result: Value) -> Value:
        """A function of the file called with gradient recording certainly off computes
        without recording too, unless it switches recording back on itself."""
        off = self.mode.off
        if self.mode.enabled is not False or off is None or _may_enable_grad(function):
            return result
        return _restamp(result, self.tensor_op(call, []), self.mode)

    def _result_changed_in_place(self, fresh: SavedNode, summary: FunctionSummary) -> None:
        """The call's own graph node stands for the callee's: when the callee changed in place
        a tensor its result's graph saved, the node is changed here too, and each such
        change is recorded again as saved by it (so a backward here is paired with it)."""
        if not summary.changed_in_result:
            return
        freed, modified = self._graph_state()
        self._set_graph_state(freed, modified | {fresh})
        if self.record:
            for change in summary.changed_in_result:
                self.module.analysis.inplace_on_saved.append(
                    dataclasses.replace(change, saved_by=change.saved_by | {fresh})
                )

    def _params_carried_across_calls(
        self,
        function: FunctionNode,
        summary: FunctionSummary,
        call: ast.Call,
        args: list[Value],
        *,
        skip_self: bool = False,
    ) -> None:
        """`hidden = step(model, x, hidden)` on every iteration of a loop, where `step`
        backpropagates through the `hidden` it is given: the state this call returns is the
        next call's argument, so each backward reaches into the previous call's graph.

        Recorded in `ModuleAnalysis.backward_in_calls`: the function's backward calls that
        run through the parameter, carrying the caller's loop-carried argument.
        """
        loops = self.every_iteration()
        if not self.record or not loops or not summary.param_tags:
            return
        passed = passed_arguments(function, call, args, skip_self=skip_self) or {}
        analysis = self.module.analysis
        inside = [event for event in analysis.backward_calls if event.function is function]
        for name, value in passed.items():
            tag = summary.param_tags.get(name)
            carried = frozenset(c for c in value.all_carries() if c.loop in loops)
            if tag is None or not carried:
                continue
            for event in inside:
                if tag in event.value.all_carries():
                    analysis.backward_in_calls.append(_seen_from_loops(event, carried, loops))

    def _module_state_in(self, call: ast.Call, summary: FunctionSummary) -> frozenset[Carry]:
        """State that `forward` reads from `self`, as the caller sees it (`model.hidden`)."""
        owner = dotted(call.func)
        if owner is None:
            return frozenset()
        flowing = summary.returned.all_carries()
        for written in summary.state_writes.values():
            flowing |= written.all_carries()
        carries: frozenset[Carry] = frozenset()
        for attr, (node, tag) in summary.state_reads.items():
            if attr in summary.state_writes and tag in flowing:
                carries |= self.lookup(f"{owner}.{attr}", node).all_carries()
        return carries

    def _module_state_out(self, call: ast.Call, summary: FunctionSummary, base: Value) -> None:
        """State that `forward` leaves on `self`, bound in the caller as `model.hidden`."""
        owner = dotted(call.func)
        if owner is None:
            return
        for attr, value in summary.state_writes.items():
            stamped = _restamp(value, base, self.mode)
            key = f"{owner}.{attr}"
            if self.env is not None:
                self._note_attribute(key)
                self.env[key] = evolve(stamped, origin=value.origin)

    def taint_arguments(self, call: ast.Call) -> None:
        """Arguments handed to code we cannot see may be detached in place: forget their
        loop-carried history (a helper such as `repackage_hidden(h)` counts as a detach)."""
        if self.record:
            self.module.analysis.opaque_calls.append(call)
            if self._hands_over_training_state(call):
                self.module.analysis.opaque_with_training_state.add(id(call))
        if self.env is None:
            return
        for arg in (*call.args, *(kw.value for kw in call.keywords)):
            expr = arg.value if isinstance(arg, ast.Starred) else arg
            key = dotted(expr)
            if key is not None and key in self.env:
                self.env[key] = self.env[key].without_carries()
                self._forget_parameter_facts(key)
            elif isinstance(expr, ast.Tuple | ast.List):
                for element in expr.elts:
                    element_key = dotted(element)
                    if element_key is not None and element_key in self.env:
                        self.env[element_key] = self.env[element_key].without_carries()

    def _hands_over_training_state(self, call: ast.Call) -> bool:
        """True when code we cannot see is given a model, an optimizer, a parameter, `self`
        or a function: something through which it may clear or use gradients."""
        exprs = [*call.args, *(kw.value for kw in call.keywords)]
        if isinstance(call.func, ast.Attribute):
            exprs.append(call.func.value)
        if any(kw.arg is None for kw in call.keywords):
            return True
        for expr in exprs:
            inner = expr.value if isinstance(expr, ast.Starred) else expr
            if isinstance(inner, ast.Name) and inner.id == "self":
                return True
            if isinstance(inner, ast.Lambda):
                return True
            key = dotted(inner)
            value = self.lookup(key) if key is not None else UNKNOWN
            if value.kind in (Kind.MODULE, Kind.FUNCTION, Kind.INSTANCE) or is_optimizer(value):
                return True
            if value.kind is Kind.TENSOR and value.leaf and value.grad is Grad.TRACKED:
                return True  # a parameter itself
            if (
                isinstance(inner, ast.Call)
                and isinstance(inner.func, ast.Attribute)
                and inner.func.attr in ("parameters", "named_parameters")
            ):
                return True
        return False

    def _forget_parameter_facts(self, key: str) -> None:
        """Code we cannot see got `key`: a module may be unfrozen, an optimizer extended."""
        if self.env is None:
            return
        value = self.env[key]
        if value.frozen is not None:
            self._unfreeze(value.module)
        if value.optimizes is not None:
            self.env[key] = evolve(value, optimizes=None)

    def _forget_below(self, key: str) -> None:
        # Only names that ever had an attribute bound can have keys below them: this keeps
        # binding linear in files with thousands of assignments.
        if self.env is None or key not in self.attribute_roots:
            return
        prefix = key + "."
        for existing in [k for k in self.env if k.startswith(prefix)]:
            del self.env[existing]

    def record_use(
        self,
        kind: UseKind,
        name: str,
        node: ast.AST,
        target: ast.expr,
        value: Value,
        added: Value | None = None,
    ) -> None:
        """Remember an operation on a known value for the rules (see `ValueUse`)."""
        if not self.record or self.stmt is None:
            return
        self.module.analysis.uses.append(
            ValueUse(
                kind,
                name,
                node,
                self.stmt,
                target,
                value,
                self.mode.enabled,
                self.function,
                self.every_iteration(),
                added,
            )
        )

    def record_backward(
        self,
        call: ast.Call,
        target: ast.expr,
        value: Value,
        via: str,
        frees: bool,
        through_freed: frozenset[SavedNode],
        through_modified: frozenset[SavedNode],
    ) -> None:
        """Remember a backward()/autograd.grad() call for the rules."""
        if not self.record or self.stmt is None:
            return
        loops = tuple(node for kind, node in self.frames if kind == "loop")
        self.module.analysis.backward_calls.append(
            BackwardCall(
                call=call,
                stmt=self.stmt,
                target=target,
                value=value,
                via=via,
                loops=loops,  # type: ignore[arg-type]
                every_iteration=self.every_iteration(),
                retain_graph=self._keyword(call, "retain_graph"),
                function=self.function,
                frees_graph=frees,
                through_freed=through_freed,
                through_modified=through_modified,
            )
        )


def _assignment_targets(body: list[ast.stmt]) -> Iterator[ast.expr]:
    """Every assignment target in a block and its nested blocks (not nested functions)."""
    stack = list(reversed(body))
    while stack:
        stmt = stack.pop()
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        targets: list[ast.expr] = []
        if isinstance(stmt, ast.Assign):
            targets = list(stmt.targets)
        elif isinstance(stmt, ast.AugAssign | ast.AnnAssign | ast.For | ast.AsyncFor):
            targets = [stmt.target]
        elif isinstance(stmt, ast.With | ast.AsyncWith):
            targets = [i.optional_vars for i in stmt.items if i.optional_vars is not None]
        while targets:
            target = targets.pop()
            if isinstance(target, ast.Tuple | ast.List):
                targets.extend(target.elts)
            elif isinstance(target, ast.Starred):
                targets.append(target.value)
            else:
                yield target
        for name in ("finalbody", "orelse", "body"):
            block = getattr(stmt, name, None)
            if isinstance(block, list):
                stack.extend(reversed(block))
        for handler in getattr(stmt, "handlers", ()):
            stack.extend(reversed(handler.body))


def _walrus_targets(tree: ast.Module) -> frozenset[str]:
    return frozenset(
        node.target.id
        for node in ast.walk(tree)
        if isinstance(node, ast.NamedExpr) and isinstance(node.target, ast.Name)
    )


def _is_true(expr: ast.expr) -> bool:
    return isinstance(expr, ast.Constant) and bool(expr.value) is True


def _handlers(prefix: str) -> dict[type, Any]:
    """Dispatch tables for `FunctionInterpreter`: node type -> unbound handler method."""
    table: dict[type, Any] = {}
    for name in dir(FunctionInterpreter):
        if name.startswith(prefix):
            node_type = getattr(ast, name[len(prefix) :], None)
            if isinstance(node_type, type):
                table[node_type] = getattr(FunctionInterpreter, name)
    return table


def _unpacked_layers(call: ast.Call, args: list[Value]) -> list[Value] | None:
    """`nn.Sequential(*block(...), nn.Linear(...))`: the layers, with each unpacked list
    standing for its items; None when no argument is unpacked (or one cannot be)."""
    if not any(isinstance(a, ast.Starred) for a in call.args) or call.keywords:
        return None
    layers: list[Value] = []
    for expr, value in zip(call.args, args, strict=False):
        if not isinstance(expr, ast.Starred):
            layers.append(value)
        elif value.elements is not None:
            layers.extend(value.elements)
        elif value.items is not None:
            layers.append(value.items)
        else:
            layers.append(UNKNOWN)
    return layers


def _sequential_kind(layers: list[Value]) -> api.ModuleKind | None:
    """An `nn.Sequential` of known tensor-to-tensor layers is itself one."""
    has_parameters = False
    for layer in layers:
        ref = layer.module
        kind = api.nn_module_kind(ref.qualified) if ref and ref.qualified else None
        if ref is not None and ref.kind is not None:
            kind = ref.kind
        if layer.kind is not Kind.MODULE or kind is None or kind.output != "tensor":
            return None
        has_parameters = has_parameters or kind.has_parameters
    return api.ModuleKind(has_parameters, "tensor") if layers else None


def _calls_on_self(method: FunctionNode) -> bool:
    """True when a method calls methods of its own object (whose effects it may inherit)."""
    return any(
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "self"
        for node in ast.walk(method)
    )


@cached_by_node
def _rebound_attributes(tree: ast.Module) -> frozenset[str]:
    """Attribute names the file may rebind outside an `__init__` (`model.fc = ...`,
    `self.head = ...` in another method, `model.head[-1] = ...`); "*" when it calls
    `setattr`, which may rebind any."""
    names: set[str] = set()
    inits = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "__init__"]
    in_init = {id(n) for init in inits for n in ast.walk(init)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            names.update({"*"} if node.func.id == "setattr" else set())
        if id(node) in in_init:
            continue
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store | ast.Del):
            names.add(node.attr)
        elif (
            isinstance(node, ast.Subscript)
            and isinstance(node.ctx, ast.Store | ast.Del)
            and isinstance(node.value, ast.Attribute)
        ):
            names.add(node.value.attr)
    return frozenset(names)


def _layers_replaced(tree: ast.Module, forward: FunctionNode) -> bool:
    """Whether a layer `forward` runs (`self.<attr>`) may be swapped after `__init__`."""
    rebound = _rebound_attributes(tree)
    return "*" in rebound or bool(rebound & _self_attributes(forward))


def _self_attributes(method: FunctionNode) -> set[str]:
    """Every `self.<attr>` a method mentions, read or written."""
    return {
        node.attr
        for node in ast.walk(method)
        if isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "self"
    }


def is_optimizer(value: Value) -> bool:
    """True for an optimizer constructed from `torch.optim` in this file."""
    qualified = value.module.qualified if value.module is not None else None
    return qualified is not None and qualified.startswith("torch.optim.")


def _local_method(receiver: Value, name: str) -> FunctionNode | None:
    info = receiver.instance_of or (receiver.module.local if receiver.module else None)
    if info is None:
        return None
    for stmt in info.node.body:
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef) and stmt.name == name:
            return stmt
    return None


def _shape_of(value: Value) -> shapes.Shape:
    """A value's shape as an operand: Python numbers broadcast like 0-dim tensors."""
    if value.kind is Kind.TENSOR:
        return value.shape
    if value.kind is Kind.SCALAR:
        return shapes.SCALAR_SHAPE
    return shapes.UNKNOWN_SHAPE


# `_restamp` with this mode keeps the base value for every tensor the forward returns.
GRAD_OFF_FROZEN = GradMode(False)


def _frozen_output(base: Value, frozen: params.Freeze) -> Value:
    """What a frozen module computes from inputs that do not require grad: no history."""
    loss = Loss(LossKind.FROZEN, frozen.node, frozen.description)
    return Value(grad=Grad.UNTRACKED, kind=Kind.TENSOR, loss=loss, carries=base.carries)


def _parameter_leaf(value: Value) -> bool:
    """A leaf tensor that requires grad (`w = torch.randn(3, requires_grad=True)`)."""
    return value.kind is Kind.TENSOR and value.leaf and value.grad is Grad.TRACKED


# `w.requires_grad = ...`, `w.requires_grad_(...)`, `w.data = ...`: what makes a module-level
# leaf's facts uncertain inside functions.
# (A pattern starting with a literal: one starting with `\w+` makes `re` try every offset.)
_GRAD_STATE_CHANGE = re.compile(r"\.\s*(?:requires_grad\s*=[^=]|requires_grad_\s*\(|data\s*=[^=])")
_NAME_BEFORE = re.compile(r"(\w+)\s*$")


def _grad_state_changed(text: str | None) -> frozenset[str] | None:
    """Names whose requires_grad or data some statement of the file may change (None: no
    text to tell)."""
    if text is None:
        return None
    names: set[str] = set()
    for match in _GRAD_STATE_CHANGE.finditer(text):
        before = _NAME_BEFORE.search(text, max(0, match.start() - 80), match.start())
        if before is not None:
            names.add(before.group(1))
    return frozenset(names)


_ENABLES_GRAD = frozenset({"enable_grad", "set_grad_enabled", "inference_mode"})


@cached_by_node
def _may_enable_grad(function: FunctionNode) -> bool:
    """True when the function may switch gradient recording on itself (`torch.enable_grad()`,
    `set_grad_enabled(...)`, `inference_mode(False)`; any mention counts). Code it calls is
    not searched: a helper run under no_grad that reaches such code through another call is
    a residual risk, documented in GG101."""
    for node in ast.walk(function):
        name = node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", None)
        if name in _ENABLES_GRAD:
            return True
    return False


def _with_call_graph(
    output: Value,
    returned: Value,
    fresh: SavedNode,
    summary: FunctionSummary,
    inputs: frozenset[SavedNode],
) -> Value:
    """A local module's output with the graph of this call: each call builds its own graph,
    so one fresh node stands for the forward's, behind the inputs' own graph when the result
    is computed from them on every path. Elements of a returned tuple get the same."""
    if returned.elements is not None and output.elements is not None:
        if len(returned.elements) != len(output.elements):
            return output
        elements = tuple(
            _with_call_graph(out, ret, fresh, summary, inputs)
            for out, ret in zip(output.elements, returned.elements, strict=True)
        )
        return evolve(output, elements=elements)
    if not returned.graph or output.grad is not Grad.TRACKED:
        return output
    graph = frozenset({fresh})
    if any(node in returned.graph for node in summary.input_nodes.values()):
        graph |= inputs
    return evolve(output, graph=graph)


def _seen_from_loops(
    event: BackwardCall, carries: frozenset[Carry], loops: frozenset[LoopNode]
) -> BackwardCall:
    """A backward call inside a function, as seen from the loops that call the function on
    every iteration: its value carries `carries` (state crossing from call to call)."""
    return dataclasses.replace(
        event,
        value=evolve(event.value, carries=carries),
        loops=tuple(loops),
        every_iteration=loops,
    )


def _runs_on_every_call(analysis: ModuleAnalysis, stmt: ast.stmt, function: FunctionNode) -> bool:
    """True when `stmt` sits directly in the body of `function` (no branch, loop or `try`
    around it), so every call that returns normally runs it."""
    owner, _ = analysis.block_of(stmt)
    return owner is function


def _with_item(sequence: Value, item: Value) -> Value:
    """A list after `append(item)`: every element is at most the join of what it held."""
    if sequence.elements is None and sequence.items is None:
        return sequence  # what it held is unknown: so is what it holds now
    held = sequence.items
    for element in sequence.elements or ():
        held = join(held, element) if held is not None else element
    joined = join(held, item) if held is not None else item
    return Value(
        kind=Kind.SEQUENCE,
        items=joined.with_origin(None),
        carries=sequence.carries,
        origin=sequence.origin,
    )


def _plain(value: Value) -> bool:
    """A constructor argument that cannot bring parameters or tensors in: numbers, strings,
    None, and tuples or lists of them."""
    if value.kind is Kind.SEQUENCE and value.elements is not None:
        return all(_plain(e) for e in value.elements)
    if value.kind is Kind.OTHER:
        # Literal strings and conversions say why they are not tensors; other "other"
        # values (imported names, `model.parameters()`, builtins' results) may hold anything.
        return value.loss is not None and value.module is None
    return value.kind in (Kind.SCALAR, Kind.NONE)


def _shaped(spec: object, leaf: Value) -> Value:
    """Build a value with the nested tuple structure `spec` whose leaves are `leaf`."""
    if isinstance(spec, tuple):
        return Value(kind=Kind.SEQUENCE, elements=tuple(_shaped(s, leaf) for s in spec))
    return leaf


def _instantiate(value: Value, call: ast.Call) -> Value:
    """A function's returned value as one call sees it: the graph nodes of the function's
    own analysis stand for one fresh node of this call (two calls build two graphs)."""
    if value.elements is not None:
        elements = tuple(_instantiate(e, call) for e in value.elements)
        return evolve(value, elements=elements, graph=frozenset(), saved_in=frozenset())
    if not value.graph and not value.saved_in:
        return value
    graph = frozenset({SavedNode(call, Saves.OTHER)}) if value.graph else frozenset()
    return evolve(value, graph=graph, saved_in=frozenset())


def _restamp(summary: Value, base: Value, mode: GradMode) -> Value:
    """A local module's output: the structure its `forward` returns, with each tensor leaf
    re-evaluated for this call (grad mode, the call's own loop-carried inputs)."""
    if summary.elements is not None:
        return Value(
            kind=summary.kind,
            elements=tuple(_restamp(e, base, mode) for e in summary.elements),
            fields=summary.fields,
        )
    if summary.kind is not Kind.TENSOR:
        return evolve(UNKNOWN, carries=base.carries)
    if mode.enabled is False:
        return base
    if summary.grad is Grad.UNTRACKED and summary.loss is not None:
        # Cut inside `forward` whatever its inputs are (a `@torch.no_grad()` forward, a
        # `.detach()` on the way out): the caller's output has no history either.
        return evolve(summary, carries=base.carries, origin=None)
    if summary.grad is Grad.TRACKED and mode.enabled:
        return Value(grad=Grad.TRACKED, kind=Kind.TENSOR, carries=base.carries)
    return Value(grad=Grad.UNKNOWN, kind=Kind.TENSOR, carries=base.carries)


@cached_by_node
def _names_read(function: FunctionNode) -> frozenset[str]:
    """Every name the function (nested code included) reads."""
    return frozenset(
        n.id for n in ast.walk(function) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
    )


def _used_arguments(forward: FunctionNode, call: ast.Call, args: list[Value]) -> list[Value]:
    """The argument values whose matching `forward` parameter is actually read."""
    params = [p.arg for p in (*forward.args.posonlyargs, *forward.args.args)][1:]
    read = _names_read(forward)
    if forward.args.vararg is not None or forward.args.kwarg is not None:
        return args
    used: list[Value] = []
    for index, value in enumerate(args[: len(call.args)]):
        if index >= len(params) or params[index] in read:
            used.append(value)
    for kw, value in zip(call.keywords, args[len(call.args) :], strict=False):
        if kw.arg is None or kw.arg in read:
            used.append(value)
    return used


_EXPR_HANDLERS = _handlers("_expr_")
_STMT_HANDLERS = _handlers("_stmt_")


def _with_field(base: Value, key: ast.expr, value: Value) -> Value | None:
    """A dict with known string keys after `base[key] = value`; None when `key` is not a
    string constant or the keys of `base` are not known."""
    if base.kind is not Kind.MAPPING or base.fields is None or base.elements is None:
        return None
    if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
        return None
    fields, elements = list(base.fields), list(base.elements)
    if key.value in fields:
        elements[fields.index(key.value)] = value
    else:
        fields.append(key.value)
        elements.append(value)
    return Value(kind=Kind.MAPPING, elements=tuple(elements), fields=tuple(fields))


# Methods of dicts and lists that change their contents.
_CONTAINER_MUTATORS = frozenset(
    {"append", "extend", "insert", "pop", "popitem", "remove", "clear", "update", "setdefault"}
    | {"__setitem__", "__delitem__", "reverse", "sort"}
)


def _containers_changed(tree: ast.Module, init: FunctionNode) -> frozenset[str]:
    """Attribute names whose container may be changed after `__init__`: an item stored,
    deleted or changed through a method (`x.models["a"] = ...`, `x.layers.append(...)`)
    anywhere in the file, on any receiver (the receiver's type is not known everywhere),
    but the key-by-key filling by statements of `__init__` itself."""
    filling = {
        id(stmt.targets[0])
        for stmt in init.body
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
    }
    return frozenset(attr for attr, node in _container_changes(tree) if id(node) not in filling)


@cached_by_node
def _container_changes(tree: ast.Module) -> tuple[tuple[str, ast.AST], ...]:
    """Every place the file may change a container held in an attribute, by attribute name
    (a keyed store by a string constant is listed with its Subscript node)."""
    changes: list[tuple[str, ast.AST]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store | ast.Del):
            if isinstance(node.value, ast.Attribute):
                keyed = isinstance(node.ctx, ast.Store) and _constant_key(node)
                changes.append((node.value.attr, node if keyed else tree))
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Attribute):
            changes.append((node.target.attr, tree))
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in _CONTAINER_MUTATORS
            and isinstance(node.func.value, ast.Attribute)
        ):
            changes.append((node.func.value.attr, tree))
    return tuple(changes)


def _constant_key(node: ast.Subscript) -> bool:
    return isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str)
