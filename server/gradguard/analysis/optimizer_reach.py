"""Optimizers whose steps never follow a loss that reaches their parameters.

`torch.optim.X(model.parameters(), ...)` holds `model`'s parameters; `opt.step()` applies
their `.grad`. When every backward before every step is on a loss computed without `model`
(from another model, or from a deep copy of it), the step never applies a gradient of that
loss to what it holds: the model the loss comes from never trains, and `model` does not
learn from it.

The fact is certain only when all of this holds (anything else: silence):

* the optimizer is `opt = torch.optim.X(m.parameters(), ...)` with plain names, both bound
  exactly once (`m = m.to(device)` aside), or `opt = make_opt(m, ...)` of a builder whose
  body is only `return torch.optim.X(net.parameters(), ...)` on a parameter it mentions
  nowhere else (or `opt, other = make_opts(m, d)`, a builder made only of optimizer
  constructions returning them as a tuple); when `m` is a parameter holding exactly
  what one caller's name holds (`train(netg, ...)` called once), that name is the model;
  `m` is built from plain arguments (settings objects too:
  `gradguard.analysis.settings_classes`) by a class that owns every parameter it
  computes with (`ModuleRef.self_contained`), or is a `copy.deepcopy(...)`: its
  parameters are its own and no other object's;
* `m` is only ever called, asked for its parameters, state or a deep copy, moved, put in
  train/eval mode, or asked a method of its own class that keeps it to itself (`_self_kept`:
  `model.init_hidden()`, whose result counts as computed from `m`), or returned whole by
  the function that built it when the optimizer lives there or in a function handed the
  model (every step has run by then); never stored, aliased or
  given a new submodule; and `opt` only steps
  (without a closure), zeroes gradients or feeds a `torch.optim.lr_scheduler`: nothing else
  can reach `m`'s parameters or put other parameters into `opt`. Either may be handed to a
  parameter that holds exactly it (`NameFlow.forwarded`: the only call of a plain function
  that never rebinds it), whose every use is held to the same rules;
* every `opt.step()` is a statement of the block that runs a backward before it (since the
  last `opt.zero_grad()` / `m.zero_grad()`, around the loop when the block is a loop body),
  and no call there is handed anything a value computed from `m` may flow into
  (`gradguard.analysis.name_flow`): not the backward's loss, not a helper, not a hidden
  backward. Names that certainly hold no history (`historyless_names`) pass nothing on, and
  `m(x)` itself, called with grad certainly off, gives nothing of `m` to what uses its
  result (`_called_without_grad`); when either was needed, each loss must still reach
  another module built in the file (else the history is cut, not the optimizer wrong).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from gradguard.analysis import torch_api as api
from gradguard.analysis.events import ModuleCall, OptimizerCall
from gradguard.analysis.gradless_modules import gradless_steps
from gradguard.analysis.historyless_names import historyless_names
from gradguard.analysis.model import BackwardCall, ModuleAnalysis
from gradguard.analysis.module_builders import builds_module
from gradguard.analysis.name_flow import UNKNOWN_KEY, Key, NameBinding, NameFlow
from gradguard.analysis.names import arguments_by_parameter, binding_counts, parameter_names
from gradguard.analysis.values import Grad
from gradguard.analysis.walk import own_nodes

# What may be done with the optimized module: methods that neither store it anywhere nor
# give it new parameters (checked against torch 2.13.0's nn.Module).
_MODULE_METHODS = frozenset(
    "parameters named_parameters buffers named_buffers state_dict load_state_dict zero_grad "
    "train eval to cuda cpu float double half bfloat16 requires_grad_ extra_repr".split()
)
# Builtins that only look at a module.
_INSPECTING = frozenset("print repr str isinstance type id len".split())
# What may be done with the optimizer.
_OPTIMIZER_METHODS = frozenset(["step", "zero_grad"])
_LR_SCHEDULERS = "torch.optim.lr_scheduler."


@dataclass(frozen=True, eq=False)
class UnreachedOptimizer:
    """An optimizer every step of which follows backward calls on losses that certainly do
    not reach the parameters it holds."""

    call: ast.Call  # `torch.optim.X(m.parameters(), ...)`
    stmt: ast.stmt
    optimizer: str  # `opt`
    module: str  # `m`
    copied: bool  # `m` is a deep copy
    steps: tuple[OptimizerCall, ...]
    backwards: tuple[BackwardCall, ...]  # the nearest backward before each step
    trained: tuple[str, ...]  # the modules the losses do run (names), in source order
    # Every step of the optimizer is one of `steps`: the construction is what is wrong.
    # Else `steps` are the steps that apply no gradient of the loss backpropagated since
    # the optimizer's gradients were last cleared or applied (the wrong optimizer stepped).
    every_step: bool = True


def unreached_optimizers(
    analysis: ModuleAnalysis, flow: NameFlow | None = None
) -> list[UnreachedOptimizer]:
    """Every optimizer of the file whose parameters no loss before its steps reaches."""
    flow = flow if flow is not None else NameFlow(analysis.tree)
    steps: dict[Key, list[OptimizerCall]] = {}
    for use in analysis.events.of(OptimizerCall):
        if use.method == "step" and isinstance(use.target, ast.Name):
            key = flow.key_of(use.target)
            if key is not None:
                steps.setdefault(_origin(flow, key), []).append(use)
    found = []
    historyless = historyless_names(analysis, flow) if steps else frozenset()
    for key, uses in steps.items():
        fact = _Check(analysis, flow, key, uses, historyless).run()
        if fact is not None:
            found.append(fact)
    # Steps of an optimizer on a module no gradient can reach (`gradless_modules`): no
    # backward before them, whatever its loss, reaches what they hold.
    for gradless in gradless_steps(analysis, flow):
        found.append(
            UnreachedOptimizer(
                gradless.construction,
                gradless.stmt,
                gradless.optimizer,
                gradless.module,
                gradless.copied,
                (gradless.step,),
                (gradless.backward,),
                (),
                every_step=False,
            )
        )
    return found


# Libraries whose capitalized names build objects that are never modules (a parser, a data
# loader, a scaler); torch's own modules live under `torch.nn` (and the traced and scripted
# ones under `torch.fx` and `torch.jit`).
_NOT_MODULE_LIBRARIES = frozenset(
    "argparse collections csv datetime json logging pathlib queue random threading".split()
)


def _not_a_module(qualified: str | None) -> bool:
    """`argparse.ArgumentParser`, `torch.utils.data.DataLoader`, `torch.amp.GradScaler`: a
    class imported from a library that makes no `nn.Module` (unknown names: False)."""
    if qualified is None:
        return False
    if qualified.startswith("torch."):
        return not qualified.startswith(("torch.nn.", "torch.fx.", "torch.jit."))
    return qualified.split(".", 1)[0] in _NOT_MODULE_LIBRARIES


class _Check:
    """Decides one optimizer (see the module docstring)."""

    def __init__(
        self,
        analysis: ModuleAnalysis,
        flow: NameFlow,
        key: Key,
        steps: list[OptimizerCall],
        historyless: frozenset[Key],
    ) -> None:
        self.analysis = analysis
        self.flow = flow
        self.key = key
        self.steps = steps
        # Names holding no autograd history (`historyless_names`): no gradient and no
        # object of the module goes through them.
        self.historyless = historyless
        self.module_key: Key = UNKNOWN_KEY
        # The optimizer's and the module's names: their own, and the parameters of the
        # functions they are handed to that hold exactly them (`NameFlow.forwarded`).
        self.keys = _aliases(flow, key)
        self.module_keys: frozenset[Key] = frozenset()
        # The module's class when it is a class of the file (its own methods may be called).
        self.module_class: ast.ClassDef | None = None
        # The builder's optimizer construction, when `opt = make_opt(m)` (`_construction`).
        self.built_in: tuple[ast.Call, ast.Name] | None = None
        # The module calls the interpreter saw, by call (see `_called_without_grad`).
        self._module_runs: dict[int, list[ModuleCall]] | None = None

    def run(self) -> UnreachedOptimizer | None:
        built = self._construction()
        if built is None:
            return None
        call, stmt, module = built
        module_key = self.flow.key_of(module)
        if module_key is None:
            return None
        # `Adam(netg.parameters())` in `train(netg, ...)`: the model the caller built.
        module_key = _origin(self.flow, module_key)
        copied = self._fresh(module_key, call)
        self.module_keys = _aliases(self.flow, module_key)
        self.module_key = module_key
        if copied is None or not self._confined():
            return None
        flagged: list[OptimizerCall] = []
        backwards: list[BackwardCall] = []
        trained: dict[int, list[str]] = {}
        for step in self.steps:
            trained[id(step)] = []
            nearest = self._step_unreached(step, trained[id(step)])
            if nearest is not None:
                flagged.append(step)
                backwards.append(nearest)
        every_step = len(flagged) == len(self.steps)
        if not every_step:
            # Some steps do train `m` (or may): a step is wrong on its own only when its
            # gradients were certainly cleared, or last applied, since its backward ran.
            kept = [i for i, step in enumerate(flagged) if self._since_cleared(step.stmt)[1]]
            flagged = [flagged[i] for i in kept]
            backwards = [backwards[i] for i in kept]
        if not flagged:
            return None
        return UnreachedOptimizer(
            call,
            stmt,
            self.key[1],
            module.id,
            copied,
            tuple(flagged),
            tuple(backwards),
            tuple(dict.fromkeys(name for step in flagged for name in trained[id(step)])),
            every_step,
        )

    # -- the optimizer and its module ------------------------------------------------------

    def _construction(self) -> tuple[ast.Call, ast.stmt, ast.Name] | None:
        """`opt = torch.optim.X(m.parameters(), ...)`, the only binding of `opt`; or
        `opt = make_opt(m, ...)` (or `opt, other = make_opts(m, d, ...)`) of a builder
        returning one built on its parameter's parameters (`_builder_optimizer`), `m` then
        the caller's argument."""
        bindings = self.flow.bindings.get(self.key, [])
        if len(bindings) != 1 or not isinstance(bindings[0].node, ast.Assign):
            return None
        stmt = bindings[0].node
        part = _built_part(self.flow, bindings[0])
        if part is None:
            return None
        call, position = part
        if not api.optimizer_class(self.flow.qualified(call.func)):
            built = _builder_optimizer(self.flow, call, position)
            if built is None:
                return None
            self.built_in = built
            return call, stmt, built[1]
        module = _parameters_of(_params_argument(call))
        return (call, stmt, module) if module is not None else None

    def _built_optimizer(self, key: Key | None) -> bool:
        """A name bound only to `torch.optim.X(...)` constructions, or to an optimizer a
        builder of the file returns (`d_opt` of `g_opt, d_opt = make_opts(G, D)`), also
        when a function it is handed to holds exactly it."""
        key = _origin(self.flow, key) if key is not None else None
        bindings = self.flow.bindings.get(key, []) if key is not None else []
        for binding in bindings:
            part = _built_part(self.flow, binding)
            if part is None:
                return False
            call, position = part
            if not api.optimizer_class(self.flow.qualified(call.func)) and (
                _builder_optimizer(self.flow, call, position) is None
            ):
                return False
        return bool(bindings)

    def _fresh(self, module_key: Key, call: ast.Call) -> bool | None:
        """Whether the module's parameters are its own: True for a deep copy, False for a
        module built right here owning what it computes with, None when not certain."""
        primary = [b for b in self.flow.bindings.get(module_key, []) if not self._recast(b)]
        if len(primary) != 1 or not isinstance(primary[0].node, ast.Assign):
            return None
        bound = _bound_value(primary[0].node, module_key[1])
        value = api.uncast(bound) if bound is not None else None
        if not isinstance(value, ast.Call):
            return None
        optimized = [u.value.optimizes for u in self.steps if u.value.optimizes is not None]
        # Of `opt = make_opt(m)`, the construction in the builder, as the builder's summary
        # sees it, or the call itself (`interpreter.calls._built_by_builder`).
        calls = {id(call)} | ({id(self.built_in[0])} if self.built_in is not None else set())
        optimized = [o for o in optimized if id(o.call) in calls]
        if any(o.stale is not None for o in optimized):
            return None  # a replaced model: GG604's case
        if any(o.others for o in optimized):
            return None  # built on several modules: which ones a loss must reach is open
        if self.flow.is_deepcopy(value.func) and len(value.args) == 1:
            return True
        builder = self._file_function(value.func)
        if builder is not None and not builds_module(builder, self._constructs_module):
            return None  # `pick()` may return a module other names hold as well
        built = [o.module for o in optimized if o.module.self_contained]
        if built:
            local = built[0].local
            self.module_class = local.node if local is not None else None
            return False
        return None

    def _recast(self, binding: NameBinding) -> bool:
        """`m = m.to(device)` and the like: the same module, re-bound."""
        value = binding.value
        return (
            isinstance(value, ast.Call)
            and isinstance(value.func, ast.Attribute)
            and value.func.attr in api.MODULE_SELF_METHODS
            and isinstance(value.func.value, ast.Name)
            and self.flow.key_of(value.func.value) == binding.key
        )

    def _confined(self) -> bool:
        """Nothing but calls, safe methods and deep copies touch the module, and nothing but
        steps, zero_grad and LR schedulers touch the optimizer, under any of their names (a
        function they are handed to counts by what it does with them)."""
        for key in self.module_keys:
            if not all(self._module_use(name) for name in self.flow.loads.get(key, [])):
                return False
        stepped = {id(u.target) for u in self.steps}
        return all(
            self._optimizer_use(name, stepped)
            for key in self.keys
            for name in self.flow.loads.get(key, [])
        )

    def _module_use(self, name: ast.Name) -> bool:
        if self.flow.forwarded(name) in self.module_keys:
            return True  # train(model, ...): what `train` does with it is checked too
        parent = self.flow.parents.get(id(name))
        if self._returned_after_training(name, parent):
            return True
        if isinstance(parent, ast.Call):
            if parent.func is name:
                return True  # model(x)
            return name in parent.args and (
                self.flow.is_deepcopy(parent.func) or _inspecting(parent, self.flow)
            )
        if isinstance(parent, ast.Attribute) and (
            parent.attr in _MODULE_METHODS or self._keeps_to_itself(parent.attr)
        ):
            outer = self.flow.parents.get(id(parent))
            return isinstance(outer, ast.Call) and outer.func is parent
        return False

    def _returned_after_training(self, name: ast.Name, parent: ast.AST | None) -> bool:
        """`return model` (or `return stats, model`) from the function that built it, when
        the optimizer lives in that function or in one it hands the model to: every step
        has run before the return, and each call of the function builds a new model, so
        what the caller does with the one returned reaches none of those steps."""
        if isinstance(parent, ast.Tuple):
            parent = self.flow.parents.get(id(parent))
        if not isinstance(parent, ast.Return) or self.flow.key_of(name) != self.module_key:
            return False
        if self.module_key[0] == id(self.flow.tree):
            return False  # a module-level name: no function to return from
        return self.key[0] in {key[0] for key in self.module_keys}

    def _keeps_to_itself(self, method: str) -> bool:
        """`model.init_hidden(batch)`: a method of the module's own class (see
        `_self_kept`) that gives nothing of the module away; what it returns counts as
        computed from the module, as a call's output does."""
        body = self.module_class.body if self.module_class is not None else []
        if binding_counts(own_nodes(body)).get(method) != 1:
            return False  # no such method, or a name the class body binds twice
        function = next(
            (s for s in body if isinstance(s, ast.FunctionDef) and s.name == method), None
        )
        return function is not None and _self_kept(function, self.flow)

    def _optimizer_use(self, name: ast.Name, stepped: set[int]) -> bool:
        if self.flow.forwarded(name) in self.keys:
            return True
        parent = self.flow.parents.get(id(name))
        if isinstance(parent, ast.Attribute) and parent.attr in _OPTIMIZER_METHODS:
            outer = self.flow.parents.get(id(parent))
            if not (isinstance(outer, ast.Call) and outer.func is parent):
                return False
            if parent.attr == "step":
                return id(name) in stepped and not outer.args and not outer.keywords
            return True
        if isinstance(parent, ast.Call) and parent.args and parent.args[0] is name:
            path = self.flow.qualified(parent.func)
            return path is not None and path.startswith(_LR_SCHEDULERS)
        return isinstance(parent, ast.Call) and _inspecting(parent, self.flow)

    # -- each step -------------------------------------------------------------------------

    def _step_unreached(self, step: OptimizerCall, trained: list[str]) -> BackwardCall | None:
        """The nearest backward before `step`, when every call run since the gradients were
        last cleared is certainly handed nothing that reaches the module."""
        if not isinstance(step.stmt, ast.Expr) or step.stmt.value is not step.node:
            return None
        statements, _ = self._since_cleared(step.stmt)
        top = {id(s) for s in statements}
        nearest = [
            b
            for b in self.analysis.backward_calls
            if id(b.stmt) in top and b.via != "torch.autograd.grad"
        ]
        if not nearest or any(b.value.grad is Grad.UNTRACKED for b in nearest):
            return None  # no backward, or one that raises (GG101-GG103's business)
        calls = [n for stmt in statements for n in ast.walk(stmt) if isinstance(n, ast.Call)]
        if not all(self._call_unreached(call, self.historyless) for call in calls):
            return None
        # Values that hold no history cut the module off (`historyless_names`): the step is
        # the wrong one only when each loss does train another model; a loss cut from every
        # model is a cut history (GG102, GG108...), whatever the optimizer.
        cut = not all(self._call_unreached(call) for call in calls)
        for backward in nearest:
            reached = self.flow.reaches(self.flow.reads(backward.target), self.historyless)
            others = sorted(k[1] for k in reached if self._built_module(k))
            if cut and not others:
                return None
            trained.extend(others)
        return nearest[-1]

    def _built_module(self, key: Key) -> bool:
        """A name bound only to module constructions or deep copies (not to a loss)."""
        bindings = self.flow.bindings.get(key, [])
        if not bindings or key in self.module_keys:
            return False
        for binding in bindings:
            value = binding.value
            while (
                isinstance(value, ast.Call)
                and isinstance(value.func, ast.Attribute)
                and value.func.attr in api.MODULE_SELF_METHODS
            ):
                value = value.func.value
            if not isinstance(value, ast.Call):
                return False
            if self.flow.is_deepcopy(value.func):
                continue
            builder = self._file_function(value.func)
            if builder is not None:
                # `student = mlp(16)`: a function of the file returning a module it builds.
                if not builds_module(builder, self._constructs_module):
                    return False
                continue
            if not self._constructs_module(value):
                return False
        return True

    def _constructs_module(self, value: ast.Call) -> bool:
        """`Net(...)`, `nn.Linear(...)`: a capitalized callee that is no loss, no class of a
        library making no module and no plain class of the file."""
        last = value.func.attr if isinstance(value.func, ast.Attribute) else None
        if isinstance(value.func, ast.Name):
            last = value.func.id
        if last is None or not last[:1].isupper() or last.endswith("Loss"):
            return False
        return not (_not_a_module(self.flow.qualified(value.func)) or self._plain_class(value.func))

    def _file_function(self, func: ast.expr) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        """The function of the file a plain-name callee names, when that name is bound
        exactly once, by that `def`."""
        key = self.flow.key_of(func) if isinstance(func, ast.Name) else None
        bindings = self.flow.bindings.get(key, []) if key is not None else []
        if len(bindings) != 1:
            return None
        node = bindings[0].node
        return node if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) else None

    def _plain_class(self, func: ast.expr) -> bool:
        """A class of the file without a base (`class Hyper: lr = 0.1`): never a module."""
        key = self.flow.key_of(func) if isinstance(func, ast.Name) else None
        bindings = self.flow.bindings.get(key, []) if key is not None else []
        return (
            len(bindings) == 1
            and isinstance(bindings[0].node, ast.ClassDef)
            and not (bindings[0].node.bases)
        )

    def _since_cleared(self, step: ast.stmt) -> tuple[list[ast.stmt], bool]:
        """The statements run before `step` since the optimizer's gradients were last
        cleared (its `zero_grad()` or the module's) or applied (another of its steps), in
        run order, around the loop when the block is a loop body; and whether such a
        statement bounds them (else they start at the block's start)."""
        owner, block = self.analysis.block_of(step)
        index = next(i for i, s in enumerate(block) if s is step)
        loop = isinstance(owner, ast.For | ast.AsyncFor | ast.While) and block is owner.body
        order = block[:index][::-1]
        if loop:
            order += block[index + 1 :][::-1]
        found: list[ast.stmt] = []
        bounded = False
        for stmt in order:
            if self._clears(stmt) or any(stmt is s.stmt for s in self.steps):
                bounded = True
                break
            found.append(stmt)
        return found[::-1], bounded

    def _clears(self, stmt: ast.stmt) -> bool:
        """`opt.zero_grad(...)` or `m.zero_grad(...)` as a statement."""
        if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)):
            return False
        func = stmt.value.func
        if not (isinstance(func, ast.Attribute) and func.attr == "zero_grad"):
            return False
        if not isinstance(func.value, ast.Name):
            return False
        return self.flow.key_of(func.value) in self.keys | self.module_keys

    def _call_unreached(self, call: ast.Call, ends: frozenset[Key] = frozenset()) -> bool:
        """True when nothing the call is given (receiver, callee, arguments) may hold a value
        computed from the module or its optimizer, or the call is a harmless method of
        either (`opt.zero_grad()`, `model.train()`); names in `ends` are not followed
        (values without history: what they were computed from gets no gradient)."""
        func = call.func
        if (
            isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Name)
            and not call.args
            and self.flow.key_of(func.value) in self.keys | self.module_keys
            and func.attr in (_OPTIMIZER_METHODS | {"train", "eval", "zero_grad"})
        ):
            return True
        if (
            isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Name)
            and func.attr in _OPTIMIZER_METHODS
            and not call.args
            and not call.keywords
            and self._built_optimizer(self.flow.key_of(func.value))
        ):
            return True  # another optimizer's `step()` or `zero_grad()`: torch runs no backward
        # `target(x)` under no_grad computes nothing with history: of such calls, only what
        # they are given may hold the module.
        inner = [n for n in ast.walk(call) if isinstance(n, ast.Call)]
        quiet = frozenset(id(n) for n in inner if self._called_without_grad(n))
        keys = self.flow.reads(call, quiet)
        reached = self.flow.reaches((k for k in keys if not self._scheduler(k)), ends)
        return not reached & (self.module_keys | self.keys | {UNKNOWN_KEY})

    def _called_without_grad(self, call: ast.Call) -> bool:
        """`m(x)` on the module itself, every time with grad certainly off: a torch.nn
        module, or one of a class of the file that never asks for a backward, a gradient
        or grad mode (`backward`, `grad`, `enable_grad`, `set_grad_enabled`), so its run
        records no history and backpropagates nothing."""
        if not isinstance(call.func, ast.Name) or self.flow.key_of(call.func) not in (
            self.module_keys
        ):
            return False
        if self._module_runs is None:
            self._module_runs = {}
            for event in self.analysis.events.of(ModuleCall):
                self._module_runs.setdefault(id(event.node), []).append(event)
        runs = self._module_runs.get(id(call), [])
        if not runs or any(e.grad_enabled is not False for e in runs):
            return False
        for run in runs:
            module = run.value.module
            if module is None:
                return False
            if module.local is not None and _asks_for_gradients(module.local.node):
                return False
            if module.local is None and not (module.qualified or "").startswith("torch.nn."):
                return False
        return True

    def _scheduler(self, key: Key) -> bool:
        """A name bound only to `torch.optim.lr_scheduler.X(...)`: it changes learning rates."""
        bindings = self.flow.bindings.get(key, [])
        return bool(bindings) and all(
            isinstance(b.value, ast.Call)
            and (path := self.flow.qualified(b.value.func)) is not None
            and path.startswith(_LR_SCHEDULERS)
            for b in bindings
        )


