"""Statements: assignments, branches, `with` blocks, `try`, `match`, and loops with
the values they carry from one iteration into the next."""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Iterator

from gradguard.analysis import backpropagated as backprop
from gradguard.analysis import (
    batches,
    dtypes,
    libraries,
    list_members,
    listed_tensors,
    narrowing,
    submodules,
)
from gradguard.analysis import parameters as params
from gradguard.analysis import torch_api as api
from gradguard.analysis.call_sites import known_argument
from gradguard.analysis.element_passes import PASS_EVENTS, UNSURE_STATEMENTS, element_passes
from gradguard.analysis.events import (
    Accumulation,
    AttributeSet,
    InPlaceChange,
    IntegerGradRequest,
    LoopTrips,
    RepeatedDraw,
)
from gradguard.analysis.graph import GRAPH_STATE_KEY
from gradguard.analysis.graph_inputs import bind_stand_ins, stand_in_of
from gradguard.analysis.integer_buffers import counter_kept
from gradguard.analysis.interpreter.calls import CallEvaluator
from gradguard.analysis.interpreter.environment import (
    GRAD_UNKNOWN,
    Env,
    GradMode,
    LoopFrame,
    join_env,
    join_envs,
    merge_branch_graphs,
)
from gradguard.analysis.item_graphs import items_list
from gradguard.analysis.list_parts import changed_item
from gradguard.analysis.loop_entry import (
    certainly_empty,
    certainly_entered,
    least_trips,
    range_call,
)
from gradguard.analysis.loop_passes import branches_taken, loop_passes
from gradguard.analysis.model import (
    LIGHTNING_BACKWARD,
    FunctionNode,
    LoopNode,
)
from gradguard.analysis.names import callee_name, dotted, local_binding_counts
from gradguard.analysis.node_cache import cached_by_node
from gradguard.analysis.parameter_names import (
    ParameterName,
    Strings,
    StringsOf,
    certainly_frozen,
    listed_strings,
    loaded_names,
    may_unfreeze,
    parameter_names,
    plain_operand,
    strings_of,
)
from gradguard.analysis.parameter_names import stored_names as names_stored
from gradguard.analysis.passed_strings import strings_passed
from gradguard.analysis.stacked_lists import stacking_calls
from gradguard.analysis.unfreeze_loops import is_unfreeze_loop
from gradguard.analysis.values import (
    NONE,
    UNKNOWN,
    Carry,
    Grad,
    Kind,
    Loss,
    LossKind,
    ModuleRef,
    Value,
    element_of,
    evolve,
    forced_leaf,
    instance_value,
    join,
)
from gradguard.analysis.walk import own_nodes


@cached_by_node
def param_tag(param: ast.arg) -> Carry:
    """The one tag of `param` (see `FunctionInterpreter.param_tags`), kept like its stand-in
    (`graph_inputs.stand_in_of`): every run of the function tags the parameter with the same
    object, so summaries of a function that did not change are equal across passes."""
    return Carry(f"%param:{param.arg}", None, None, UNKNOWN, None)


def is_true(expr: ast.expr) -> bool:
    return isinstance(expr, ast.Constant) and bool(expr.value) is True


