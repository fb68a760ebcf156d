"""Parameters and optimizers: freezing, replaced modules, what optimizers hold, and
the training state a method or helper carries from one call to the next."""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Callable, Iterator

from gradguard.analysis import parameters as params
from gradguard.analysis import set_attributes
from gradguard.analysis import torch_api as api
from gradguard.analysis.attribute_freezes import frozen_by_attribute, parameter_flag_set
from gradguard.analysis.bindings import sole_assignment
from gradguard.analysis.call_sites import keyword_argument, passed_arguments
from gradguard.analysis.events import (
    Accumulation,
    OptimizedTensor,
    StaleOptimizer,
)
from gradguard.analysis.graph import SavedNode, Saves
from gradguard.analysis.graph_inputs import own_nodes
from gradguard.analysis.interpreter.environment import UNSET, Env, GradMode
from gradguard.analysis.interpreter.graph_effects import GraphEffects
from gradguard.analysis.interpreter.held_state import ClassOf, state_held_across
from gradguard.analysis.interpreter.methods import class_methods, inherited_method
from gradguard.analysis.interpreter.state import STATE_GRAPH_PREFIX
from gradguard.analysis.interpreter.summary import (
    FunctionSummary,
    changed_self_attributes,
    rebound_tag,
    rebound_write,
)
from gradguard.analysis.model import (
    LIGHTNING_BACKWARD,
    BackwardCall,
    FunctionNode,
    LoopNode,
)
from gradguard.analysis.names import (
    callee_name,
    dotted,
    kept_parameters,
    parameter_names,
    passed_keyword,
)
from gradguard.analysis.parameter_names import LEAF_PARAMETERS
from gradguard.analysis.private_modules import private_names
from gradguard.analysis.values import (
    UNKNOWN,
    Carry,
    Grad,
    Kind,
    Loss,
    LossKind,
    ModuleRef,
    Value,
    evolve,
    forced_after_cut,
)
from gradguard.analysis.walk import own_nodes as walk_own
from gradguard.analysis.walk import statement_block, walk


def is_optimizer(value: Value) -> bool:
    """True for an optimizer constructed from `torch.optim` in this file."""
    qualified = value.module.qualified if value.module is not None else None
    return qualified is not None and qualified.startswith("torch.optim.")


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


def _runs_on_every_call(stmt: ast.stmt, function: FunctionNode) -> bool:
    """True when `stmt` sits directly in the body of `function` (no branch, loop or `try`
    around it), so every call that returns normally runs it."""
    return any(s is stmt for s in function.body)


def _backpropagates_on_every_path(body: list[ast.stmt], events: list[BackwardCall]) -> bool:
    """True when every path through `body` runs one of the backward calls `events` (each
    outside any loop of the function), or a `<tensor>.backward()` statement on a branch
    the callers may never take (the interpreter skips a branch narrowed away): a statement
    holding one directly, or an `if`/`else` both of whose branches do (recursively),
    reached with no `return`, `raise`, `break` or `continue` before it (a `try` or `with`
    around it is not followed)."""
    holding = {id(event.stmt) for event in events}
    for stmt in body:
        if id(stmt) in holding or _backward_statement(stmt):
            return True
        if (
            isinstance(stmt, ast.If)
            and stmt.orelse
            and _backpropagates_on_every_path(stmt.body, events)
            and _backpropagates_on_every_path(stmt.orelse, events)
        ):
            return True
        if any(isinstance(node, _LEAVES) for node in ast.walk(stmt)):
            return False  # some path may leave before the backward
    return False


def _backward_statement(stmt: ast.stmt) -> bool:
    """`<expr>.backward()` as a statement of its own, with no positional argument (a
    tensor's backward; `accelerator.backward(loss)` takes one)."""
    call = stmt.value if isinstance(stmt, ast.Expr) else None
    return (
        isinstance(call, ast.Call)
        and isinstance(call.func, ast.Attribute)
        and call.func.attr == "backward"
        and not call.args
    )


# Statements after which the rest of a block may not run.
_LEAVES = (ast.Return, ast.Raise, ast.Break, ast.Continue)


def _qualified(value: Value) -> str | None:
    return value.module.qualified if value.module is not None else None


def restamp(summary: Value, base: Value, mode: GradMode) -> Value:
    """A local module's output: the structure its `forward` returns, with each tensor leaf
    re-evaluated for this call (grad mode, the call's own loop-carried inputs)."""
    if summary.elements is not None:
        return Value(
            kind=summary.kind,
            elements=tuple(restamp(e, base, mode) for e in summary.elements),
            fields=summary.fields,
        )
    if summary.kind is Kind.SCALAR and summary.grad is Grad.UNTRACKED:
        # A Python number (`.item()`, `float(...)`): one on every call.
        return evolve(summary, carries=base.carries, origin=None)
    if summary.kind is Kind.OTHER and api.distribution_class(_qualified(summary)) is not None:
        # A torch.distributions object (`Categorical(logits=self.pi(h))`): one on every
        # call, whose parameters are computed as a tensor output is.
        parameters = restamp(evolve(summary, kind=Kind.TENSOR), base, mode)
        return evolve(parameters, kind=Kind.OTHER, module=summary.module)
    if summary.kind is not Kind.TENSOR:
        return evolve(UNKNOWN, carries=base.carries)
    if mode.enabled is False:
        return base
    if summary.grad is Grad.UNTRACKED and summary.loss is not None:
        # Cut inside `forward` whatever its inputs are (a `@torch.no_grad()` forward, a
        # `.detach()` on the way out): the caller's output has no history either.
        return evolve(summary, carries=base.carries, origin=None)
    if (forced := forced_after_cut(summary)) is not None:
        # The leaf `forward` forced to require grad after a cut, returned as is: every
        # call returns such a leaf, cut from this call's inputs as from any other's.
        return Value(
            grad=Grad.TRACKED,
            kind=Kind.TENSOR,
            leaf=True,
            forced=forced,
            carries=base.carries,
        )
    if summary.grad is Grad.TRACKED and mode.enabled:
        return Value(grad=Grad.TRACKED, kind=Kind.TENSOR, carries=base.carries)
    return Value(grad=Grad.UNKNOWN, kind=Kind.TENSOR, carries=base.carries)