def _built_part(flow: NameFlow, binding: NameBinding) -> tuple[ast.Call, int | None] | None:
    """The call a plain assignment binds the name to, and the position the name takes in
    the call's result: None for `opt = X(...)` (and `a, opt = X(...), Y(...)`, paired),
    `i` for the `i`-th name of `a, opt = make_opts(...)`."""
    node = binding.node
    if not isinstance(node, ast.Assign) or len(node.targets) != 1:
        return None
    if isinstance(binding.value, ast.Call):
        return binding.value, None
    target = node.targets[0]
    if binding.value is not None or not isinstance(target, ast.Tuple | ast.List):
        return None
    if not isinstance(node.value, ast.Call) or not all(
        isinstance(e, ast.Name) for e in target.elts
    ):
        return None
    names = [e for e in target.elts if isinstance(e, ast.Name)]
    positions = [i for i, e in enumerate(names) if flow.key_of(e) == binding.key]
    return (node.value, positions[0]) if len(positions) == 1 else None


def _builder_optimizer(
    flow: NameFlow, call: ast.Call, position: int | None
) -> tuple[ast.Call, ast.Name] | None:
    """`make_opt(model, cfg)` of a plain function of the file, bound once, whose body is
    only `return torch.optim.X(net.parameters(), ...)` (a docstring aside) on one of its
    parameters, which nothing else there mentions: the optimizer built, and the plain
    name the call passes for that parameter (the very model the optimizer holds). With a
    `position`, the builder returns a tuple of optimizers (`make_opts(G, D, cfg)`, see
    `_returned_optimizers`) and the one at that position is meant."""
    if not isinstance(call.func, ast.Name):
        return None
    key = flow.key_of(call.func)
    bindings = flow.bindings.get(key, []) if key is not None else []
    if len(bindings) != 1 or not isinstance(bindings[0].node, ast.FunctionDef):
        return None
    function = bindings[0].node
    body = function.body[1:] if _docstring(function.body[0]) else function.body
    if function.decorator_list or not body or not isinstance(body[-1], ast.Return):
        return None
    if position is None:
        built = body[0].value if len(body) == 1 and isinstance(body[0], ast.Return) else None
    else:
        returned = _returned_optimizers(flow, body)
        built = returned[position] if returned is not None and position < len(returned) else None
    if not isinstance(built, ast.Call) or not api.optimizer_class(flow.qualified(built.func)):
        return None
    net = _parameters_of(_params_argument(built))
    passed = arguments_by_parameter(function, call)
    if net is None or net.id not in parameter_names(function) or passed is None:
        return None
    mentions = [n for n in ast.walk(function) if isinstance(n, ast.Name) and n.id == net.id]
    argument = passed.get(net.id)
    if mentions != [net] or not isinstance(argument, ast.Name):
        return None
    return built, argument


