"""Fresh leaves handed down to a function, and `.grad` reads a function makes on entry.

Two facts let `unfilled_grads` follow a `.grad` read across calls of the file's functions
(`zero_grads(model)` at the top of the loop of `train(model)`, called by `main` right after
`model = Net()`):

* a function **reads its parameter's gradient on entry** when a read of `P.grad` (or of
  `p.grad`, `p` the only binding of its name, by `for p in P.parameters()`) that fails on
  None is reached from the function's first statement with nothing on the way that may run
  backward (the path rules of `unfilled_grads`, the first iteration of a loop included);
  the read then happens at each call, on the argument passed for `P`;
* a parameter is **handed a fresh leaf** when the file shows every call of its function
  (`call_sites.candidates`: the function is only ever called, never passed or stored), and
  each call passes for it, by position or keyword, a name its scope binds once, to a fresh
  tensor (`unfilled_grads` `fresh_binding`) or a freshly built module (`built_in_scope`)
  according to what the read needs, with nothing between that binding and the call that
  may run backward; or a parameter of its own function handed a fresh leaf in turn, the
  call reached from that function's entry the same way.

A read on entry of a parameter handed a fresh leaf fails at the first call: the binding
found at the file's first call (in source order) is the read's creation point. Anything
else (a `*args` call, an argument that is an expression, a model loaded or trained before
the call, a read under `if p.grad is not None`) leaves the read unknown.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from gradguard.analysis.call_sites import Candidate, candidates
from gradguard.analysis.events import GradRead
from gradguard.analysis.grad_resets import (
    optimizer_in_scope,
    parameters_owner,
    reset_before,
    walked_parameters,
)
from gradguard.analysis.leaf_containers import changed_in, loop_container
from gradguard.analysis.model import LoopNode
from gradguard.analysis.names import arguments_by_parameter, parameter_names, parameters_receiver
from gradguard.analysis.unfilled_grads import binds, scope_nodes
from gradguard.analysis.walk import module_nodes_of, module_parents

if TYPE_CHECKING:
    from gradguard.analysis.unfilled_grads import Paths

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef
# What a read on entry needs its argument to be: the tensor read, or the module whose
# parameters are read.
TENSOR = "tensor"
MODULE = "module"
# ... or a container whose first element is the tensor read (see `leaf_containers`);
CONTAINER = "container"
# ... or an instance of a plain class of the file whose `__init__` made the attribute read
# (`net.w1.grad`: the kind is "attribute:w1", see `instance_leaves`).
ATTRIBUTE = "attribute:"
# ... or a module whose gradients a `zero_grad()` just set to None (see `grad_resets`).
RESET = "reset"
# ... or the parameters of such a module, handed as an iterable (`clip(model.parameters())`).
RESET_PARAMETERS = "reset parameters"
_DEPTH = 4  # how many callers up a handed leaf is followed
Found = tuple[ast.stmt, str, LoopNode | None]


class HandedLeaves:
    """Creation points of `.grad` reads made on a function's entry (see module docs)."""

    def __init__(self, paths: Paths) -> None:
        self.paths = paths
        self._candidates: dict[int, Candidate] | None = None
        self._calls: dict[int, ast.Call] = {}
        self._depth = 0

    def creation(self, use: GradRead) -> Found | None:
        """The statement creating the leaf read by `use` one or more calls up, its name,
        and the loop whose first iteration the read relies on (the innermost)."""
        function = self.paths.scope_of(use.stmt)
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            return None
        entry = _entry_parameter(function, use.target)
        if entry is None:
            return None
        found = self._handed(function, *entry)
        if found is None:
            return None
        # A parameter holding a plain instance runs its class's methods (`net.forward(x)`).
        cls = self.paths.instance_class(found[0], found[1])
        name = entry[0]
        with self.paths.holding({name: cls} if cls is not None else {}):
            clean, loop = self.paths.clean_from_entry(function, use.stmt, use.node)
        if not clean:
            return None
        return found[0], found[1], loop or found[2]

    def reset(self, use: GradRead) -> Found | None:
        """For a read on entry of the gradients of a module parameter (`log_grads(model)`),
        the reset every call follows (`optimizer.zero_grad()`, see `grad_resets`)."""
        function = self.paths.scope_of(use.stmt)
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            return None
        entry = _entry_parameter(function, use.target)
        if entry is not None and entry[1] == MODULE:
            found = self._handed(function, entry[0], RESET)
        elif (
            iterated := _iterated_parameter(
                function, use.target, module_parents(self.paths.analysis.tree)
            )
        ) is not None:
            found = self._handed(function, iterated, RESET_PARAMETERS)
        else:
            return None
        if found is None:
            return None
        clean, loop = self.paths.clean_from_entry(function, use.stmt, use.node)
        return (found[0], found[1], loop or found[2]) if clean else None

    def optimizer_over(self, function: FunctionNode, receiver: str, module: str) -> bool:
        """Every call of `function` (the file shows them all) passes for its parameter
        `receiver` a name its scope binds once to a torch optimizer made over the parameters
        of the name it passes for `module` (`grad_resets.optimizer_in_scope`)."""
        candidate = self._candidate(function)
        if candidate is None:
            return False
        calls = [self._calls[key] for key in candidate.calls if key in self._calls]
        if not calls or len(calls) != len(candidate.calls):
            return False
        for call in calls:
            optimizer = _argument(candidate, call, receiver)
            model = _argument(candidate, call, module)
            stmt = self.paths.statement_of(call)
            if not (
                isinstance(optimizer, ast.Name) and isinstance(model, ast.Name) and stmt is not None
            ):
                return False
            scope = self.paths.scope_of(stmt)
            nodes = list(scope_nodes(scope))
            if not optimizer_in_scope(self.paths, nodes, optimizer.id, model.id):
                return False
            if not (
                _unbound_parameter(scope, model.id)
                if isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef)
                and model.id in parameter_names(scope)
                else sum(1 for node in nodes if binds(node, model.id)) == 1
            ):
                return False
        return True

    def _handed(self, function: FunctionNode, name: str, kind: str) -> Found | None:
        """What every call of `function` passes for its parameter `name`, when each passes a
        fresh leaf (of `kind`): the first call's creation point."""
        candidate = self._candidate(function)
        if candidate is None or self._depth >= _DEPTH:
            return None
        calls = sorted(
            (self._calls[key] for key in candidate.calls if key in self._calls),
            key=lambda call: (call.lineno, call.col_offset),
        )
        if not calls or len(calls) != len(candidate.calls):
            return None
        self._depth += 1
        try:
            found = [self._fresh_at(call, _argument(candidate, call, name), kind) for call in calls]
        finally:
            self._depth -= 1
        first = found[0]
        return first if all(item is not None for item in found) else None

    def _fresh_at(self, call: ast.Call, argument: ast.expr | None, kind: str) -> Found | None:
        """The creation of the leaf `argument` names at `call`, with a clean way to it."""
        if kind == RESET_PARAMETERS:
            owner = (
                parameters_owner(argument, "parameters", nested=True)
                if argument is not None
                else None
            )
            stmt = self.paths.statement_of(call)
            if owner is None or stmt is None:
                return None
            return reset_before(self.paths, owner, stmt, call, self.optimizer_over)
        if not isinstance(argument, ast.Name):
            return None
        stmt = self.paths.statement_of(call)
        if stmt is None:
            return None
        scope = self.paths.scope_of(stmt)
        name = argument.id
        if kind == RESET:
            return reset_before(self.paths, name, stmt, call, self.optimizer_over)
        if isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef) and _unbound_parameter(
            scope, name
        ):
            if kind == CONTAINER and changed_in(scope_nodes(scope), name):
                return None
            clean, loop = self.paths.clean_from_entry(scope, stmt, call)
            found = self._handed(scope, name, kind) if clean else None
            return None if found is None else (found[0], found[1], loop or found[2])
        if kind == MODULE:
            made = self.paths.built_in_scope(name, stmt)
        elif kind == CONTAINER:
            made = self.paths.fresh_container(name, stmt)
        elif kind.startswith(ATTRIBUTE):
            made = self.paths.built_instance(name, kind.removeprefix(ATTRIBUTE), stmt)
        else:
            made = self.paths.fresh_binding(name, stmt)
        if made is None:
            return None
        clean, loop = self.paths.clean_until(made[0], stmt, call)
        return (made[0], made[1], loop) if clean else None

    def _candidate(self, function: FunctionNode) -> Candidate | None:
        if self._candidates is None:
            self._candidates = candidates(self.paths.analysis.tree)
            wanted = {key for found in self._candidates.values() for key in found.calls}
            for node in module_nodes_of(self.paths.analysis.tree, ast.Call):
                if id(node) in wanted:
                    self._calls[id(node)] = node
        return self._candidates.get(id(function))


