"""The bottom layer of the interpreter: the environment, reads of loop-carried values,
control-flow frames and the events recorded for rules."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any, ClassVar

from gradguard.analysis.events import Event, InferenceSaved, Site
from gradguard.analysis.graph import GRAPH_STATE_KEY, SavedNode, Saves
from gradguard.analysis.graph_inputs import own_nodes
from gradguard.analysis.imports import Scope
from gradguard.analysis.interpreter.environment import GRAD_ON, Env, Frame, LoopFrame, join_envs
from gradguard.analysis.loop_passes import Passes
from gradguard.analysis.model import BackwardCall, FunctionNode, InPlaceOnSaved, LoopNode
from gradguard.analysis.names import kept_parameters, passed_keyword
from gradguard.analysis.parameters import Freeze, ReplacedAttribute
from gradguard.analysis.values import (
    UNKNOWN,
    Carry,
    ClassInfo,
    Kind,
    Value,
)

if TYPE_CHECKING:
    from gradguard.analysis.interpreter.module import ModuleInterpreter

# The environment key under which a method keeps the graph `self.<attr>` had before a call
# of another method made the attribute unknown (`TrainingEffects.backward_across_methods`).
STATE_GRAPH_PREFIX = "%state:"


class InterpreterState:
    """What every layer shares: the environment, the grad mode, the frames of enclosing loops
    and conditions, and the recording of events (`gradguard.analysis.events`) into the
    module's analysis."""

    # Dispatch tables of each concrete interpreter class: node type -> unbound handler
    # (`_expr_Name`, `_stmt_If`...), built once per class instead of a `getattr` per node.
    expr_handlers: ClassVar[dict[type, Any]] = {}
    stmt_handlers: ClassVar[dict[type, Any]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.expr_handlers = _handlers(cls, "_expr_")
        cls.stmt_handlers = _handlers(cls, "_stmt_")

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
        # Kinds of events a run that records nothing else still reports: the facts of one
        # call's arguments (see `ModuleInterpreter.result_in_context`).
        self.events_in_context: frozenset[type[Event]] = frozenset()
        # The call this run is in the context of (None: the recorded pass); see `Event`.
        self.context: ast.Call | None = None
        # Inside a pass run for one known element of a loop (`element_passes`): statements
        # whose outcome on that pass is not known end it.
        self.in_element_pass = False
        # Which run of a helper inside a run in context this is (0: any other pass; see
        # `CheckpointInput.run`).
        self.run_number = 0
        # What this run in context found saved for backward while an inference tensor: the
        # caller reports those of its own arguments (see `context_runs.ContextRun`).
        self.inference_saved: list[InferenceSaved] = []
        # A method run on one instance's view of its class (see `instance_state`), and the
        # in-place changes of saved tensors such a run keeps for its summary (it records
        # nothing in the analysis).
        self.self_view: ClassInfo | None = None
        self.kept_changes: list[InPlaceOnSaved] | None = None
        self.env: Env | None = {}
        self.mode = GRAD_ON
        self.returned: Value | None = None
        self.frames: list[tuple[str, ast.AST]] = []  # ("loop"|"cond", node), innermost last
        self.loops: list[LoopFrame] = []
        # `for` loops whose body certainly runs at least once (see `loop_entry`).
        self.entered_loops: set[ast.AST] = set()
        # `for` loops over known numbers whose every pass runs the whole body, and the
        # graph nodes whose saved tensors a branch taken on some pass of one certainly
        # changed earlier in the current pass (see `loop_passes`).
        self.loop_passes: dict[ast.AST, Passes] = {}
        self.changed_on_some_pass: dict[ast.AST, frozenset[SavedNode]] = {}
        self.stmt: ast.stmt | None = None
        # The statement run just before `stmt` in the same block (None at a block's start).
        self.stmt_before: ast.stmt | None = None
        # The value each carried name has at the top of an iteration, by id(carry): a read of
        # exactly that value reads the previous iteration's state.
        self.heads: dict[int, Value] = {}
        # `self.<attr>` read before this function assigned it: the state a previous call left.
        self.state_reads: dict[str, tuple[ast.expr, Carry]] = {}
        # What this function appends to `self.<attr>` lists, by attribute (joined).
        self.self_appends: dict[str, Value] = {}
        self.attribute_roots: set[str] = set()
        # A stand-in graph node per `self.<attr>` read as a previous call left it: the graph
        # it had then (see `state_graph`).
        self.state_stand_ins: dict[str, SavedNode] = {}
        # This function's backward calls whose graph runs through such state, with the
        # attributes (see `FunctionSummary.state_backwards`).
        self.state_backwards: list[tuple[BackwardCall, frozenset[str]]] = []
        # This function's backward calls that free their graph, with that graph (see
        # `frees_result`).
        self.freeing_backwards: list[tuple[ast.Call, frozenset[SavedNode]]] = []
        # This function's backward calls whose graph runs through what parameters bring,
        # with those parameters (see `FunctionSummary.param_backwards`).
        self.param_backwards: list[tuple[BackwardCall, frozenset[str]]] = []
        # Attributes of parameters given a new module with parameters (`model.fc = Linear()`
        # in `def load(model)`), by parameter (see `FunctionSummary.replaced_attributes`).
        self.replaced_attributes: dict[str, ReplacedAttribute] = {}
        self.exits: list[Env | None] = []
        self._exit_env: tuple[Env | None] | None = None  # see `exit_env`
        self._backpropagated: frozenset[str] | None = None
        self.input_nodes: dict[str, SavedNode] = {}
        self.param_tags: dict[str, Carry] = {}
        self._private: frozenset[str] | None = None
        # A LightningModule's `training_step`: the Trainer backpropagates what it returns.
        self.returns_loss_to_lightning = False

    @property
    def absent_is_unbound(self) -> bool:
        """Whether a plain name missing from the environment is unbound (see `join_env`):
        not where `from m import *` may have bound any name."""
        return not self.module.star_imports

    def settled(self, key: str) -> Value:
        """The value of a dotted key here, read as `_expr_Attribute` reads it when the key
        itself is not bound: through the known fields of a settings object and the
        attributes a class of the file keeps (`self.cfg.inner_steps` of a dataclass
        instance). Nothing is recorded: loop bounds and such are read with it."""
        parts = key.split(".")
        for length in range(len(parts), 0, -1):
            prefix = ".".join(parts[:length])
            if self.env is not None and (prefix in self.env or length == 1):
                value = self.lookup(prefix)
                break
        for attr in parts[length:]:
            if (
                value.kind in (Kind.SEQUENCE, Kind.MAPPING, Kind.INSTANCE)
                and value.fields is not None
                and value.elements is not None
                and attr in value.fields
            ):
                value = value.elements[value.fields.index(attr)]
                continue
            info = value.local_class
            if info is None or attr not in info.attributes or value.kind is Kind.CLASS:
                return UNKNOWN
            value = info.attributes[attr]
        return value

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

    def note_in_place_change(self, change: InPlaceOnSaved) -> None:
        """Remember an in-place change of saved tensors: for the rules when this run records,
        and for its summary when it keeps its changes (`kept_changes`)."""
        if self.kept_changes is not None:
            self.kept_changes.append(change)
        if self.record:
            self.module.analysis.inplace_on_saved.append(change)

    def exit_env(self) -> Env | None:
        """The environment on every way out of the run (its `return`s and the end of its
        body), joined once: asked only once the run is over, by each fact of the summary."""
        if self._exit_env is None:
            self._exit_env = (join_envs([*self.exits, self.env]),)
        return self._exit_env[0]

    def _exit_graph_state(self) -> Value | None:
        """The graph state (`GRAPH_STATE_KEY`) on every way out of the run."""
        exits = self.exit_env()
        return exits.get(GRAPH_STATE_KEY) if exits is not None else None

    def state_writes(self) -> dict[str, Value]:
        """`self.<attr>` values this function leaves behind, on every way out of it."""
        exits = self.exit_env()
        if exits is None or self.function is None:
            return {}
        return {
            key[5:]: value
            for key, value in exits.items()
            if key.startswith("self.") and key.count(".") == 1 and value.origin is not None
        }

    def modified_at_exit(self) -> frozenset[SavedNode]:
        """Graph nodes whose saved tensors the run changed in place, still changed on every
        way out of it."""
        marker = self._exit_graph_state()
        return marker.saved_in if marker is not None else frozenset()

    def freed_state(self) -> frozenset[str]:
        """`self` attributes whose graph, as this method found it, a backward certainly
        freed on every way out of it (see `state_graph`)."""
        marker = self._exit_graph_state()
        if marker is None:
            return frozenset()
        return frozenset(a for a, n in self.state_stand_ins.items() if n in marker.graph)

    def frees_result(self, returned: Value) -> tuple[ast.Call, ...]:
        """This function's backward calls that freed, on every way out of it, a graph node
        of its own that what it returns certainly runs through (`fake = netG(z)`, then
        `loss_d.backward()` through `netD(fake)`, then `return fake`): a backward through
        the result at the caller raises, as if the body were written there."""
        marker = self._exit_graph_state()
        if marker is None or not marker.graph:
            return ()
        parts = returned.elements if returned.elements is not None else (returned,)
        # A call's one node stands for the function's own nodes in every part of a tuple it
        # returns: each part running through some of them must run through a freed one.
        owned = [_certainly_saved(part.graph) for part in parts]
        freed = frozenset().union(*owned) & marker.graph
        if not freed or any(own and not own & freed for own in owned):
            return ()
        return tuple(call for call, graph in self.freeing_backwards if graph & freed)

    def frees_parameters(self) -> dict[str, tuple[ast.Call, ...]]:
        """Parameters whose stand-in a backward of this run freed on every way out of it,
        with the backward calls that ran through it (`def d_step(netD, fake): loss =
        bce(netD(fake), zeros); loss.backward()`). Graph nodes are must-facts: the stand-in
        in a freed graph means every way through computed the loss from the parameter with
        differentiable ops and backpropagated it without keeping the graph, so the graph
        the caller's argument had is freed after the call, as if the body were written
        there."""
        marker = self._exit_graph_state()
        if marker is None or not marker.graph:
            return {}
        found: dict[str, tuple[ast.Call, ...]] = {}
        for name, stand_in in self.input_nodes.items():
            if stand_in not in marker.graph:
                continue
            calls = tuple(call for call, graph in self.freeing_backwards if stand_in in graph)
            if calls:
                found[name] = calls
        return found

    def frozen_parameters(self) -> dict[str, Freeze]:
        """Parameters whose module this function froze whole on every way out of it, by name,
        with the freeze (`model.requires_grad_(False)` in `def freeze(model)`): the caller's
        argument is that module; and layers of them so frozen, by dotted key
        (`model.embeddings`). Only parameters nothing in the function rebinds."""
        if not self.module.frozen_facts or self.function is None:
            return {}  # no certain freeze anywhere in the file
        exits = [env for env in (*self.exits, self.env) if env is not None]
        found: dict[str, Freeze] = {}
        kept = kept_parameters(self.function) if exits else frozenset()
        # A layer of a parameter, frozen whole (`model.embeddings.requires_grad_(False)`,
        # `self.backbone` in a `freeze_backbone(self)` method): the argument's layer is.
        layers = {k for env in exits for k, v in env.items() if v.frozen is not None and "." in k}
        for name in [*kept, *sorted(k for k in layers if k.split(".", 1)[0] in kept)]:
            # As a join of the exits would keep it: the very same freeze on every one.
            freezes = {id(v.frozen): v.frozen for env in exits if (v := env.get(name))}
            frozen = next(iter(freezes.values())) if len(freezes) == 1 else None
            held = all(name in env for env in exits)
            if frozen is not None and held:
                found[name] = frozen
        return found

    def unshadowed(self, name: str) -> bool:
        """Whether `name` still means the builtin of that name here: nothing in this
        function, the module's globals or an enclosing scope binds it."""
        if self.env is not None and name in self.env:
            return False
        if name in self.module.globals:
            return False
        scope: Scope | None = self.scope
        while scope is not None:
            if scope.is_bound_locally(name):
                return False
            scope = scope.parent
        return True

    def _bound_here(self, name: str) -> bool:
        return self.function is not None and self.scope.is_bound_locally(name)

    def bind_key(self, key: str, value: Value) -> None:
        """Bind `key`, forgetting what was known about attributes below it."""
        if self.env is None:
            return
        self.env.pop(STATE_GRAPH_PREFIX + key, None)
        self._forget_below(key)
        self._note_attribute(key)
        self.env[key] = value.with_origin(self.stmt)

    def bind_handed_layer(self, key: str, value: Value) -> None:
        """Bind the layer `key` of a parameter (`net.body`, `self.embeddings`) to what the
        caller's argument holds there, before the body runs: rebinding the parameter then
        forgets it, as it forgets any attribute bound below it."""
        if self.env is None:
            return
        self._note_attribute(key)
        self.env[key] = value

    def _note_attribute(self, key: str) -> None:
        """Remember the roots of a dotted key (`self`, `self.model` for `self.model.h`)."""
        parts = key.split(".")
        for end in range(1, len(parts)):
            self.attribute_roots.add(".".join(parts[:end]))

    def _frame(self, kind: str, node: ast.AST) -> Frame:
        return Frame(self.frames, (kind, node))

    def every_iteration(self) -> frozenset[LoopNode]:
        """Loops whose every iteration reaches the current point."""
        loops: set[LoopNode] = set()
        for kind, node in reversed(self.frames):
            if kind == "cond":
                break
            assert isinstance(node, ast.For | ast.AsyncFor | ast.While)
            loops.add(node)
            if node not in self.entered_loops:
                break  # an inner loop may run zero times: outer loops are not guaranteed
        return frozenset(loops)

    def _flag_keyword(self, call: ast.Call, name: str) -> bool:
        """True when `name=` is passed with a value other than a literal False/None."""
        keyword = passed_keyword(call, name)
        return keyword is not None and not (
            isinstance(keyword.value, ast.Constant) and keyword.value.value in (False, None)
        )

    def _forget_below(self, key: str) -> None:
        # Only names that ever had an attribute bound can have keys below them: this keeps
        # binding linear in files with thousands of assignments.
        if self.env is None or key not in self.attribute_roots:
            return
        prefix = key + "."
        for existing in [k for k in self.env if k.startswith(prefix)]:
            del self.env[existing]

    def state_read(self, attr: str, read: ast.expr) -> Carry:
        """The tag of `self.<attr>` as a previous call left it (the first read of it in this
        function is the one kept; see `FunctionSummary.state_reads`)."""
        _, tag = self.state_reads.setdefault(
            attr, (read, Carry(f"self.{attr}", None, None, UNKNOWN, None))
        )
        return tag

    def state_graph(self, attr: str) -> frozenset[SavedNode]:
        """The stand-in for the graph `self.<attr>` had when this method was called. Like a
        parameter's stand-in it is no graph of its own (nothing is known to have been
        saved); a backward through it frees that graph, whatever it was, which a caller
        that knows the graph can tell (`FunctionSummary.frees_state`)."""
        node = self.state_stand_ins.get(attr)
        if node is None:
            node = SavedNode(ast.arg(arg=f"self.{attr}"), Saves.OTHER)
            self.state_stand_ins[attr] = node
        return frozenset({node})

    def site(self, node: ast.AST, target: ast.expr, value: Value) -> Site | None:
        """The shared fields of an event at `node` on `value` (the expression `target`), or
        None when this pass records nothing: `if (site := self.site(...)) is not None:
        self.emit(Conversion("item", **site))`."""
        if not (self.record or self.events_in_context) or self.stmt is None:
            return None
        return Site(
            node=node,
            stmt=self.stmt,
            target=target,
            value=value,
            grad_enabled=self.mode.enabled,
            function=self.function,
            every_iteration=self.every_iteration(),
            context=self.context,
        )

    def emit(self, event: Event) -> None:
        """Remember an operation on a known value for the rules (see `ModuleAnalysis.events`)."""
        if self.record or type(event) in self.events_in_context:
            self.module.analysis.events.add(event)
        elif self.context is not None and isinstance(event, InferenceSaved):
            self.inference_saved.append(event)


def _handlers(cls: type, prefix: str) -> dict[type, Any]:
    """Handler methods of `cls` by the `ast` node type their name ends with."""
    table: dict[type, Any] = {}
    for name in dir(cls):
        if name.startswith(prefix):
            node_type = getattr(ast, name[len(prefix) :], None)
            if isinstance(node_type, type):
                table[node_type] = getattr(cls, name)
    return table


def _certainly_saved(graph: frozenset[SavedNode]) -> frozenset[SavedNode]:
    """The function's own operations in `graph` that certainly saved tensors: not a
    parameter's stand-in or the history an argument brought, nor an operation that saved
    only if an argument required grad."""
    return frozenset(n for n in own_nodes(graph) if not n.given and not n.brought)