class TrainingEffects(GraphEffects):
    """Transfer functions of training state: parameters (frozen or not), optimizers and the
    modules they hold, gradients, and state carried across calls of methods and helpers."""

    # Dotted keys (`self.w`) certainly never set on a path whose environment lacks them: a
    # run of `__init__` making every store of those attributes on a fresh object (see
    # `ModuleInterpreter._state_left_by`).
    unset_attributes: frozenset[str] = frozenset()

    def kept_attribute(self, key: str, env: Env) -> Value | None:
        """What reading `key` (`self.centers`, `agent.memory`) gives on a path whose
        environment `env` does not hold it: the value the class of the instance keeps for
        that attribute (`ClassInfo.attributes`); None when that is not what a read finds.
        `UNSET` for a key of `unset_attributes`: never set on that path."""
        if key in self.unset_attributes:
            return UNSET
        name, _, attr = key.partition(".")
        base = env.get(name)
        if base is None or not attr.isidentifier() or base.kind is Kind.CLASS:
            return None
        info = base.local_class
        if info is None or attr not in info.attributes:
            return None
        return through_instance(info.attributes[attr], name)

    def _freeze(self, owner: ast.expr, node: ast.AST, description: str) -> Value | None:
        """Every parameter of the module `owner` was just frozen: remember where, if the
        module is one whose outputs then certainly have no history."""
        key = dotted(owner)
        if key is None or self.env is None or self.stmt is None:
            return None
        if not self.module.frozen_facts:
            return None
        value = self.env.get(key)
        if value is None and "." in key:
            # A layer of a model (`model.backbone`, `self.embeddings`): the module the
            # class keeps at that attribute; bound below, later reads of it see the freeze.
            value = self.kept_attribute(key, self.env)
        ref = value.module if value is not None else None
        if value is None or value.kind is not Kind.MODULE or ref is None:
            return None
        if not ref.self_contained or not params.owns_parameters(ref):
            return None
        frozen = evolve(value, frozen=params.Freeze(node, self.stmt, key, description))
        self.env[key] = frozen
        return frozen

    def freeze_by_attribute(self, stmt: ast.stmt) -> None:
        """`self.tok.weight.requires_grad = False` (or `.requires_grad_(False)`): when, with
        the freezes of the layer's other parameters earlier in the same block, every
        parameter a torch.nn layer of `LEAF_PARAMETERS` may hold is frozen, the layer is
        (see `attribute_freezes`)."""
        if self.env is None or not self.module.frozen_facts:
            return
        flag = parameter_flag_set(stmt)
        key = dotted(flag[0]) if flag is not None and flag[2] else None
        if key is None:
            return
        value = self.env.get(key)
        if value is None and "." in key:
            value = self.kept_attribute(key, self.env)
        ref = value.module if value is not None and value.kind is Kind.MODULE else None
        qualified = ref.qualified if ref is not None else None
        if qualified is None or not qualified.startswith("torch.nn."):
            return
        names = LEAF_PARAMETERS.get(qualified.removeprefix("torch.nn."))
        located = statement_block(self.function or self.module.tree, stmt)
        if names is None or located is None:
            return
        layer, frozen = frozen_by_attribute(located[1], stmt)
        if set(names) <= frozen:
            listed = " and ".join(f"`{key}.{name}`" for name in names)
            self._freeze(layer, stmt, f"`requires_grad = False` on {listed}")

    def _unfreeze(self, ref: ModuleRef | None) -> None:
        """Forget frozen facts: of every module sharing `ref`, or of all modules (None)."""
        if self.env is None or not self.module.frozen_facts:
            return
        for key, value in list(self.env.items()):
            if value.frozen is not None and (ref is None or value.module is ref):
                self.env[key] = evolve(value, frozen=None)

    def _note_replacement(self, target: ast.expr, value: Value) -> None:
        """A freshly built module with parameters bound to `target`: optimizers built before
        on the module it replaces (or joins) do not hold its parameters. A freshly built
        `nn.Parameter(...)` bound to an attribute is such a module too (see
        `_note_new_parameter`)."""
        if value.kind is Kind.TENSOR:
            self._note_new_parameter(target, value)
            return
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
        self._replaced_here(target, ref)

    def note_setattr(self, call: ast.Call, value: Value) -> None:
        """`setattr(obj, name, value)` as a statement: for every attribute name it certainly
        sets (`set_attributes.set_names`), `obj.<name> = value` (a fresh module with
        parameters replaces the layer, see `_note_replacement`)."""
        stmt = self.stmt
        if (
            value.kind is not Kind.MODULE
            or not isinstance(stmt, ast.Expr)
            or stmt.value is not call
        ):
            return
        # The function's own statements hold it: searched there, not in the module's walk,
        # which a step must not read (any edit changes it; see `walk.statement_block`).
        found = statement_block(self.function or self.module.tree, stmt)
        if found is None:
            return
        owner, block = found
        for attr in set_attributes.set_names(call, owner, block):
            target = ast.Attribute(value=call.args[0], attr=attr, ctx=ast.Store())
            ast.copy_location(target, call)
            self._note_replacement(target, value)

    def _replaced_here(self, target: ast.expr, ref: ModuleRef) -> None:
        """`target` got the new module `ref` (or `NEW_PARAMETER`) at this statement:
        optimizers built before on its owner are stale, and when the owner is a parameter
        of this function the caller's argument gets it too (see `replaced_attributes`)."""
        assert self.stmt is not None
        if (
            isinstance(target, ast.Attribute | ast.Subscript)
            and isinstance(target.value, ast.Name)
            and self.function is not None
            and target.value.id in kept_parameters(self.function)
            and not self.module.syntax.mentions_attribute("add_param_group")
            and not self.module.syntax.mentions_attribute("param_groups")
        ):
            found = params.ReplacedAttribute(self.stmt, target, ref)
            self.replaced_attributes.setdefault(target.value.id, found)
        self._replace(target, target, ref)

    def _note_new_parameter(self, target: ast.expr, value: Value) -> None:
        """`<owner>.<attr> = nn.Parameter(...)`: a new leaf that requires grad, not the object
        an optimizer built before on `<owner>` holds (`load_state_dict`, `p.copy_(...)` and
        `p.data = ...` change the old object in place: they are not bindings of a fresh
        parameter). It stands for the old parameter when `<owner>`'s class registers `attr`
        as a parameter in `__init__` or reads `self.<attr>` in its forward (see `_replace`)."""
        if (
            self.env is None
            or self.stmt is None
            or not isinstance(target, ast.Attribute)
            or value.grad is not Grad.TRACKED
            or not value.leaf
            or not _builds_parameter(self.stmt, self.scope.resolve)
        ):
            return
        # The caller's argument (`self` for `model.reset_scale()`) gets the new leaf too.
        self._replaced_here(target, NEW_PARAMETER)

    def replaced_by_call(self, argument: ast.expr, replaced: params.ReplacedAttribute) -> None:
        """A function called at this statement gave `argument.<attr>` (or `argument[i]`) a
        new module (see `FunctionSummary.replaced_attributes`): optimizers built before on
        `argument` do not hold its parameters."""
        if self.env is None or self.stmt is None:
            return
        owner = argument
        for attr in replaced.via:
            owner = ast.Attribute(value=owner, attr=attr, ctx=ast.Load())
        target: ast.expr
        if isinstance(replaced.target, ast.Attribute):
            target = ast.Attribute(value=owner, attr=replaced.target.attr, ctx=ast.Store())
        else:
            target = ast.Subscript(value=owner, slice=replaced.target.slice, ctx=ast.Store())
        self._handed_on(argument, replaced)
        self._replace(target, replaced.target, replaced.module, through=replaced.stmt)

    def _handed_on(self, argument: ast.expr, replaced: params.ReplacedAttribute) -> None:
        """A call here set an attribute of `argument` or of a submodule of it; when
        `argument` is a parameter of this function, or a chain of attributes of one
        (`model.q1` in `def init(model)`), the caller's argument gets the new module too."""
        via: list[str] = []
        root = argument
        while isinstance(root, ast.Attribute):
            via.insert(0, root.attr)
            root = root.value
        if (
            isinstance(root, ast.Name)
            and self.function is not None
            and root.id in kept_parameters(self.function)
            and not self.module.syntax.mentions_attribute("add_param_group")
            and not self.module.syntax.mentions_attribute("param_groups")
        ):
            found = dataclasses.replace(replaced, via=(*via, *replaced.via))
            self.replaced_attributes.setdefault(root.id, found)

    def _replace(
        self,
        target: ast.expr,
        shown: ast.expr,
        ref: ModuleRef,
        *,
        through: ast.stmt | None = None,
    ) -> None:
        """`target` now holds the new module `ref` (`shown` is the target as written where
        the replacement was made): mark the optimizers built on what it replaced stale."""
        assert self.env is not None and self.stmt is not None
        key = dotted(target)
        base = dotted(target.value) if isinstance(target, ast.Attribute | ast.Subscript) else None
        # `self.<m> = Net()` in a method: `self.<opt>`, built on `self.<m>` by `__init__`.
        rebound_state = self._kept_optimizers(key) if base == "self" else []
        for name, optimizer in [*self.env.items(), *self._kept_optimizers(base), *rebound_state]:
            built = optimizer.optimizes
            if built is None or built.stale is not None:
                continue
            if any(other in (key, base) for other, _ in built.others):
                # One of its further modules re-bound or changed: what it holds is unknown.
                self.env[name] = evolve(optimizer, optimizes=None)
                continue
            owner = self._bound_or_kept(built.key) if built.key == base else self.env.get(built.key)
            same = owner is not None and owner.module is built.module
            rebound = isinstance(target, ast.Name) or any(name == n for n, _ in rebound_state)
            if rebound and key == built.key:
                if ref is built.module:
                    continue
                replacement = params.Replacement(self.stmt, shown, ref, rebound=True)
            elif same and (held := _run_submodule(built, base)) is not None:
                attr = target.attr if isinstance(target, ast.Attribute) else ""
                runs = params.runs_attribute(held, attr)
                if ref is NEW_PARAMETER:
                    runs = runs or _registers_parameter(held, attr)
                if isinstance(target, ast.Subscript):
                    runs = held.qualified in api.SEQUENTIAL
                if not runs:
                    continue
                replacement = params.Replacement(
                    self.stmt,
                    shown,
                    built.module,
                    rebound=False,
                    through=through,
                    new_parameter=ref is NEW_PARAMETER,
                )
            else:
                continue
            stale = evolve(optimizer, optimizes=dataclasses.replace(built, stale=replacement))
            self.env[name] = stale
            # (The module's top level is run again with the names it left bound: a
            # statement before the construction, outside any loop, stales nothing.)
            ordered = built.stmt.lineno < self.stmt.lineno or self.every_iteration()
            if ordered and (site := self.site(self.stmt, shown, optimizer)) is not None:
                self.emit(StaleOptimizer(name, stale, **site))

    def _kept_optimizers(self, base: str | None) -> list[tuple[str, Value]]:
        """`self.<opt>` of a method other than `__init__`, not read here yet, when the class
        keeps in it an optimizer built on `base` (`self.<m>`, see
        `ModuleInterpreter._kept_optimizer`): a layer of `self.<m>` replaced in this method,
        or `self.<m>` itself re-bound to a new module, leaves that optimizer stale for the
        rest of it."""
        if base is None or not base.startswith("self.") or base.count(".") != 1:
            return []
        if self.env is None or self.function is None or self.function.name == "__init__":
            return []
        owner = self.env.get("self")
        info = owner.local_class if owner is not None and owner.kind is not Kind.CLASS else None
        if info is None:
            return []
        return [
            (f"self.{attr}", value)
            for attr, value in info.attributes.items()
            if value.optimizes is not None
            and base in (value.optimizes.key, *(k for k, _ in value.optimizes.others))
            and f"self.{attr}" not in self.env
        ]

    def parameters_element(self, expr: ast.expr, receiver: Value | None = None) -> Value | None:
        """What `for p in model.parameters()` binds over a known module: a leaf that
        requires grad; `for name, p in model.named_parameters()`: a (name, leaf) pair; None
        when `expr` is neither, or the parameters may be frozen (see `may_be_frozen`).
        `receiver` is the value the call's receiver evaluated to, when the caller has it: the
        module of `model.encoder.parameters()`, a submodule no name holds."""
        if not self._iterates_parameters(expr, receiver):
            return None
        leaf = Value(grad=Grad.TRACKED, kind=Kind.TENSOR, leaf=True)
        assert isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute)
        if expr.func.attr == "parameters":
            return leaf
        return Value(kind=Kind.SEQUENCE, elements=(Value(kind=Kind.OTHER), leaf))

    def _iterates_parameters(self, expr: ast.expr, receiver: Value | None = None) -> bool:
        """`for p in model.parameters()` (or `named_parameters()`) over a known module (the
        value bound at the receiver's key, else the `receiver` evaluated): leaves that
        require grad (unless something may have frozen them, see `may_be_frozen`)."""
        if not isinstance(expr, ast.Call) or expr.args:
            return False
        func = expr.func
        if not isinstance(func, ast.Attribute) or func.attr not in (
            "parameters",
            "named_parameters",
        ):
            return False
        key = dotted(func.value)
        owner = self._bound_or_kept(key) if key is not None else UNKNOWN
        if owner.kind is not Kind.MODULE and receiver is not None:
            owner = receiver
        if owner.kind is not Kind.MODULE or owner.module is None:
            return False
        return not self.may_be_frozen(key, owner)

    def _bound_or_kept(self, key: str) -> Value:
        """The value at `key`: bound here, or `self.<attr>` as the class keeps it (what
        `__init__` stored once, see `ModuleInterpreter.class_info`), read without the
        effects of evaluating it again."""
        if self.env is not None and key in self.env:
            return self.lookup(key)
        base, _, attr = key.partition(".")
        if base != "self" and attr and "." not in attr and self.env is not None:
            layer = self._layer_of_held(base, attr)
            return layer if layer is not None else self.lookup(key)
        if base != "self" or not attr or "." in attr or self.env is None:
            return self.lookup(key)
        owner = self.env.get("self")
        info = None
        if owner is not None and owner.kind is not Kind.CLASS:
            info = owner.local_class
        kept = info.attributes.get(attr) if info is not None else None
        return kept if kept is not None else self.lookup(key)

    def _layer_of_held(self, name: str, attr: str) -> Value | None:
        """`model.trunk` of a name bound here to a module of a class of the file: the layer
        its `__init__` stored once at `self.trunk` (`ClassInfo.attributes`), when no code
        outside the class's methods sets `.trunk` on anything; None otherwise."""
        assert self.env is not None
        holder = self.env.get(name)
        if holder is None or holder.kind is not Kind.MODULE or holder.module is None:
            return None
        info = holder.module.local
        kept = info.attributes.get(attr) if info is not None else None
        if kept is None or kept.kind is not Kind.MODULE or kept.module is None:
            return None
        if self.module.syntax.foreign_attribute_stores().get(attr):
            return None
        return kept

    def may_be_frozen(self, key: str | None, value: Value, read: ast.expr | None = None) -> bool:
        """Whether some code may have turned off `requires_grad` on parameters of the module
        `value` held at `key`: only when the file freezes something at all, and not when the
        module was built right here (a torch.nn layer, a Sequential of them, a qualifying
        local class) and never leaves this function (see `analysis.private_modules`), nor
        when `read` (an expression reading the module) runs before any other code since the
        module was built (`_built_just_before`)."""
        if not self.module.freezes_parameters:
            return False
        if read is not None and self._built_just_before(key, value, read):
            return False
        ref = value.module
        if key is None or self.function is None or ref is None or not ref.self_contained:
            return True
        owner, _, attribute = key.rpartition(".")
        if owner == "self" and self.module.syntax.outside_freezes(attribute):
            return False  # a fresh torch.nn layer no freeze of the file reaches
        if self._private is None:
            # A parameter's module comes from the callers, who may have frozen it.
            given = set(parameter_names(self.function))
            self._private = private_names(self.function, self.scope.resolve) - given
        if key.split(".", 1)[0] not in self._private or "." in key:
            return True
        return not self._constructed_here(key)

    def _constructed_here(self, key: str) -> bool:
        """True when this function bound `key` to a constructor call: a torch.nn class or a
        class of the file, through casts and mode switches (`Net().to(device)`). Not what a
        function returned (`extractor = build_extractor()`): that function may have frozen
        the module before handing it over."""
        value = self.env.get(key) if self.env is not None else None
        origin = value.origin if value is not None else None
        if not isinstance(origin, ast.Assign | ast.AnnAssign) or origin.value is None:
            return False
        built = api.uncast(origin.value)
        if not isinstance(built, ast.Call):
            return False
        qualified = self.scope.resolve(built.func)
        if qualified is not None:
            return qualified.startswith("torch.nn.")
        callee = dotted(built.func)
        return callee is not None and self.lookup(callee).kind is Kind.CLASS

    def _built_just_before(self, key: str | None, value: Value, read: ast.expr) -> bool:
        """True when the statement right before this one in the same block built the module
        at `key` (`self.emb = nn.Embedding(...)`, the value read is the one it bound) and no
        call of this statement can run before `read` is evaluated (every call here contains
        `read`, so its arguments are evaluated first): no code ran in between that could
        have frozen the module's parameters."""
        before, stmt = self.stmt_before, self.stmt
        if (
            key is None
            or stmt is None
            or not isinstance(before, ast.Assign)
            or value.origin is not before
            or not isinstance(before.value, ast.Call)
            or [dotted(target) for target in before.targets] != [key]
        ):
            return False
        return all(
            any(child is read for child in walk(node))
            for node in walk(stmt)
            if isinstance(node, ast.Call)
        )

    def _owns_weight(self, key: str | None, module: Value, read: ast.expr | None = None) -> bool:
        """True when `module` (held at `key`) is a torch.nn layer with a `weight` parameter
        that certainly requires grad: built with its parameters here, and nothing may have
        frozen them (`may_be_frozen`; `read` is the expression reading the weight)."""
        ref = module.module
        if module.kind is not Kind.MODULE or ref is None or ref.qualified is None:
            return False
        kind = ref.kind or api.nn_module_kind(ref.qualified)
        name = ref.qualified.rsplit(".", 1)[-1]
        return (
            kind is not None
            and kind.has_parameters
            and name in api.WEIGHTED_LAYERS
            and not self.may_be_frozen(key, module, read)
            and module.frozen is None
        )

    def _optimized_module(self, call: ast.Call) -> params.OptimizedParameters | None:
        """`torch.optim.X(model.parameters(), ...)` on a module built in this file, or on
        several (`list(E.parameters()) + list(G.parameters())`, see `_parameter_sources`)."""
        first: ast.expr | None = call.args[0] if call.args else None
        keyword = passed_keyword(call, "params")
        if keyword is not None:
            first = keyword.value
        if first is None or self.stmt is None or self.env is None:
            return None
        sources = self._parameter_sources(first)
        if not sources:
            return None
        held: list[tuple[str, ModuleRef]] = []
        for source in sources:
            key = dotted(source)
            owner = self._bound_or_kept(key) if key is not None else None
            if key is None or owner is None or owner.kind is not Kind.MODULE:
                return None
            if owner.module is None or any(k == key for k, _ in held):
                return None
            held.append((key, owner.module))
        (key, module), *others = held
        return params.OptimizedParameters(call, self.stmt, key, module, others=tuple(others))

    def _parameter_sources(self, expr: ast.expr) -> list[ast.expr] | None:
        """The modules whose `.parameters()` make up `expr`, in order: `m.parameters()`;
        `list(a.parameters()) + list(b.parameters())`; `[*a.parameters(), *b.parameters()]`;
        `itertools.chain(a.parameters(), b.parameters())`. None for anything else."""
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add):
            left = self._parameter_sources(expr.left)
            right = self._parameter_sources(expr.right)
            return left + right if left and right else None
        if isinstance(expr, ast.List) and expr.elts:
            if not all(isinstance(e, ast.Starred) for e in expr.elts):
                return None
            found = [_parameters_owner(e.value) for e in expr.elts if isinstance(e, ast.Starred)]
            return [f for f in found if f is not None] if all(found) else None
        if isinstance(expr, ast.Call) and not expr.keywords and expr.args:
            listed = isinstance(expr.func, ast.Name) and expr.func.id == "list"
            if (listed and len(expr.args) == 1 and self.unshadowed("list")) or (
                self.scope.resolve(expr.func) == "itertools.chain"
            ):
                found = [_parameters_owner(a) for a in expr.args]
                return [f for f in found if f is not None] if all(found) else None
        if isinstance(expr, ast.Name) and self.stmt is not None:
            # `ge_chain = itertools.chain(...)`, bound once before, then `Adam(ge_chain)`.
            body = self.function.body if self.function is not None else self.module.tree.body
            bound = sole_assignment(expr.id, body)
            if bound is not None and bound.lineno < self.stmt.lineno:
                return self._parameter_sources(bound.value)
            return None
        owner = _parameters_owner(expr)
        return [owner] if owner is not None else None

    def _gradients(self, call: ast.Call, values: list[Value]) -> Value:
        """What `torch.autograd.grad(outputs, inputs)` returns: one gradient per input, with
        history only when `create_graph=True` (`values` are the call's arguments, positional
        then keywords: a `create_graph=flag` whose value is known False counts as False)."""
        inputs = call.args[1] if len(call.args) > 1 else None
        keyword = passed_keyword(call, "inputs")
        if keyword is not None:
            inputs = keyword.value
        if any(kw.arg is None for kw in call.keywords) or len(call.args) > 4:
            return UNKNOWN  # `**options` (or a fifth argument) may pass create_graph=True
        for index, kw in enumerate(call.keywords):
            if kw.arg == "create_graph":
                position = len(call.args) + index
                given = values[position] if position < len(values) else None
                if given is None or given.const is not False:
                    return UNKNOWN
        if inputs is None:
            return UNKNOWN
        loss = Loss(LossKind.NO_CREATE_GRAPH, call, "torch.autograd.grad(...)")
        gradient = Value(grad=Grad.UNTRACKED, kind=Kind.TENSOR, loss=loss)
        if isinstance(inputs, ast.List | ast.Tuple) and not any(
            isinstance(e, ast.Starred) for e in inputs.elts
        ):
            return Value(kind=Kind.SEQUENCE, elements=(gradient,) * len(inputs.elts))
        given = _argument_value(call, values, 1, "inputs")
        if given is not None and given.kind is Kind.TENSOR:
            return Value(kind=Kind.SEQUENCE, elements=(gradient,))  # one tensor, one gradient
        if given is not None and given.kind is Kind.SEQUENCE and given.elements is not None:
            return Value(kind=Kind.SEQUENCE, elements=(gradient,) * len(given.elements))
        # `inputs=model.parameters()`: as many gradients as inputs, none with history.
        return Value(kind=Kind.SEQUENCE, items=gradient)

    def _record_optimized(self, call: ast.Call, qualified: str, args: list[Value]) -> None:
        """Tensors certainly given to an optimizer as parameters, one `OptimizedTensor` each:
        listed (`SGD([w, b], lr=...)`), in the list of a parameter group
        (`SGD([{"params": [w]}, {"params": b, "lr": 0.1}])`), or held by a list whose
        elements are known (`params = [w] + [b]`, `params.append(w)`)."""
        given = _argument_value(call, args, 0, "params")
        expr: ast.expr | None = call.args[0] if call.args else None
        keyword = passed_keyword(call, "params")
        if keyword is not None:
            expr = keyword.value
        if given is None or expr is None or isinstance(expr, ast.Starred):
            return
        for target, value in _optimized_tensors(expr, given, groups=True):
            if (site := self.site(call, target, value)) is not None:
                self.emit(OptimizedTensor(qualified, **site))
        if given.kind is Kind.SEQUENCE and given.members and not self._may_change(expr, call):
            # `list(model.parameters()) + [w]`: `w` is among them, whatever else is.
            for member in given.members:
                named = _bound_name(member)
                if member.kind is not Kind.TENSOR or named is None:
                    continue
                if (site := self.site(call, named, member)) is not None:
                    self.emit(OptimizedTensor(qualified, **site))

    def _may_change(self, held: ast.expr, call: ast.Call) -> bool:
        """Whether the list `held` names may lose an element before `call` reads it: a
        fresh `a + b` cannot; a name can unless it is a plain name whose every read in the
        function (or module body) is `call`'s, and no code of the file changes a container
        under that name (no alias `rest = params`, no `params.remove(w)`)."""
        if isinstance(held, ast.BinOp):
            return False
        if not isinstance(held, ast.Name) or self.module.container_may_change(held):
            return True
        given = {id(a) for a in (*call.args, *(kw.value for kw in call.keywords))}
        body = self.function.body if self.function is not None else self.module.tree.body
        return any(
            isinstance(node, ast.Name)
            and node.id == held.id
            and isinstance(node.ctx, ast.Load)
            and id(node) not in given
            for node in walk_own(body)
        )

    def _state_carried_across_calls(
        self,
        method: FunctionNode,
        summary: FunctionSummary,
        call: ast.Call,
        receiver: Value,
        receiver_key: str | None,
    ) -> None:
        """A method called on every iteration of a loop (`trainer.train_batch(x)`, on the
        instance `receiver`, spelled `receiver_key`), seen from that loop.

        Its backward calls that run on every call of it make the loop a training loop; the
        ones that run through state the previous call left on `self`, without a detach in
        between, reach into the previous call's graph. Both are recorded in
        `ModuleAnalysis.backward_in_calls`, their value carrying that state from one call
        to the next. A total it keeps on `self` (`self.running_loss += loss`,
        `self.sums[i] += v`) is an accumulation carried by the loop (see
        `_accumulations_carried`).
        """
        loops = self.every_iteration()
        if not self.record or not loops:
            return
        analysis = self.module.analysis
        inside = list(self.module.own_events(method)[0])
        self.training_step_seen_from_loops(method)
        self._accumulations_carried(method, summary, call, receiver, receiver_key)
        for attr, (read, tag) in summary.state_reads.items():
            written = summary.state_writes.get(attr)
            rebound = summary.rebound_state.get(attr) if self.mode.enabled is True else None
            if rebound is not None:
                # Rebound in a loop of the method: unchanged, or with history built on it.
                written = rebound_write(written, rebound, attr, tag)
            if written is None or tag not in written.all_carries() or written.origin is None:
                continue
            if rebound is None and not written.holds_history():
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

    def _accumulations_carried(
        self,
        method: FunctionNode,
        summary: FunctionSummary,
        call: ast.Call,
        receiver: Value,
        receiver_key: str | None,
    ) -> None:
        """`meter.update(loss)` on every iteration of a loop, where `update` adds what it is
        given to state the previous call left (`self.sum += val`, `self.sums[i] += v`), on
        every call: an accumulation carried by the loop (recorded again in
        `ModuleAnalysis.events`, seen from each loop, with the state as the total).

        Only when the state certainly persists: the method leaves the attribute holding
        what it added to (not rebound afresh), and the loop keeps the same instance with
        that attribute untouched by anything else (see `held_state.state_held_across`)."""
        if receiver_key is None:
            return  # `meters[k].update(x)`, `Meter().update(x)`: which instance is unknown
        analysis = self.module.analysis
        for use in analysis.events.of(Accumulation):
            if use.function is not method:
                continue
            total = use.target.value if isinstance(use.target, ast.Subscript) else use.target
            key = dotted(total)
            if key is None or not key.startswith("self.") or key.count(".") != 1:
                continue
            attr = key[5:]
            read = summary.state_reads.get(attr)
            if read is None or read[1] not in use.value.carries:
                continue  # not added to what the previous call left
            written = summary.state_writes.get(attr)
            if written is not None and read[1] not in written.all_carries():
                continue  # rebound afresh before the method returns
            if not use.every_iteration and not _runs_on_every_call(use.stmt, method):
                continue
            class_of = self._held_class(receiver, receiver_key)
            for loop in self.every_iteration():
                if not state_held_across(loop, receiver_key, attr, call, class_of, self._method_of):
                    continue
                carry = Carry(key, loop, use.stmt, use.value, None)
                analysis.events.add(
                    dataclasses.replace(
                        use,
                        value=evolve(use.value, carries=frozenset({carry})),
                        every_iteration=frozenset({loop}),
                    )
                )

    def _held_class(self, receiver: Value, receiver_key: str) -> ClassOf:
        """The class of the file the instance a key names belongs to: `receiver`'s for its
        own key, a bound name's class for the names it is reached through, else None."""

        def class_of(key: str) -> ast.ClassDef | None:
            value = receiver if key == receiver_key else None
            if value is None and self.env is not None:
                value = self.env.get(key)
            info = value.local_class if value is not None else None
            return info.node if info is not None else None

        return class_of

    def _method_of(self, owner: ast.ClassDef, name: str) -> FunctionNode | None:
        """The method `name` an instance of `owner` runs: its own, or one it inherits from a
        class of the file."""
        return class_methods(owner).get(name) or inherited_method(self.module, owner, name)

    def training_step_seen_from_loops(self, function: FunctionNode) -> None:
        """A function or method of the file called on every iteration of a loop
        (`trainer.train_batch(x)`, `finish_episode()`): the backward calls and optimizer
        steps it runs on every call are recorded again as run on every iteration of that
        loop (`ModuleAnalysis.backward_in_calls`, `ModuleAnalysis.events`), so the loop is
        seen to train."""
        loops = self.every_iteration()
        if not self.record or not loops:
            return
        analysis = self.module.analysis
        # A function of another project file: its backward calls are in its file's analysis.
        # Only they are seen from here (its steps, clears and the rest stay in its file).
        owner = self.module.owner_of(function)
        recorded, steps = owner.own_events(function)
        own = [event for event in recorded if not event.loops]
        every = [e for e in own if _runs_on_every_call(e.stmt, function)]
        if not every and own and _backpropagates_on_every_path(function.body, own):
            # `if scaler is not None: scaler.scale(loss).backward() else: loss.backward()`:
            # one backward or another runs on every call; the first stands for them.
            every = [min(own, key=lambda e: (e.call.lineno, e.call.col_offset))]
        for event in every:
            for loop in loops:
                analysis.backward_in_calls.append(
                    _seen_from_loops(event, frozenset(), frozenset({loop}))
                )
        if owner is not self.module:
            return
        for use in steps:
            if use.method == "step" and _runs_on_every_call(use.stmt, function):
                analysis.events.add(dataclasses.replace(use, every_iteration=loops))

    def _result_changed_in_place(
        self, fresh: SavedNode, summary: FunctionSummary, *, realised: bool = False
    ) -> None:
        """The call's own graph node stands for the callee's: when the callee changed in place
        a tensor its result's graph saved, the node is changed here too, and each such
        change is recorded again as saved by it (so a backward here is paired with it).
        Unless the caller checked them (`realised`), changes of tensors saved only if an
        argument requires grad (`SavedNode.given`) are left out."""
        changes = tuple(
            change
            for change in summary.changed_in_result
            if realised or any(not node.given for node in change.saved_by)
        )
        if not changes:
            return
        freed, modified = self._graph_state()
        self._set_graph_state(freed, modified | {fresh})
        for change in changes:
            # Recorded in this function too, so its own result can pass it on.
            self.note_in_place_change(
                dataclasses.replace(
                    change, saved_by=change.saved_by | {fresh}, function=self.function
                )
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
        inside = self.module.owner_of(function).own_events(function)[0]
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
        kept = summary.state_writes.keys() | summary.rebound_state.keys()
        for attr, (node, tag) in summary.state_reads.items():
            if attr in kept and tag in flowing:
                carries |= self.lookup(f"{owner}.{attr}", node).all_carries()
        return carries

    def _module_state_out(self, call: ast.Call, summary: FunctionSummary, base: Value) -> None:
        """State that `forward` leaves on `self`, bound in the caller as `model.hidden`."""
        owner = dotted(call.func)
        if owner is None:
            return
        for attr, value in summary.state_writes.items():
            stamped = restamp(value, base, self.mode)
            key = f"{owner}.{attr}"
            if self.env is not None:
                self._note_attribute(key)
                self.env[key] = evolve(stamped, origin=value.origin)
        if self.mode.enabled is not True:
            return
        for attr, rebound in summary.rebound_state.items():
            # Rebound in a loop of `forward`: unchanged, or with history built on it.
            key = f"{owner}.{attr}"
            if self.env is not None:
                current = self.lookup(key) if attr in summary.state_writes else UNKNOWN
                tags = current.carries | base.carries | {rebound_tag(f"self.{attr}", rebound)}
                self._note_attribute(key)
                self.env[key] = evolve(current, carries=tags, origin=rebound.stmt)

    def backpropagate(self, call: ast.Call, target: ast.expr, value: Value, via: str) -> None:
        """A backward call (see `GraphEffects.backpropagate`), remembered with the `self`
        state whose graph, as the method found it, it runs through (`state_graph`)."""
        super().backpropagate(call, target, value, via)
        attrs = frozenset(a for a, n in self.state_stand_ins.items() if n in value.graph)
        names = frozenset(p for p, n in self.input_nodes.items() if n in value.graph)
        recorded = self.module.analysis.backward_calls
        if not (self.record and recorded and recorded[-1].call is call):
            return
        if attrs:
            self.state_backwards.append((recorded[-1], attrs))
        if names and via != LIGHTNING_BACKWARD:
            # (Not the Trainer's backward of what `training_step` returns, see `frees_result`.)
            self.param_backwards.append((recorded[-1], names))

    def state_graphs(self, summary: FunctionSummary) -> dict[str, frozenset[SavedNode]]:
        """The graphs of the `self` state a method about to be called backpropagates
        through, as this method knows them: what it bound, or kept under
        `STATE_GRAPH_PREFIX` when an earlier call made the attribute unknown."""
        graphs: dict[str, frozenset[SavedNode]] = {}
        if self.env is None:
            return graphs
        for attr in {a for _, attrs in summary.state_backwards for a in attrs}:
            # What an earlier call left known (or unknown) wins over a stale binding.
            value = self.env.get(f"{STATE_GRAPH_PREFIX}self.{attr}") or self.env.get(f"self.{attr}")
            graph = own_nodes(value.graph) if value is not None else frozenset()
            if graph:
                graphs[attr] = graph
        return graphs

    def backward_across_methods(
        self,
        call: ast.Call,
        method: FunctionNode,
        owner: ast.ClassDef | None,
        summary: FunctionSummary,
        graphs: dict[str, frozenset[SavedNode]],
    ) -> None:
        """After `self.backward_D()` from another method: each backward call in it that runs
        through `self` state whose graph is known here runs through that graph (recorded in
        `ModuleAnalysis.backward_across_methods`, with what of it was already freed), and
        the state whose graph every call frees is freed here too. Under `STATE_GRAPH_PREFIX`
        this method keeps the graph of attributes the call cannot have changed, and an
        empty graph for those it may have rebound or changed in place."""
        if self.env is None:
            return
        freed, modified = self._graph_state()
        newly: frozenset[SavedNode] = frozenset()
        for event, attrs in summary.state_backwards:
            graph = frozenset().union(*(graphs.get(a, frozenset()) for a in attrs))
            if not graph or event.value.grad is Grad.UNTRACKED:
                continue
            if self.record:
                self.module.analysis.backward_across_methods.append(
                    self._seen_from_caller(method, call, event, graph, freed)
                )
        for attr in summary.frees_state:
            newly |= graphs.get(attr, frozenset())
        if newly:
            self._set_graph_state(freed | newly, modified)
        changes = changed_self_attributes(method, owner)
        changed = set(changes) if changes is not None else set(graphs)
        if changes is None:
            # It calls methods of a base class, which may rebind or change any attribute.
            changed |= {k[5:] for k in self.env if k.startswith("self.") and k.count(".") == 1}
        for attr in summary.state_writes:
            self.env.pop(f"{STATE_GRAPH_PREFIX}self.{attr}", None)  # bound afresh
        for attr in changed - summary.state_writes.keys():
            # Rebound on some path only, or changed in place (`self.fake_B.detach_()`):
            # its graph is no longer known here (an empty graph says so).
            self.env[f"{STATE_GRAPH_PREFIX}self.{attr}"] = Value(kind=Kind.OTHER)
        for attr, graph in graphs.items():
            if f"self.{attr}" not in self.env and attr not in changed:
                self.env[f"{STATE_GRAPH_PREFIX}self.{attr}"] = Value(kind=Kind.OTHER, graph=graph)

    def _seen_from_caller(
        self,
        method: FunctionNode,
        call: ast.Call,
        event: BackwardCall,
        graph: frozenset[SavedNode],
        freed: frozenset[SavedNode],
    ) -> BackwardCall:
        """A backward call of `method` as this call of it runs it: through the graph of the
        state (`graph`, known here) and one node standing for what the method builds itself
        (built afresh on every call), in the loops around this call, on every iteration of
        them when it runs on every call of the method."""
        every = _runs_on_every_call(event.stmt, method) and not event.loops
        return dataclasses.replace(
            event,
            value=evolve(event.value, graph=graph | {SavedNode(call, Saves.OTHER)}),
            through_freed=graph & freed,
            through_modified=frozenset(),
            loops=tuple(node for kind, node in self.frames if kind == "loop"),  # type: ignore[misc]
            every_iteration=self.every_iteration() if every else frozenset(),
        )

    def taint_arguments(self, call: ast.Call, stepped: frozenset[str] = frozenset()) -> None:
        """Arguments handed to code we cannot see may be detached in place: forget their
        loop-carried history (a helper such as `repackage_hidden(h)` counts as a detach).
        `stepped`: the keys of arguments the callee (a function of the file) only steps or
        clears, whose optimizer facts stay (see `parameters.steps_only`)."""
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
                self._forget_parameter_facts(key, optimizer=key not in stepped)
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

    def _forget_parameter_facts(self, key: str, *, optimizer: bool = True) -> None:
        """Code we cannot see got `key`: a module may be unfrozen, an optimizer extended
        (unless `optimizer` is False: the code only steps or clears it)."""
        if self.env is None:
            return
        value = self.env[key]
        if value.frozen is not None:
            self._unfreeze(value.module)
        if value.optimizes is not None and optimizer:
            self.env[key] = evolve(value, optimizes=None)


# What `ReplacedAttribute.module` holds when the attribute got a fresh `nn.Parameter(...)`
# rather than a module: the replacement is of the parameter itself.
NEW_PARAMETER = ModuleRef(qualified="torch.nn.Parameter")


def _run_submodule(built: params.OptimizedParameters, base: str | None) -> ModuleRef | None:
    """The module at `base` when it is the optimized module itself (`built.key`), or a
    submodule of it its forward runs, hop by hop (`model.q1`: `QuantMLP.forward` reads
    `self.q1`, an attribute only `__init__` binds, to a module: `ClassInfo.attributes`);
    None otherwise."""
    if base is None:
        return None
    if base == built.key:
        return built.module
    if not base.startswith(built.key + "."):
        return None
    held = built.module
    for attr in base[len(built.key) + 1 :].split("."):
        if not params.runs_attribute(held, attr) or held.local is None:
            return None
        kept = held.local.attributes.get(attr)
        if kept is None or kept.kind is not Kind.MODULE or kept.module is None:
            return None
        held = kept.module
    return held


def _builds_parameter(stmt: ast.stmt, resolve: Callable[[ast.expr], str | None]) -> bool:
    """`stmt` assigns the result of `nn.Parameter(...)` itself (not an expression built on
    it): the bound object is the fresh parameter."""
    if not isinstance(stmt, ast.Assign | ast.AnnAssign) or not isinstance(stmt.value, ast.Call):
        return False
    return resolve(stmt.value.func) in api.PARAMETER


def _registers_parameter(ref: ModuleRef, attr: str) -> bool:
    """True when the local class of `ref` registers `attr` as a parameter in `__init__`
    (`self.<attr> = nn.Parameter(...)`): the module's parameters include it."""
    if ref.local is None:
        return False
    init = next(
        (
            node
            for node in ref.local.node.body
            if isinstance(node, ast.FunctionDef) and node.name == "__init__"
        ),
        None,
    )
    if init is None:
        return False
    for node in ast.walk(init):
        if (
            isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Call)
            and callee_name(node.value.func) == "Parameter"
            and any(
                isinstance(t, ast.Attribute)
                and t.attr == attr
                and isinstance(t.value, ast.Name)
                and t.value.id == "self"
                for t in node.targets
            )
        ):
            return True
    return False