def _returned_optimizers(flow: NameFlow, body: list[ast.stmt]) -> list[ast.expr] | None:
    """What each element of a builder's returned tuple is: `return X(...), Y(...)`, or
    `a = X(...)`, `b = Y(...)` (each a plain name bound once there, by an optimizer
    construction, read only by the return) then `return a, b`: the constructions, in order."""
    returned = body[-1]
    assert isinstance(returned, ast.Return)
    if not isinstance(returned.value, ast.Tuple):
        return None
    built: dict[str, ast.expr] = {}
    for stmt in body[:-1]:
        if not (
            isinstance(stmt, ast.Assign)
            and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name)
            and isinstance(stmt.value, ast.Call)
            and api.optimizer_class(flow.qualified(stmt.value.func))
            and stmt.targets[0].id not in built
        ):
            return None
        built[stmt.targets[0].id] = stmt.value
    found: list[ast.expr] = []
    for element in returned.value.elts:
        if isinstance(element, ast.Starred):
            return None
        if isinstance(element, ast.Name):
            if element.id not in built:
                return None
            found.append(built.pop(element.id))  # a name returned twice: not found again
        else:
            found.append(element)
    return found


# Names through which code may record history or backpropagate under no_grad.
_GRADIENT_NAMES = frozenset("backward grad enable_grad set_grad_enabled".split())