class FunctionInterpreter(CallEvaluator):
    """Abstract interpretation of one function body (or the module body)."""

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
        if (
            is_method
            and isinstance(owner, ast.ClassDef)
            and self.module.class_info(owner).lightning
        ):
            if libraries.evaluation_hook(node.name):
                # Run by the Trainer under no_grad or inference_mode, which one is not known.
                self.mode = GRAD_UNKNOWN
            elif node.name == "training_step":
                self.returns_loss_to_lightning = libraries.backpropagates_training_step(owner)
        for index, param in enumerate(params):
            value = self._annotated(param.annotation)
            if index == 0 and is_method and isinstance(owner, ast.ClassDef):
                info = self.module.class_info(owner)
                if self.self_view is not None and self.self_view.node is owner:
                    info = self.self_view  # one instance's view (`instance_summary`)
                is_classmethod = any(
                    isinstance(d, ast.Name) and d.id == "classmethod" for d in node.decorator_list
                )
                if not is_classmethod:
                    value = instance_value(info)
            if (
                is_method
                and node.name == "forward"
                and index > 0
                and value is UNKNOWN
                and param is not args.vararg
                and param is not args.kwarg
            ):
                stand_in = stand_in_of(param)
                self.input_nodes[param.arg] = stand_in
                value = Value(graph=frozenset({stand_in}))
            self.env[param.arg] = value
        callers = self.module.parameter_facts.get(id(node))
        if callers is not None:
            for name, known in callers.parameters.items():
                if "." in name:
                    self.bind_handed_layer(name, known)  # a frozen layer (`model.body`)
                elif known_argument(known):
                    self.env[name] = known
            # The grad mode every call runs it under (a decorator below still wins).
            if callers.grad_enabled is False and callers.grad_off is not None:
                self.mode = GradMode(False, callers.grad_off)
            elif callers.grad_enabled is not True:
                self.mode = GRAD_UNKNOWN
        if self.mode.enabled is True and self.module.reachable_from_elsewhere(node):
            # Another file of the project may call it with recording off (`grad_off_calls`).
            self.mode = GRAD_UNKNOWN
        if node.name != "forward":
            # Tag each parameter, so a caller can tell whether what it passes reaches a
            # backward() in here (see `_params_carried_across_calls`).
            first = 1 if is_method else 0
            for param in [*args.posonlyargs, *args.args, *args.kwonlyargs][first:]:
                tag = param_tag(param)
                self.param_tags[param.arg] = tag
                bound = self.env.get(param.arg, UNKNOWN)
                self.env[param.arg] = evolve(bound, carries=bound.carries | {tag})
            self.input_nodes.update(bind_stand_ins(self.env, node, first))
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
        outer_before, before = self.stmt_before, None
        for stmt in body:
            if self.env is None:
                break
            self.stmt_before = before
            self.run_stmt(stmt)
            before = stmt
        self.stmt_before = outer_before
        # set_grad_enabled(...) statements do not leak out of a function body.
        if self.function is not None and body is self.function.body:
            self.mode = saved_mode

    def run_stmt(self, stmt: ast.stmt) -> None:
        """Interpret one statement."""
        if self.in_element_pass and isinstance(stmt, UNSURE_STATEMENTS):
            self.env = None  # the pass run for one element goes no further (`element_passes`)
            return
        previous, self.stmt = self.stmt, stmt
        try:
            handler = self.stmt_handlers.get(type(stmt))
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
        self.freeze_by_attribute(stmt)

    def _stmt_Assign(self, stmt: ast.Assign) -> None:
        value = self.eval(stmt.value)
        if (
            len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name)
            and _may_be_backpropagated(value)  # before the name scan: it costs a cache entry
            and stmt.targets[0].id in self.backpropagated
        ):
            # `loss = criterion(model(x), y)` with unknown parts, then `loss.backward()`:
            # whenever that backward runs, `loss` is a tensor with history.
            value = _backpropagated(value)
        for target in stmt.targets:
            self.bind(target, value)
        self.freeze_by_attribute(stmt)
        if len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            if self.record and self.env is not None:
                self.module.analysis.bound_values.append((stmt, value.historyless))
            self._backpropagated_attributes(stmt.targets[0].id, value)
        elif len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Tuple | ast.List):
            self._backpropagated_elements(stmt.targets[0])

    def _backpropagated_elements(self, target: ast.Tuple | ast.List) -> None:
        """`loss, parts = compute_loss(...)` then `loss.backward()`: `loss` is a tensor with
        history from this binding on, whatever the call returned."""
        if self.env is None:
            return
        for element in target.elts:
            if isinstance(element, ast.Name) and element.id in self.backpropagated:
                self.env[element.id] = _backpropagated(self.env.get(element.id, UNKNOWN))

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
        if isinstance(stmt.target, ast.Subscript) and dotted(stmt.target.value) is not None:
            container = self.eval(stmt.target.value)
            if changed_item(container, stmt.target):
                # `outs[0] += v` of a list: the item's own `__iadd__` (`list_parts`).
                current = self.eval(stmt.target)
        value = self.eval(stmt.value)
        current = self.saved_meanwhile(stmt.target, current)
        result = self.arithmetic(stmt, [current, value])
        if isinstance(stmt.op, ast.Add) and value.kind is Kind.TENSOR:
            total = current
            if isinstance(stmt.target, ast.Subscript):
                # `totals[0] += loss` / `totals["mse"] += loss`: the container is the total.
                total = self._container(stmt.target)
            if (site := self.site(stmt, stmt.target, total)) is not None:
                self.emit(Accumulation(value, **site))
        if current.kind is Kind.TENSOR:
            operator = type(stmt.op).__name__
            if (site := self.site(stmt, stmt.target, current)) is not None:
                self.emit(InPlaceChange(operator, **site))
            self.modified_in_place(stmt, stmt.target, current)
            if self.mode.enabled is False and not isinstance(stmt.target, ast.Subscript):
                # `w -= lr * w.grad` under no_grad changes the data of the same tensor:
                # it keeps its requires_grad, leaf-ness and creation (as `w.add_()` does).
                return
            # `x += y` on a tensor changes x in place: it stays the same (leaf) tensor.
            result = self.in_place_result(current, result)
        elif isinstance(stmt.target, ast.Subscript):
            self._subscript_store(stmt.target, stmt)
        self.bind(stmt.target, result)

    def _container(self, target: ast.Subscript) -> Value:
        """The total of `totals[i] += x`: the container, as bound here, or as read when an
        attribute is not (`self.sums` in a method: the state a previous call left)."""
        base_key = dotted(target.value)
        if base_key is None:
            return UNKNOWN
        unbound = self.env is not None and base_key not in self.env
        if unbound and isinstance(target.value, ast.Attribute):
            return self.eval(target.value)
        return self.lookup(base_key)

    def _stmt_Return(self, stmt: ast.Return) -> None:
        value = self.eval(stmt.value) if stmt.value is not None else NONE
        if self.returns_loss_to_lightning and stmt.value is not None:
            self._lightning_backward(stmt.value, value)
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
            elif isinstance(target, ast.Subscript):
                self._delete_item(target)

    def _delete_item(self, target: ast.Subscript) -> None:
        """`del params[0]` / `del losses["kl"]`: the list no longer holds what it held at
        known places, the dict's keys are no longer known."""
        self.eval(target.slice)
        key = dotted(target.value)
        if key is None or self.env is None or key not in self.env:
            return
        held = self.env[key]
        if held.kind is Kind.SEQUENCE:
            self.env[key] = list_members.taken_from(held)
        elif held.kind is Kind.MAPPING:
            self.env[key] = Value(kind=Kind.MAPPING, carries=held.carries, origin=held.origin)

    def _stmt_Global(self, stmt: ast.Global) -> None:
        if self.env is not None:
            for name in stmt.names:
                self.env[name] = UNKNOWN

    _stmt_Nonlocal = _stmt_Global

    def _stmt_Import(self, stmt: ast.Import | ast.ImportFrom) -> None:
        for alias in stmt.names:
            name = alias.asname or alias.name.split(".")[0]
            if name != "*":
                self.bind_key(name, self.module.imported(stmt, alias))
            elif isinstance(stmt, ast.ImportFrom):
                for bound, value in self.module.star_imported(stmt).items():
                    self.bind_key(bound, value)

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
        test = self.eval(stmt.test)
        if test.kind is Kind.SCALAR and isinstance(test.const, bool):
            # A test whose value is certain (`if USE_AMP:` with `USE_AMP = False` bound
            # once, `if cfg["phase"] == "train":`): only the branch it takes ever runs.
            self.run_block(stmt.body if test.const else stmt.orelse)
            return
        if self.in_element_pass:
            self.env = None  # a test not known on this pass ends it (`element_passes`)
            return
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
        self._changed_on_some_pass(stmt, after_body, after_else)
        self._state_left_as_found(start, after_body, after_else)
        self.env = join_env(
            after_body,
            after_else,
            absent_is_unbound=self.absent_is_unbound,
            kept=self.kept_attribute,
        )
        if after_body is not None and after_else is not None and self.env is not None:
            merge_branch_graphs(stmt, after_body, after_else, self.env)
        if body_mode == body_start and self.mode == else_start:
            self.mode = start_mode  # neither branch switched modes itself
        elif self.mode != body_mode:
            self.mode = GRAD_UNKNOWN

    def _changed_on_some_pass(
        self, stmt: ast.If, after_body: Env | None, after_else: Env | None
    ) -> None:
        """An `if` run on every pass of a loop over known numbers, whose test certainly
        holds (or fails) on some pass (see `loop_passes`): what the branch taken then
        certainly changed in place is changed before the rest of that pass runs."""
        if not self.frames or self.frames[-1][0] != "loop":
            return
        loop = self.frames[-1][1]
        passes = self.loop_passes.get(loop)
        if passes is None:
            return
        taken = branches_taken(stmt.test, passes, self.settled)
        changed = self.changed_on_some_pass.get(loop, frozenset())
        for runs, env in ((taken.body, after_body), (taken.orelse, after_else)):
            state = env.get(GRAPH_STATE_KEY) if runs and env is not None else None
            if state is not None:
                changed |= state.saved_in
        if changed:
            self.changed_on_some_pass[loop] = changed

    def _state_left_as_found(self, start: Env | None, *branches: Env | None) -> None:
        """`if self.hidden is None: self.hidden = init()` in a method: on the branch that does
        not bind `self.hidden`, it still holds what the previous call left, as a read of it
        there would say (tagged; see `_expr_Attribute`). Filled in before the join, which
        would otherwise forget it, for attributes this method read before the `if` (the
        state's first read is where a fix detaches it)."""
        if start is None:
            return
        bound = {key for env in branches if env is not None for key in env}
        for key in bound - start.keys():
            if not self._read_state(key):
                continue
            attr = key[5:]
            _, tag = self.state_reads[attr]
            found = Value(carries=frozenset({tag}), graph=self.state_graph(attr))
            for env in branches:
                if env is not None and key not in env:
                    env[key] = found

    def _read_state(self, key: str) -> bool:
        """`key` is `self.<attr>` of a method that read it as the previous call left it (see
        `state_read`)."""
        attr = key[5:]
        return (
            self.function is not None
            and key.startswith("self.")
            and "." not in attr
            and attr in self.state_reads
        )

    def _narrowed(self, env: Env | None, facts: narrowing.Facts) -> Env | None:
        """A copy of `env` on a branch where the test's `facts` hold (`h is None` there)."""
        if env is None:
            return None
        branch = dict(env)
        for key in facts.none:
            if key in branch or self._read_state(key):
                branch[key] = NONE
        if facts.instance and self._is_builtin("isinstance"):
            classes = self.submodule_classes()
            for key, tested, when in facts.instance:
                held = branch.get(key)
                kept = None if held is None else submodules.narrowed(held, tested, when, classes)
                if kept is not None:
                    branch[key] = kept
        if facts.equal or facts.unequal or facts.truthy or facts.falsy:
            for key, value in env.items():
                unless = value.autograd.unless
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
        handler_start = join_env(start, after_body, kept=self.kept_attribute)
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
        self.env = join_envs(outcomes, kept=self.kept_attribute)
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
        self.env = join_envs(outcomes, kept=self.kept_attribute)

    def _layer_of(self, iter_expr: ast.expr, iterated: Value) -> Value | None:
        """`for layer in self.layers:` over an `nn.ModuleList` (or `nn.Sequential`) of like
        modules no code of the file changes: each iteration binds one of them, as
        `self.layers[i]` gives (None for anything else)."""
        if iterated.kind is not Kind.MODULE or iterated.items is None:
            return None
        if callee_name(iter_expr) is None or self.module.container_may_change(iter_expr):
            return None
        return evolve(iterated.items, carries=iterated.all_carries())

    def _enumerated(self, iter_expr: ast.expr) -> ast.expr | None:
        """`X` of `enumerate(X)` or `enumerate(X, start)` (the builtin, given no keyword
        but `start` and no `*args`); None for anything else."""
        if not (
            isinstance(iter_expr, ast.Call)
            and isinstance(iter_expr.func, ast.Name)
            and iter_expr.func.id == "enumerate"
            and self._is_builtin("enumerate")
            and 1 <= len(iter_expr.args) <= 2
            and all(k.arg == "start" for k in iter_expr.keywords)
            and not any(isinstance(a, ast.Starred) for a in iter_expr.args)
        ):
            return None
        return iter_expr.args[0]

    def _held_modules(self, iter_expr: ast.expr, iterated: Value) -> int:
        """How many modules iterating an `nn.ModuleList` or `nn.Sequential` yields, when it
        was built from a list written out (`nn.ModuleList([GraphConv(a, b), GraphConv(b,
        c)])`) or a comprehension over a known range (`ModuleRef.held_count`) and no code of
        the file changes a container of that name (an `append`, `extend`, `insert`, item
        stored or deleted); 0 otherwise."""
        module = iterated.module
        if iterated.kind is not Kind.MODULE or module is None or not module.held_count:
            return 0
        if callee_name(iter_expr) is None or self.module.container_may_change(iter_expr):
            return 0
        return module.held_count

    def _loop_entry(self, iter_expr: ast.expr, iterated: Value) -> tuple[int, Value | None]:
        """What a loop over modules held by a container (`for layer in self.layers`, `for
        i, layer in enumerate(self.layers)`) certainly runs: how many times at least (0 when
        unknown), and what one iteration binds when the container holds like modules (an
        `(index, layer)` pair under `enumerate`; None when unknown). Iterating
        `enumerate(X)` yields one pair per item of `X`."""
        inner = self._enumerated(iter_expr)
        target = iter_expr if inner is None else inner
        key = dotted(target)
        value = iterated if inner is None else (self.settled(key) if key else UNKNOWN)
        trips = self._held_modules(target, value)
        layer = self._layer_of(target, value)
        if inner is not None and layer is not None:
            index = Value(grad=Grad.UNTRACKED, kind=Kind.SCALAR)
            layer = Value(kind=Kind.SEQUENCE, elements=(index, layer))
        return trips, layer

    def _stmt_For(self, stmt: ast.For | ast.AsyncFor) -> None:
        # Which parameters a filtered `named_parameters()` loop freezes, told before the
        # loop runs (its tests read what is bound before it).
        named = self._frozen_by_name(stmt) if self.module.frozen_facts else None
        harmless = self._unfreezes_nothing(stmt)
        iterated = self.eval(stmt.iter)
        builtin_range = self._is_builtin("range")
        trips = least_trips(stmt.iter, iterated, self.settled, range_is_builtin=builtin_range)
        held_trips, held_element = self._loop_entry(stmt.iter, iterated)
        trips = max(trips, held_trips)
        runs = trips >= 1
        if (site := self.site(stmt, stmt.iter, iterated)) is not None:
            self.emit(LoopTrips(trips, **site))
        runs = runs or self._filled_then_stacked(stmt)
        empty = certainly_empty(stmt.iter, iterated, self.settled, range_is_builtin=builtin_range)
        if runs:
            self.entered_loops.add(stmt)
        passes = loop_passes(stmt, self.settled, range_is_builtin=builtin_range)
        if passes is not None:
            self.loop_passes[stmt] = passes
        element = element_of(iterated)
        each = element_passes(stmt, iterated)
        if element is UNKNOWN or (held_element is not None and self._enumerated(stmt.iter)):
            element = held_element or element
            each = None
        if element is UNKNOWN:
            element = self.parameters_element(stmt.iter) or element
        drawn = self._batch_names(stmt)
        self._integer_elements_asked(stmt, iterated)

        def at_head() -> None:
            self.bind(stmt.target, element)
            if drawn and self.env is not None:
                for name in drawn:
                    bound = self.env.get(name)
                    if bound is not None and _knows_nothing(bound):
                        self.env[name] = evolve(bound, batch=True)

        self._loop(stmt, at_head, runs=runs, empty=empty, each=each)
        self._elements_changed_in_place(stmt)
        self._listed_tensors_changed(stmt, runs=runs)
        if self.module.frozen_facts:
            owner = params.freeze_loop_owner(stmt)
            if owner is not None:
                method = "named_parameters" if isinstance(stmt.target, ast.Tuple) else "parameters"
                self._freeze(owner, stmt, f"a loop over `{ast.unparse(owner)}.{method}()`")
            elif named is not None:
                self._freeze_named(stmt, *named)
        if harmless is not None:
            if self.record:
                self.module.analysis.unfreeze_runs.append((stmt, harmless))
            if not harmless:
                self._unfreeze(None)

    _stmt_AsyncFor = _stmt_For

    def _filled_then_stacked(self, stmt: ast.For | ast.AsyncFor) -> bool:
        """The loop fills a list that starts empty and that a later statement hands to
        `torch.stack`/`torch.cat` (which raise on an empty list): every path that goes on
        past that call ran the loop (see `stacked_lists`)."""
        scope = self.function if self.function is not None else self.module.tree
        calls = stacking_calls(scope).get(id(stmt), ())
        return any(self.scope.resolve(call.func) in api.EMPTY_LIST_RAISES for call in calls)

    def _frozen_by_name(
        self, stmt: ast.For | ast.AsyncFor
    ) -> tuple[ast.expr, tuple[ParameterName, ...], tuple[ParameterName, ...]] | None:
        """`for name, p in <owner>.named_parameters(): if <test of name>: p.requires_grad =
        False`: the owner, the names its parameters may have and those the loop certainly
        freezes (see `gradguard.analysis.parameter_names`); None when the structure of the
        owner may have changed or the loop has another shape."""
        found = self._named_loop(stmt)
        if found is None:
            return None
        owner_expr, names, strings = found
        return owner_expr, names, certainly_frozen(stmt, names, strings)

    def _unfreezes_nothing(self, stmt: ast.For | ast.AsyncFor) -> bool | None:
        """For a loop unfreezing parameters by name (`unfreeze_loops`), in a file whose
        frozen facts rest on it: whether it certainly unfreezes none of the parameters of
        the module it runs over (the names they may have, tested as the loop does); None
        for any other loop."""
        if not self.module.frozen_facts or not is_unfreeze_loop(self.module.tree, stmt):
            return None
        found = self._named_loop(stmt)
        return found is not None and not may_unfreeze(stmt, found[1], found[2])

    def _named_loop(
        self, stmt: ast.For | ast.AsyncFor
    ) -> tuple[ast.expr, tuple[ParameterName, ...], StringsOf] | None:
        """`for name, p in <owner>.named_parameters(): ...`: the owner, the names its
        parameters may have and what the loop's tests read; None when the structure of the
        owner may have changed or is not known."""
        iterable = stmt.iter
        if not (
            isinstance(iterable, ast.Call)
            and isinstance(iterable.func, ast.Attribute)
            and iterable.func.attr == "named_parameters"
            and not iterable.args
            and not iterable.keywords
        ):
            return None
        owner_expr = iterable.func.value
        key = dotted(owner_expr)
        if key is None or self.env is None:
            return None
        owner = self.env.get(key)
        if owner is None and "." in key:
            owner = self.kept_attribute(key, self.env)
        root = callee_name(owner_expr)
        stored = submodules.foreign_children(self.module.tree)
        if (
            owner is None
            or owner.kind is not Kind.MODULE
            or stored is None
            or not counter_kept(self.function or self.module.tree, owner_expr)
            or (root is not None and self.module.container_may_change(owner_expr))
        ):
            return None
        names = parameter_names(
            owner,
            self.submodule_classes(),
            stored=stored,
            containers=self.module.containers_change_by_attribute_only(),
        )
        stored = names_stored(stmt.body)
        return owner_expr, names, lambda expr: self._test_strings(expr, stored)

    def _test_strings(self, expr: ast.expr, stored: frozenset[str]) -> Strings:
        """The string (or strings) a test operand of a `named_parameters()` loop certainly
        holds, read without effect: a name bound to a string, `D["key"]` of a module-level
        settings dict nothing changes, a name bound once to a list of string literals that
        nothing can change (`parameter_names.listed_strings`). None otherwise, and when the
        loop rebinds what it reads."""
        if not plain_operand(expr) or any(name in stored for name in loaded_names(expr)):
            return None
        scope: ast.AST = self.function or self.module.tree
        passed = False
        if isinstance(expr, ast.Name):
            if expr.id in self.module.declared_global:
                return None
            local = self.function is not None and expr.id in local_binding_counts(self.function)
            listed = listed_strings(expr.id, scope if local else self.module.tree)
            if listed is not None:
                return listed
            # A parameter every call fills with strings nothing can change.
            passed = self.function is not None and strings_passed(
                self.module.tree, self.function, expr.id, self.module.syntax.unchanged_dicts()
            )
        elif not (
            isinstance(expr, ast.Subscript)
            and isinstance(expr.value, ast.Name)
            and expr.value.id in self.module.syntax.unchanged_dicts()
            and (self.function is None or expr.value.id not in local_binding_counts(self.function))
        ):
            return None
        env = dict(self.env) if self.env is not None else None
        record, self.record = self.record, False
        try:
            value = self.eval(expr)
        finally:
            self.record = record
            self.env = env
        found = strings_of(value)
        # A sequence read from a name may be a list some alias changed: only a settings
        # dict's (which nothing changes), or a parameter's so passed, counts.
        if isinstance(found, str) or isinstance(expr, ast.Subscript) or passed:
            return found
        return None

    def _freeze_named(
        self,
        stmt: ast.For | ast.AsyncFor,
        owner: ast.expr,
        names: tuple[ParameterName, ...],
        frozen: tuple[ParameterName, ...],
    ) -> None:
        """Freeze the owner when the loop freezes every name its parameters may have. (Not a
        layer all of whose names it freezes: a parameter the layer shares with another is
        listed once, under the other's name, which the tests may not pass.)"""
        if frozen and len(frozen) == len(names):
            text = ast.unparse(owner)
            description = f"a loop over `{text}.named_parameters()` whose tests pass every name"
            self._freeze(owner, stmt, description)

    def _integer_elements_asked(self, stmt: ast.For | ast.AsyncFor, iterated: Value) -> None:
        """`for t in (embeds, ids): t.requires_grad_()`, `for t in bn.buffers():
        t.requires_grad = True`: the loop binds its target to each element in turn, so an
        element certainly of an integer dtype (a known element, or the one a module's
        integer buffer certainly is, see `ModuleRef.integer_buffer`) reaches an unguarded
        request at the top of the body and raises; the join the body is interpreted with
        cannot tell. Reported as GG402 reports it for one tensor."""
        held = _integer_element(stmt.target, stmt.iter, iterated)
        if held is None:
            return
        name, element = held
        tests = [n.test for kind, n in self.frames if kind == "cond" and isinstance(n, ast.If)]
        outer = self.stmt
        try:
            for body_stmt, node, target in _unguarded_requests(stmt.body, name):
                self.stmt = body_stmt
                site = self.site(node, target, element)
                if site is None or (
                    isinstance(node, ast.Call)
                    and dtypes.dtype_guarded(node, target, body_stmt, tests)
                ):
                    continue
                if isinstance(node, ast.Call):
                    self.emit(IntegerGradRequest(in_place=True, **site))
                else:
                    self.emit(AttributeSet("requires_grad", **site))
        finally:
            self.stmt = outer

    def _batch_names(self, stmt: ast.For | ast.AsyncFor) -> frozenset[str]:
        """The names the loop binds to batches of data (see `gradguard.analysis.batches`):
        none unless the source's value is unknown."""
        drawn = batches.drawn_from(stmt)
        if drawn is None:
            return frozenset()
        source, target = drawn
        value = self._bound_value(source)
        if value is not None and not _knows_nothing(value):
            return frozenset()
        names = batches.bound_names(target)
        return names if batches.feeds_a_call(stmt, names, self._batch_consumer) else frozenset()

    def _batch_consumer(self, func: ast.expr) -> bool:
        """A callee that may consume batches: not torch, not a builtin (a model handed in,
        `self.net`, a module or a function of this file, `train_step(model, x, y)`)."""
        if isinstance(func, ast.Name) and self._is_builtin(func.id):
            return False
        if dotted(func) is None or self.scope.resolve(func) is not None:
            return False
        value = self._bound_value(func)
        return value is None or value.kind in (Kind.UNKNOWN, Kind.MODULE, Kind.FUNCTION)

    def _bound_value(self, expr: ast.expr) -> Value | None:
        """What the name or dotted attribute `expr` is bound to here (or at module level),
        None when nothing binds it; read without noting a read of loop-carried state."""
        key = dotted(expr)
        if key is None or self.env is None:
            return None
        value = self.env.get(key)
        if value is None and "." not in key:
            value = self.module.globals.get(key)
        return value

    def _expr_ListComp(self, expr: ast.ListComp | ast.GeneratorExp | ast.SetComp) -> Value:
        """A list comprehension (see `_comprehension`), recorded as a `RepeatedDraw` when its
        element never reads what its one generator binds and it has no condition."""
        result = self._comprehension(expr)
        generator = expr.generators[0]
        if (
            isinstance(expr, ast.ListComp)
            and len(expr.generators) == 1
            and not generator.ifs
            and not generator.is_async
            and not _reads_any(expr.elt, generator.target)
            and (site := self.site(expr, expr.elt, result.items or UNKNOWN)) is not None
        ):
            iterated = range_call(generator.iter)  # its count needs no value
            trips = 0
            if iterated is not None:
                builtin = self._is_builtin("range")
                trips = least_trips(iterated, UNKNOWN, self.settled, range_is_builtin=builtin)
            self.emit(RepeatedDraw(trips, **site))
        return result

    def _comprehension(self, expr: ast.ListComp | ast.GeneratorExp | ast.SetComp) -> Value:
        """A list comprehension whose element calls something (`[self.train_batch(b) for b
        in batches]`) runs that call once per item, like a `for` loop: it is interpreted as
        one, so state a call carries from one item to the next (a hidden state kept on
        `self`) is seen. Other comprehensions (and lazy generator expressions, which may
        never run) are evaluated once, see `ExpressionEvaluator._expr_ListComp`; one over a
        few known elements is run once per element, see `_comprehension_by_element`."""
        loop = _as_loop(expr) if isinstance(expr, ast.ListComp) else None
        if loop is None or self.env is None:
            return super()._expr_ListComp(expr)
        generator = expr.generators[0]
        iterated = self.eval(generator.iter)
        by_element = self._comprehension_by_element(expr, iterated)
        if by_element is not None:
            return by_element
        runs = certainly_entered(
            generator.iter, iterated, self.lookup, range_is_builtin=self._is_builtin("range")
        )
        element = element_of(iterated)
        if element is UNKNOWN:  # `[layer(x) for layer in self.layers]`, as a `for` loop
            element = self._layer_of(generator.iter, iterated) or element
        scoped = {
            node.id: self.env.get(node.id)
            for node in ast.walk(generator.target)
            if isinstance(node, ast.Name)
        }
        items: list[Value] = []

        def iteration() -> None:
            self.bind(generator.target, element)
            for condition in generator.ifs:
                self.eval(condition)
            if self.env is not None:
                items.append(self.eval(expr.elt))

        self._loop(loop, iteration, runs=runs)
        if self.env is not None:
            for name, value in scoped.items():  # the comprehension's names do not leak
                if value is None:
                    self.env.pop(name, None)
                else:
                    self.env[name] = value
        return (
            items_list(items[-1], expr.elt) if items else Value(kind=Kind.SEQUENCE, items=UNKNOWN)
        )

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

    def _listed_tensors_changed(self, stmt: ast.For | ast.AsyncFor, *, runs: bool) -> None:
        """`for p in [W1, b1]: p.requires_grad = True` (see `listed_tensors`): each listed
        tensor now requires grad when the loop certainly runs and asks it first thing of a
        leaf; any other grad change in the body leaves the listed tensors' state unknown."""
        if not isinstance(stmt.target, ast.Name) or self.env is None:
            return
        name = stmt.target.id
        if not listed_tensors.grad_changes(stmt.body, name):
            return
        body = self.function.body if self.function is not None else self.module.tree.body
        listed = listed_tensors.listed_names(stmt.iter, body)
        if listed is None:
            return
        certain = runs and listed.exact and listed_tensors.certain_request(stmt.body, name)
        for listed_name in listed.names:
            value = self.env.get(listed_name)
            if value is None or value.kind not in (Kind.TENSOR, Kind.UNKNOWN):
                continue
            if (
                certain
                and value.kind is Kind.TENSOR
                and (value.leaf or value.grad is Grad.UNTRACKED)
            ):
                # (A tensor that does not require grad is a leaf, `randn(n) * scale` too.)
                changed = forced_leaf(value)
            else:
                changed = evolve(UNKNOWN, kind=Kind.TENSOR)
            self.env[listed_name] = evolve(changed, origin=value.origin)

    def _stmt_While(self, stmt: ast.While) -> None:
        self._loop(stmt, lambda: self.eval(stmt.test))

    def _loop(
        self,
        stmt: LoopNode,
        at_head: object,
        *,
        runs: bool = False,
        empty: bool = False,
        each: tuple[Value, ...] | None = None,
    ) -> None:
        """Probe one iteration, then run it again with loop-carried names tagged. `runs`:
        the body certainly runs at least once (see `loop_entry`). `each`: the elements a
        `for` loop binds one per pass, each also run on its own (`element_passes`)."""
        head_action = at_head if callable(at_head) else (lambda: None)
        before = self.env
        if before is None:
            return
        infinite = isinstance(stmt, ast.While) and is_true(stmt.test)
        # A loop whose body certainly runs: nothing leaves it with the state from before it.
        runs = runs or infinite
        if len(self.loops) >= _PROBED_DEPTH:
            head = _unknown_at_head(before, stmt)
        else:
            head = self._probed_head(stmt, before, head_action, empty=empty)
        mode = self.mode
        end, breaks = self._iteration(stmt, head, head_action)
        if each is not None and isinstance(stmt, ast.For):
            self._element_passes(stmt, head, mode, each)
        self.changed_on_some_pass.pop(stmt, None)  # known within a pass only
        if self.mode != mode:
            self.mode = GRAD_UNKNOWN
        exits: list[Env | None] = [end, *breaks]
        if not runs:
            exits.insert(0, _skipped(before, exits, None if empty else stmt))
        self.env = join_envs(
            exits, absent_is_unbound=self.absent_is_unbound, kept=self.kept_attribute
        )
        if stmt.orelse and not infinite:
            self.run_block(stmt.orelse)

    def _element_passes(
        self, stmt: ast.For, head: Env, mode: GradMode, each: tuple[Value, ...]
    ) -> None:
        """Run the body once per element of `each`, from the loop's `head` under `mode`,
        with `stmt`'s target bound to that element alone, for the events (`PASS_EVENTS`) of
        what each such pass certainly reaches (see `element_passes`); nothing else is kept."""
        records = self.record or bool(self.events_in_context)
        if not records or self.in_element_pass:
            return
        saved_env, saved_mode, returned = self.env, self.mode, self.returned
        exits, changed = len(self.exits), self.changed_on_some_pass.get(stmt)
        record, events = self.record, self.events_in_context
        self.record, self.in_element_pass = False, True
        self.events_in_context = events | PASS_EVENTS if record else events
        try:
            for element in each:
                self.mode = mode
                self._iteration(stmt, dict(head), lambda e=element: self.bind(stmt.target, e))
        finally:
            self.record, self.events_in_context, self.in_element_pass = record, events, False
            self.env, self.mode, self.returned = saved_env, saved_mode, returned
            del self.exits[exits:]
            if changed is None:
                self.changed_on_some_pass.pop(stmt, None)
            else:
                self.changed_on_some_pass[stmt] = changed

    def _probed_head(
        self, stmt: LoopNode, before: Env, head_action: object, *, empty: bool = False
    ) -> Env:
        """The state at the top of every iteration: one probe iteration tells which names
        the body rebinds; each is joined with its value before the loop and tagged as
        loop-carried (a `Carry`). A name seeded with a number literal that the body makes a
        tensor is that tensor at the head (`total = 0; ... total += loss`): on the first
        iteration it is the number, of which every tensor-only use raises anyway."""
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
                if previous is None or (
                    not empty and value.kind is Kind.TENSOR and _total(stmt, key, previous)
                ):
                    # A total seeded with a number, a tensor from the first iteration on
                    # (see `_skipped`).
                    merged = evolve(value)
                else:
                    merged = join(previous, value)
                head[key] = evolve(merged, carries=merged.carries | {carry})
                self.heads[id(carry)] = head[key]
        return head

    def _lightning_backward(self, returned: ast.expr, value: Value) -> None:
        """`return loss` (or `return {"loss": loss, ...}`) from a LightningModule's
        `training_step`: the Trainer calls `loss.backward()` on it. Recorded as a backward
        call at the returned expression (`via` LIGHTNING_BACKWARD)."""
        target, loss = returned, value
        if isinstance(returned, ast.Dict):
            keys = [k.value if isinstance(k, ast.Constant) else None for k in returned.keys]
            if "loss" not in keys or None in keys:
                return
            target = returned.values[keys.index("loss")]
            if value.fields is None or value.elements is None or "loss" not in value.fields:
                return
            loss = value.elements[value.fields.index("loss")]
        if loss.kind not in (Kind.TENSOR, Kind.UNKNOWN):
            # `return None` skips the step; a number or another structure makes Lightning
            # raise its own error (MisconfigurationException), not autograd's.
            return
        call = ast.Call(
            func=ast.Attribute(value=target, attr="backward", ctx=ast.Load()), args=[], keywords=[]
        )
        ast.copy_location(call, target)
        ast.copy_location(call.func, target)
        self.backpropagate(call, target, loss, LIGHTNING_BACKWARD)

    def _iteration(
        self, stmt: LoopNode, head: Env, head_action: object
    ) -> tuple[Env | None, list[Env | None]]:
        self.env = head
        self.changed_on_some_pass.pop(stmt, None)  # a new pass changed nothing yet
        frame = LoopFrame(stmt)
        self.loops.append(frame)
        try:
            with self._frame("loop", stmt):
                if callable(head_action):
                    head_action()
                self.run_block(stmt.body)
        finally:
            self.loops.pop()
        end = join_envs([self.env, *frame.continues], kept=self.kept_attribute)
        return end, frame.breaks