def _optimized_tensors(
    expr: ast.expr, given: Value, *, groups: bool
) -> Iterator[tuple[ast.expr, Value]]:
    """The tensors `given` (what `expr` evaluates to, an optimizer's `params`) certainly
    holds, each with the expression naming it: a tensor; the elements of a list or tuple of
    known elements (each a tensor, or, when `groups`, a parameter group: a dict whose
    "params" is known). The
    expression is the literal element when `expr` is a literal, else the name the tensor
    was bound to (`w = ...`); a tensor without one is skipped."""
    if given.kind is Kind.TENSOR:
        yield expr, given
        return
    if given.kind is Kind.MAPPING and groups:
        yield from _group_tensors(expr, given)
        return
    if given.kind is not Kind.SEQUENCE:
        return
    if given.elements is None:
        return  # appended in a loop or on one branch: it may be empty (another error)
    literal = isinstance(expr, ast.List | ast.Tuple) and len(expr.elts) == len(given.elements)
    for index, element in enumerate(given.elements):
        if literal:
            assert isinstance(expr, ast.List | ast.Tuple)
            target: ast.expr | None = expr.elts[index]
        else:
            target = _bound_name(element)
        if isinstance(target, ast.Starred):
            continue
        if element.kind is Kind.TENSOR and target is not None:
            yield target, element
        elif element.kind is Kind.MAPPING and groups:
            # A group's tensors are named by its literal, else by their own names.
            yield from _group_tensors(target or expr, element)