def _asks_for_gradients(node: ast.AST) -> bool:
    """`node` mentions a backward, a gradient or grad mode anywhere (also as an attribute)."""
    return any(
        (isinstance(n, ast.Name) and n.id in _GRADIENT_NAMES)
        or (isinstance(n, ast.Attribute) and n.attr in _GRADIENT_NAMES)
        for n in ast.walk(node)
    )


def _params_argument(call: ast.Call) -> ast.expr | None:
    """What an optimizer construction is given as its parameters."""
    params: ast.expr | None = call.args[0] if call.args else None
    for keyword in call.keywords:
        if keyword.arg == "params":
            params = keyword.value
    return params


def _parameters_of(params: ast.expr | None) -> ast.Name | None:
    """`m` of `m.parameters()`, a plain name asked with nothing."""
    if (
        isinstance(params, ast.Call)
        and isinstance(params.func, ast.Attribute)
        and params.func.attr == "parameters"
        and isinstance(params.func.value, ast.Name)
        and not params.args
        and not params.keywords
    ):
        return params.func.value
    return None


def _docstring(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)


def _origin(flow: NameFlow, key: Key) -> Key:
    """The name a parameter stands for when it holds exactly what one name was given
    (`NameFlow.forwarded_from`), through calls handing it on; else the key itself."""
    for _ in range(_FORWARDING_DEPTH):
        source = flow.forwarded_from(key)
        if source is None:
            break
        key = source
    return key


