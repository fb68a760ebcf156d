"""Modules held on an object that no gradient can ever reach, and the optimizers stepping them.

A module whose every run records no history (each call of it runs with grad certainly off)
and whose parameters nothing else touches gives autograd nothing to backpropagate into: no
`backward()` anywhere fills a `.grad` of its parameters. An optimizer built only on those
parameters then steps tensors whose gradient is None, which torch's optimizers skip: each
`step()` is a no-op, whatever loss was backpropagated before it (a DQN optimizer built on
the target network, which only ever runs under `torch.no_grad()`).

The fact is certain only when all of this holds (anything else: silence):

* the optimizer is `self.opt = torch.optim.X(self.m.parameters(), ...)` (`optimizes` of the
  interpreter: one module, not a replaced one), and its steps are `self.opt.step()` without
  a closure;
* the object holding both is an instance of a plain class of the file (no base class: no
  `parameters()` or `modules()` of its own hands `m` out);
* `m`'s parameters are its own: it is a `copy.deepcopy(...)`, or built by a class that owns
  every parameter it computes with (`ModuleRef.self_contained`);
* the attribute name `m` (of any object, anywhere in the file) is stored exactly once, as
  `self.m = ...` in that class's `__init__`, and is otherwise only read to be called (every
  run of the call with grad certainly off, by a torch.nn module or a class of the file that
  never asks for grad mode, a backward or a gradient), to give `m.parameters()` to a torch
  optimizer, to copy state in or out (`load_state_dict(...)`, `state_dict()`), or, as a
  statement, to move it or set its mode (`self.m.eval()`);
* the attribute name `opt` is stored once and only read to step, zero gradients or copy
  state: no parameter group is added;
* nothing in the file reaches attributes by their name as a string (`getattr`, `setattr`,
  `vars`, `__dict__`).

For each step, the nearest backward before it in its block (since the optimizer's
gradients were last cleared or applied) must be on a value that certainly has history: the
loss trains something, just not `m` (a loss without history is GG102's finding).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from gradguard.analysis import torch_api as api
from gradguard.analysis.events import ModuleCall, OptimizerCall
from gradguard.analysis.model import BackwardCall, ModuleAnalysis
from gradguard.analysis.name_flow import NameFlow
from gradguard.analysis.values import Grad
from gradguard.analysis.walk import module_nodes_of

# Methods of the module that neither alias it, nor hand out its parameters, nor run it.
_STATE_METHODS = frozenset(["load_state_dict", "state_dict"])
# Methods that return the module itself: harmless only when the result is dropped.
_STATEMENT_METHODS = frozenset("eval train to cuda cpu float double half zero_grad".split())
# What may be done with the optimizer.
_OPTIMIZER_METHODS = frozenset(["step", "zero_grad", "state_dict", "load_state_dict"])
# Ways to reach an attribute by its name as a string.
_BY_NAME = frozenset(["getattr", "setattr", "vars", "__dict__", "delattr"])
# Names through which code may record history or backpropagate under no_grad.
_GRADIENT_NAMES = frozenset("backward grad enable_grad set_grad_enabled".split())


@dataclass(frozen=True, eq=False)
class GradlessStep:
    """`self.opt.step()` of an optimizer built only on `self.m.parameters()`, where `m` is a
    module no gradient can reach (see the module docstring)."""

    construction: ast.Call  # `torch.optim.X(self.m.parameters(), ...)`
    stmt: ast.stmt  # the construction's statement
    optimizer: str  # `self.opt`
    module: str  # `self.m`
    copied: bool  # `m` is a deep copy
    step: OptimizerCall
    backward: BackwardCall  # the nearest backward before the step, on a tracked value


def gradless_steps(analysis: ModuleAnalysis, flow: NameFlow) -> list[GradlessStep]:
    """Every optimizer step of the file that certainly applies no gradient, because the
    module whose parameters it holds never runs with grad on and nothing else reaches them."""
    if not any(use.method == "step" for use in analysis.events.of(OptimizerCall)):
        return []  # no step to judge: no scan of the module
    if _reaches_by_name(analysis.tree):
        return []
    return _Finder(analysis, flow).run()


def _reaches_by_name(tree: ast.Module) -> bool:
    return any(
        (isinstance(n, ast.Name) and n.id in _BY_NAME)
        or (isinstance(n, ast.Attribute) and n.attr in _BY_NAME)
        for n in module_nodes_of(tree, ast.Name, ast.Attribute)
    )


def _self_attribute(expr: ast.expr | None) -> str | None:
    """`m` of `self.m` (`self` any plain name)."""
    if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name):
        return expr.attr
    return None


class _Finder:
    def __init__(self, analysis: ModuleAnalysis, flow: NameFlow) -> None:
        self.analysis = analysis
        self.flow = flow
        self.attributes: dict[str, list[ast.Attribute]] = {}
        for node in module_nodes_of(analysis.tree, ast.Attribute):
            self.attributes.setdefault(node.attr, []).append(node)
        self.runs: dict[int, list[ModuleCall]] = {}
        for event in analysis.events.of(ModuleCall):
            self.runs.setdefault(id(event.node), []).append(event)

    def run(self) -> list[GradlessStep]:
        by_node: dict[int, list[OptimizerCall]] = {}
        for use in self.analysis.events.of(OptimizerCall):
            if use.method == "step":
                by_node.setdefault(id(use.node), []).append(use)
        found = []
        for uses in by_node.values():
            fact = self._step(uses)
            if fact is not None:
                found.append(fact)
        return found

    def _step(self, uses: list[OptimizerCall]) -> GradlessStep | None:
        step = uses[0]
        node = step.node
        if not isinstance(node, ast.Call) or node.args or node.keywords:
            return None  # a closure may run anything
        optimizer = _self_attribute(step.target)
        optimized = [u.value.optimizes for u in uses]
        first = optimized[0]
        if optimizer is None or first is None:
            return None
        if any(o is None or o.call is not first.call for o in optimized):
            return None
        if first.others or first.stale is not None:
            return None
        construction = first.call
        module = _self_attribute(_parameters_receiver(construction))
        if module is None or first.key != f"self.{module}" or module == optimizer:
            return None
        init = self._init_of(first.stmt)
        if init is None:
            return None
        built = self._stored_once(module, init)
        if built is None or self._stored_once(optimizer, init) is not first.stmt:
            return None
        value = built.value
        copied = isinstance(value, ast.Call) and self.flow.is_deepcopy(value.func)
        if not copied and not first.module.self_contained:
            return None
        if not self._module_confined(module, built, construction):
            return None
        if not self._optimizer_confined(optimizer, first.stmt):
            return None
        backward = self._backward_before(step.stmt)
        if backward is None:
            return None
        return GradlessStep(
            construction, first.stmt, f"self.{optimizer}", f"self.{module}", copied, step, backward
        )

    def _init_of(self, stmt: ast.stmt) -> ast.FunctionDef | None:
        """The `__init__` of a plain class (no base) that `stmt` is a statement of."""
        function = self.flow.parents.get(id(stmt))
        while function is not None and not isinstance(function, ast.FunctionDef):
            function = self.flow.parents.get(id(function))
        if function is None or function.name != "__init__":
            return None
        owner = self.flow.parents.get(id(function))
        if not isinstance(owner, ast.ClassDef) or owner.bases or owner.keywords:
            return None
        return function

    def _stored_once(self, name: str, init: ast.FunctionDef) -> ast.Assign | None:
        """The one statement storing `.name` in the file: `self.name = value` in `init`."""
        stores = [a for a in self.attributes.get(name, []) if not isinstance(a.ctx, ast.Load)]
        if len(stores) != 1:
            return None
        stmt = self.flow.parents.get(id(stores[0]))
        if not (
            isinstance(stmt, ast.Assign)
            and stmt.targets == [stores[0]]
            and isinstance(stores[0].value, ast.Name)
            and init.args.args
            and stores[0].value.id == init.args.args[0].arg
            and self.analysis.block_of(stmt)[1] is init.body
        ):
            return None
        return stmt

    def _module_confined(self, name: str, built: ast.Assign, construction: ast.Call) -> bool:
        for attribute in self.attributes.get(name, []):
            if attribute is built.targets[0]:
                continue
            if not self._module_use(attribute, construction):
                return False
        return True

    def _module_use(self, attribute: ast.Attribute, construction: ast.Call) -> bool:
        parent = self.flow.parents.get(id(attribute))
        if isinstance(parent, ast.Call) and parent.func is attribute:
            return self._runs_without_grad(parent)
        if not isinstance(parent, ast.Attribute):
            return False
        call = self.flow.parents.get(id(parent))
        if not isinstance(call, ast.Call) or call.func is not parent:
            return False
        if parent.attr in _STATE_METHODS:
            return parent.attr == "load_state_dict" or not (call.args or call.keywords)
        if parent.attr in _STATEMENT_METHODS:
            return isinstance(self.flow.parents.get(id(call)), ast.Expr)
        if parent.attr == "parameters" and not (call.args or call.keywords):
            holder = self.flow.parents.get(id(call))
            return (
                isinstance(holder, ast.Call)
                and api.optimizer_class(self.flow.qualified(holder.func))
                and _parameters_receiver(holder) is attribute
            )
        return False

    def _runs_without_grad(self, call: ast.Call) -> bool:
        """Every run of the call the interpreter saw is of a known module with grad certainly
        off, and the module's code cannot turn grad mode on or backpropagate."""
        runs = self.runs.get(id(call), [])
        if not runs:
            return False
        for run in runs:
            module = run.value.module
            if run.grad_enabled is not False or module is None:
                return False
            if module.local is not None and (
                _asks_for_gradients(module.local.node) or _lets_itself_out(module.local.node)
            ):
                return False
            if module.local is None and not (module.qualified or "").startswith("torch.nn."):
                return False
        return True

    def _optimizer_confined(self, name: str, built: ast.stmt) -> bool:
        for attribute in self.attributes.get(name, []):
            if self.flow.parents.get(id(attribute)) is built:
                continue
            parent = self.flow.parents.get(id(attribute))
            if not (isinstance(parent, ast.Attribute) and parent.attr in _OPTIMIZER_METHODS):
                return False
            call = self.flow.parents.get(id(parent))
            if not isinstance(call, ast.Call) or call.func is not parent:
                return False
        return True

    def _backward_before(self, step: ast.stmt) -> BackwardCall | None:
        """The nearest backward before `step` in its block, on a value certainly tracked;
        None when another statement of the block clears or steps in between, or none."""
        _, block = self.analysis.block_of(step)
        index = next(i for i, s in enumerate(block) if s is step)
        calls = {id(b.stmt): b for b in self.analysis.backward_calls}
        for stmt in reversed(block[:index]):
            backward = calls.get(id(stmt))
            if backward is not None:
                return backward if backward.value.grad is Grad.TRACKED else None
        return None