def _group_tensors(expr: ast.expr, group: Value) -> Iterator[tuple[ast.expr, Value]]:
    """The tensors of the parameter group `group` (a dict, what `expr` evaluates to) whose
    "params" is known: a tensor, or a list of them (not a group again)."""
    fields, elements = group.fields, group.elements
    if fields is None or elements is None or "params" not in fields:
        return
    held = elements[fields.index("params")]
    target: ast.expr = expr
    if isinstance(expr, ast.Dict):
        keys = [k.value if isinstance(k, ast.Constant) else None for k in expr.keys]
        if keys.count("params") != 1 or None in expr.keys:
            return  # `**defaults` may rebind "params"
        target = expr.values[keys.index("params")]
    elif held.kind is Kind.TENSOR:
        named = _bound_name(held)
        if named is None:
            return
        target = named
    yield from _optimized_tensors(target, held, groups=False)


def _bound_name(value: Value) -> ast.expr | None:
    """The name or attribute `value` was bound to by the single-target assignment it comes
    from (`w = ...`), for naming it; None otherwise."""
    origin = value.origin
    if isinstance(origin, ast.Assign) and len(origin.targets) == 1:
        target = origin.targets[0]
        if isinstance(target, ast.Name | ast.Attribute):
            return target
    return None


def _argument_value(call: ast.Call, values: list[Value], position: int, name: str) -> Value | None:
    """The evaluated argument given at `position` or as keyword `name` (`values`: the
    call's positional then keyword arguments, as evaluated); None when not given so."""
    if position < len(call.args):
        if any(isinstance(a, ast.Starred) for a in call.args[: position + 1]):
            return None
        return values[position] if position < len(values) else None
    return keyword_argument(call, values, name)


def through_instance(kept: Value, receiver: str | None) -> Value:
    """An attribute a class keeps, read through an instance (`agent.actor.optimizer`): the
    `self` of what it refers to is that instance (an optimizer of `self.parameters()` holds
    `agent.actor`'s). Unknown when the instance is not a dotted name."""
    built = kept.optimizes
    if built is None or (built.key != "self" and not built.key.startswith("self.")):
        return kept
    if receiver is None or receiver == "self":
        return kept if receiver == "self" else evolve(kept, optimizes=None)
    key = receiver + built.key[4:]
    return evolve(kept, optimizes=dataclasses.replace(built, key=key))


def _parameters_owner(expr: ast.expr) -> ast.expr | None:
    """`m` of `m.parameters()` (no arguments)."""
    if (
        isinstance(expr, ast.Call)
        and isinstance(expr.func, ast.Attribute)
        and expr.func.attr == "parameters"
        and not expr.args
        and not expr.keywords
    ):
        return expr.func.value
    return None