def _aliases(flow: NameFlow, key: Key) -> frozenset[Key]:
    """`key` and every parameter that holds exactly its value (see `NameFlow.forwarded`),
    through calls handing it on."""
    found = {key}
    frontier = [key]
    for _ in range(_FORWARDING_DEPTH):
        handed = [
            param
            for current in frontier
            for name in flow.loads.get(current, [])
            if (param := flow.forwarded(name)) is not None and param not in found
        ]
        if not handed:
            break
        found.update(handed)
        frontier = handed
    return frozenset(found)


def _bound_value(stmt: ast.Assign, name: str) -> ast.expr | None:
    """What `name = value` (or `a, name = f(), g()`, position by position) binds."""
    if any(isinstance(t, ast.Name) and t.id == name for t in stmt.targets):
        return stmt.value
    if len(stmt.targets) != 1:
        return None
    target, value = stmt.targets[0], stmt.value
    if not (isinstance(target, ast.Tuple | ast.List) and isinstance(value, ast.Tuple | ast.List)):
        return None
    if len(target.elts) != len(value.elts):
        return None
    if any(isinstance(e, ast.Starred) for e in [*target.elts, *value.elts]):
        return None
    for element, bound in zip(target.elts, value.elts, strict=True):
        if isinstance(element, ast.Name) and element.id == name:
            return bound
    return None