def _parameters_receiver(call: ast.Call) -> ast.expr | None:
    """`self.m` of `torch.optim.X(self.m.parameters(), ...)` (also as `params=`)."""
    params: ast.expr | None = call.args[0] if call.args else None
    for keyword in call.keywords:
        if keyword.arg == "params":
            params = keyword.value
    if (
        isinstance(params, ast.Call)
        and isinstance(params.func, ast.Attribute)
        and params.func.attr == "parameters"
        and not params.args
        and not params.keywords
    ):
        return params.func.value
    return None


def _lets_itself_out(node: ast.ClassDef) -> bool:
    """A method of the class uses its `self` other than to read or store an attribute of it
    (`REGISTRY.append(self)`, `return self`): the module may be run elsewhere, with grad."""
    for function in node.body:
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        arguments = [*function.args.posonlyargs, *function.args.args]
        if function.decorator_list or not arguments:
            return True
        me = arguments[0].arg
        bases = {id(n.value) for n in ast.walk(function) if isinstance(n, ast.Attribute)}
        if any(
            isinstance(n, ast.Name) and n.id == me and id(n) not in bases
            for n in ast.walk(function)
        ):
            return True
    return False


def _asks_for_gradients(node: ast.AST) -> bool:
    """`node` mentions a backward, a gradient or grad mode anywhere (also as an attribute)."""
    return any(
        (isinstance(n, ast.Name) and n.id in _GRADIENT_NAMES)
        or (isinstance(n, ast.Attribute) and n.attr in _GRADIENT_NAMES)
        for n in ast.walk(node)
    )