def _entry_parameter(function: FunctionNode, target: ast.expr) -> tuple[str, str] | None:
    """The parameter of `function` whose gradient the read of `target.grad` reads: `target`
    itself (a tensor), the instance whose attribute it is (`net.w1`), or the module whose
    `.parameters()` the only loop binding `target` iterates."""
    if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
        if _unbound_parameter(function, target.value.id):
            return target.value.id, ATTRIBUTE + target.attr
        return None
    if not isinstance(target, ast.Name):
        return None
    if _unbound_parameter(function, target.id):
        return target.id, TENSOR
    bindings = [node for node in scope_nodes(function) if binds(node, target.id)]
    if len(bindings) == 1:
        walked = walked_parameters(list(scope_nodes(function)), bindings[0], nested=False)
        if walked is not None and _unbound_parameter(function, walked):
            return walked, MODULE
    loops = [
        node
        for node in scope_nodes(function)
        if isinstance(node, ast.For)
        and (node.target in bindings or loop_container(node, target.id) is not None)
    ]
    if len(bindings) != 1 or len(loops) != 1:
        return None
    module = parameters_receiver(loops[0].iter) if loops[0].target in bindings else None
    if module is not None and _unbound_parameter(function, module):
        return module, MODULE
    container = loop_container(loops[0], target.id)
    if (
        isinstance(container, ast.Name)
        and _unbound_parameter(function, container.id)
        and not changed_in(scope_nodes(function), container.id)
    ):
        return container.id, CONTAINER
    return None