def _backpropagated(value: Value) -> Value:
    """A value bound to a name `backward()` is later called on: a tensor with history, when
    nothing else is known of its autograd state (see `backprop.backpropagated_names`)."""
    if _may_be_backpropagated(value):
        return evolve(value, grad=Grad.TRACKED, kind=Kind.TENSOR)
    return value


def _may_be_backpropagated(value: Value) -> bool:
    return value.grad is Grad.UNKNOWN and value.unless is None and value.kind in _MAYBE_TENSOR


_MAYBE_TENSOR = (Kind.UNKNOWN, Kind.TENSOR)


def _comprehension_loop(expr: ast.ListComp) -> ast.For | None:
    """The `for` loop a list comprehension of one synchronous generator whose element makes
    a call stands for (no body: the element is evaluated at the head of each iteration),
    placed at the comprehension; None for any other comprehension. One loop node per
    comprehension (`_as_loop`), so every interpretation of it names the same loop."""
    if len(expr.generators) != 1 or expr.generators[0].is_async:
        return None
    if not any(isinstance(node, ast.Call) for node in ast.walk(expr.elt)):
        return None
    generator = expr.generators[0]
    loop = ast.For(target=generator.target, iter=generator.iter, body=[], orelse=[])
    return ast.copy_location(loop, expr)