# How many calls deep a name handed on to a function's parameter is followed.
_FORWARDING_DEPTH = 4


def _self_kept(function: ast.FunctionDef, flow: NameFlow) -> bool:
    """A plain method (undecorated, `self` first) that stores nothing into any object (no
    attribute or item assignment, augmented or deleted, no `setattr`, `global` or
    `nonlocal`), never lets `self` itself out (only `self.x` is read), and hands `self.x`
    to no call but a torch function (`torch.zeros(1, self.hidden_size)`): it can neither
    alias the module, nor share its parameters with another object, nor give it new ones."""
    arguments = [*function.args.posonlyargs, *function.args.args]
    if function.decorator_list or not arguments:
        return False
    me = arguments[0].arg
    read_from = {id(n.value) for n in ast.walk(function) if isinstance(n, ast.Attribute)}
    for node in ast.walk(function):
        if isinstance(node, ast.Global | ast.Nonlocal):
            return False
        if isinstance(node, ast.Attribute | ast.Subscript) and not isinstance(node.ctx, ast.Load):
            return False
        if isinstance(node, ast.Name) and node.id == "setattr":
            return False
        if isinstance(node, ast.Name) and node.id == me and id(node) not in read_from:
            return False  # `self` stored, passed, returned or re-bound
        if isinstance(node, ast.Call) and not _torch_function(node, flow):
            passed = [*node.args, *(k.value for k in node.keywords)]
            if any(_mentions(arg, me) for arg in passed):
                return False
    return True


def _torch_function(call: ast.Call, flow: NameFlow) -> bool:
    path = flow.qualified(call.func)
    return path is not None and path.startswith("torch.") and not path.startswith("torch.nn.")


def _mentions(expr: ast.expr, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(expr))


def _inspecting(call: ast.Call, flow: NameFlow) -> bool:
    """`print(m)`, `isinstance(m, nn.Module)`...: builtins that only look."""
    return (
        isinstance(call.func, ast.Name)
        and call.func.id in _INSPECTING
        and flow.key_of(call.func) == (id(flow.tree), call.func.id)
        and not flow.bound_in_module(call.func.id)
    )