def _iterated_parameter(
    function: FunctionNode, target: ast.expr, parents: dict[int, ast.AST]
) -> str | None:
    """The parameter `P` of `function` whose elements the read `target.grad` walks: the
    innermost loop or comprehension around the read binds `target` over `P` (a `for` loop
    binding it alone in the function), and `P` is walked once as handed (`P` loaded nowhere
    else, so a generator is not walked empty), or is first turned into a list by the body's
    first statement `P = list(P)`."""
    if not isinstance(target, ast.Name):
        return None
    nodes = list(scope_nodes(function))
    loop: ast.AST | None = parents.get(id(target))
    while loop is not None and not isinstance(loop, ast.For | ast.GeneratorExp | ast.ListComp):
        if loop is function:
            return None
        loop = parents.get(id(loop))
    if isinstance(loop, ast.GeneratorExp | ast.ListComp):
        if len(loop.generators) != 1:
            return None
        walked: ast.For | ast.comprehension = loop.generators[0]
    elif isinstance(loop, ast.For):
        walked = loop
        in_comprehensions = {
            id(generator.target)
            for node in nodes
            if isinstance(node, ast.GeneratorExp | ast.ListComp)
            for generator in node.generators
        }
        others = [
            node
            for node in nodes
            if binds(node, target.id)
            and id(node) not in in_comprehensions
            and node is not loop.target
        ]
        if others:
            return None
    else:
        return None
    if not (isinstance(walked.target, ast.Name) and walked.target.id == target.id):
        return None
    if not isinstance(walked.iter, ast.Name):
        return None
    name = walked.iter.id
    if name not in parameter_names(function):
        return None
    rebinding = [node for node in nodes if binds(node, name)]
    loads = [node for node in nodes if isinstance(node, ast.Name) and node.id == name]
    if not rebinding:
        return name if len(loads) == 1 else None  # the loop's own `P`
    first = function.body[0]
    listed = (
        len(rebinding) == 1
        and isinstance(first, ast.Assign)
        and len(first.targets) == 1
        and first.targets[0] is rebinding[0]
        and isinstance(first.value, ast.Call)
        and isinstance(first.value.func, ast.Name)
        and first.value.func.id == "list"
        and [ast.unparse(arg) for arg in first.value.args] == [name]
        and not first.value.keywords
    )
    return name if listed else None


def _unbound_parameter(function: FunctionNode, name: str) -> bool:
    """`name` is a parameter of `function` (not `self` of a method) its body never rebinds."""
    if name not in parameter_names(function):
        return False
    return not any(binds(node, name) for node in scope_nodes(function))


def _argument(candidate: Candidate, call: ast.Call, name: str) -> ast.expr | None:
    """The expression `call` passes for the parameter `name` of the candidate, when the call
    passes it plainly (no `*xs`, no `**d`)."""
    if any(keyword.arg is None for keyword in call.keywords):
        return None
    passed = arguments_by_parameter(candidate.node, call, skip_self=candidate.is_method)
    return None if passed is None else passed.get(name)