_as_loop = cached_by_node(_comprehension_loop)


def _reads_any(expr: ast.expr, target: ast.expr) -> bool:
    """True when `expr` reads a name `target` binds."""
    bound = {node.id for node in ast.walk(target) if isinstance(node, ast.Name)}
    return any(isinstance(node, ast.Name) and node.id in bound for node in ast.walk(expr))


# Loops nested deeper than this (in one function) are not probed: each probed level runs its
# body twice, so the work doubles per level, and a file of 30 nested loops (it parses, though
# Python refuses to compile more than 20 nested blocks) would take days. Such a loop runs
# once, from a head where every name the loop mentions is unknown: no carries are tagged
# there, and nothing is claimed of what an iteration may have changed.
_PROBED_DEPTH = 6


def _unknown_at_head(before: Env, stmt: LoopNode) -> Env:
    """`before` with every entry of a name the loop mentions (and its attributes) unknown."""
    mentioned = _mentioned_names(stmt)
    head = dict(before)
    for key in before:
        if key.split(".", 1)[0] in mentioned:
            head[key] = UNKNOWN
    return head


def _skipped(before: Env, exits: list[Env | None], accumulating: LoopNode | None) -> Env:
    """The state after a loop whose body ran zero times, as far as the loop-carried state of
    enclosing loops goes: a carry (`Carry`) a name held before the loop but holds at no way
    out of an iteration reaches past the loop only if the body never runs (an `output`
    rebound on every time step of a sequence, read after the loop). Such a name keeps its
    value and loses that carry: what was carried depends on a sequence being empty, which
    the analysis cannot know and code relies on not happening.

    Likewise a total seeded with a Python number that every way out of an iteration leaves
    a tensor (`total = 0` then `total += loss` in a loop over batches): after the loop it
    is that tensor. Were the body never run, it would be the number, and every use of it
    as a tensor (`.numpy()`, `.backward()`, `.item()`) would raise AttributeError instead:
    what holds of the tensor holds of every run that trains on something (`accumulating`:
    the loop, None when it certainly runs zero times)."""
    skipped = _seeded_totals(before, exits, accumulating) if accumulating else before
    kept: dict[str, frozenset[Carry]] = {}
    for env in exits:
        if env is None:
            continue
        for key, value in env.items():
            kept[key] = kept.get(key, frozenset()) | value.all_carries()
    for key, carries in kept.items():
        held = before.get(key)
        if held is None or not held.carries or held.carries <= carries:
            continue
        if skipped is before:
            skipped = dict(before)
        skipped[key] = evolve(held, carries=held.carries & carries)
    return skipped


def _seeded_totals(before: Env, exits: list[Env | None], stmt: LoopNode) -> Env:
    """`before` with each total the loop accumulates into (`_accumulated`), bound to a
    number literal, that every way out of an iteration leaves a tensor bound to that tensor
    (their join) instead (see `_skipped`)."""
    ways = [env for env in exits if env is not None]
    if not ways:
        return before
    found = before
    for key, held in before.items():
        if not _total(stmt, key, held):
            continue
        values = [env.get(key) for env in ways]
        tensors = [v for v in values if v is not None and v.kind is Kind.TENSOR]
        if len(tensors) != len(values):
            continue
        total = tensors[0]
        for value in tensors[1:]:
            total = join(total, value)
        if found is before:
            found = dict(before)
        found[key] = total
    return found


def _total(stmt: LoopNode, key: str, seed: Value) -> bool:
    """`key` is a total the loop accumulates into, seeded with a number literal before it
    (`total = 0` then `total += loss`): see `_skipped`."""
    return _number_literal(seed) and key in _accumulated(stmt)


@cached_by_node
def _accumulated(stmt: LoopNode) -> frozenset[str]:
    """Names the loop adds to from one iteration to the next: `total += x`, or `total =
    total + x` (any expression reading the name), in its own code."""
    found: set[str] = set()
    for node in own_nodes(stmt.body):
        if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            found.add(node.target.id)
        elif (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(target := node.targets[0], ast.Name)
            and any(isinstance(n, ast.Name) and n.id == target.id for n in ast.walk(node.value))
        ):
            found.add(target.id)
    return frozenset(found)


def _number_literal(value: Value) -> bool:
    """A Python int or float written as a literal (`total = 0`, `running = 0.0`)."""
    loss = value.loss
    return (
        value.kind is Kind.SCALAR
        and loss is not None
        and loss.kind is LossKind.LITERAL
        and isinstance(loss.node, ast.Constant)
        and type(loss.node.value) in (int, float)
    )


def _loop_names(stmt: LoopNode) -> frozenset[str]:
    return frozenset(node.id for node in ast.walk(stmt) if isinstance(node, ast.Name))


_mentioned_names = cached_by_node(_loop_names)


def _knows_nothing(value: Value) -> bool:
    """Nothing is known of `value` but where it was bound, the loop state it carries and
    the stand-in a parameter's history is traced by (see `graph_inputs`)."""
    return evolve(value, origin=None, carries=frozenset(), graph=frozenset()) == UNKNOWN


def _integer_element(
    target: ast.expr, iterable: ast.expr, iterated: Value
) -> tuple[str, Value] | None:
    """The name a loop binds to an element certainly of an integer dtype, and that element:
    a known element of a list or tuple (`for t in (embeds, ids)`), or the tensor of a module's
    buffers (`for t in bn.buffers()`, `for k, t in bn.named_buffers()`, see
    `calls._integer_buffers`). None when no element certainly is one."""
    if iterated.kind is Kind.SEQUENCE and iterated.integer_dtype and iterated.fields is None:
        pair = iterated.items is not None
        if pair and isinstance(target, ast.Tuple) and len(target.elts) == 2:
            target = target.elts[1]
        elif pair or isinstance(target, ast.Tuple):
            return None
        counter = Loss(LossKind.NON_DIFFERENTIABLE, iterable, "a BatchNorm's int64 buffer")
        held = Value(Grad.UNTRACKED, Kind.TENSOR, counter, leaf=True, integer_dtype=True)
        return (target.id, held) if isinstance(target, ast.Name) else None
    if not isinstance(target, ast.Name) or iterated.kind is not Kind.SEQUENCE:
        return None
    if iterated.fields is not None or not iterated.elements:
        return None
    for element in iterated.elements:
        if element.integer_valued:
            return target.id, element.with_origin(None)
    return None


def _unguarded_requests(
    body: list[ast.stmt], name: str
) -> Iterator[tuple[ast.stmt, ast.AST, ast.expr]]:
    """`name.requires_grad_()` (or `requires_grad_(True)`) and `name.requires_grad = True`
    among the simple statements that start a loop's body, before any statement that may
    skip them (`if`, `continue`, `break`, any compound statement) or mentions `name`
    otherwise (which may rebind or convert it): (the statement, the call or the
    statement, the receiver)."""
    for body_stmt in body:
        request = listed_tensors.request_of(body_stmt, name)
        if request is not None:
            yield body_stmt, request[0], request[1]
            continue
        if not isinstance(body_stmt, ast.Expr | ast.Assign | ast.AnnAssign | ast.AugAssign):
            return
        if any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(body_stmt)):
            return
