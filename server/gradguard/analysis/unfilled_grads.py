"""Reads of `.grad` that certainly run before any backward could have filled it.

A leaf's `.grad` is None until a backward pass reaches it. A read of `w.grad` that fails on
None (`w.grad.zero_()`, `lr * w.grad`, `w.grad[0]`) is certain to fail when:

* `w` is a leaf that requires grad created by the same function (or module body) as a fresh
  tensor (`torch.randn(..., requires_grad=True)`, `nn.Parameter(...)`, `x.detach()
  .requires_grad_()`), or a parameter of a module it built (`for p in model.parameters()`
  after `model = nn.Linear(...)`), or returned by a helper of the file that makes it anew on
  every call and runs no backward (`w1, w2 = init_weights()` where the helper returns
  `torch.randn(..., requires_grad=True)` results, alone or in a tuple);
* on every way from the creation to the first execution of the read, nothing can have run
  backward: no `backward()`/`torch.autograd.backward` call, no call of code this analysis
  cannot see into (unknown callables and methods, helpers that are not provably free of
  backward), no `yield`/`await`, no assignment to any `.grad`.

Loops: a read at the top of a loop body fails on the loop's first iteration even though
the body runs backward later. That is certain only when every iteration reaches the read
(no `if`/`try` between the loop and the read, only `with` blocks and loops over
`model.parameters()`, which yield the same tensors every time); otherwise the whole loop
body must be free of backward, as an earlier iteration may have run it.

Iterating an object (`for batch in loader`) is assumed not to run backward; everything else
unknown is assumed to possibly do so.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from gradguard.analysis import torch_api as api
from gradguard.analysis.events import GradRead, ModuleCall, OptimizerCall
from gradguard.analysis.instance_leaves import PlainInstances
from gradguard.analysis.leaf_containers import (
    changed_in,
    concatenated_parts,
    first_item,
    loop_container,
)
from gradguard.analysis.model import LoopNode, ModuleAnalysis
from gradguard.analysis.names import dotted, parameters_receiver
from gradguard.analysis.values import Grad, Kind, Value
from gradguard.analysis.walk import module_nodes_of, module_parents

# Builtins that never call back into user code that could run backward.
_HARMLESS_BUILTINS = frozenset(
    "print len range enumerate zip min max abs round sorted reversed list tuple dict set "
    "frozenset str int float bool isinstance issubclass hasattr type id format repr iter next "
    "open divmod pow any all hash super sum".split()
)
# Method names that never run backward: tensor methods, module and optimizer bookkeeping,
# container and string methods, seeding a generator. (A method named `backward` always may.)
_HARMLESS_METHODS = (
    api.DIFFERENTIABLE_METHODS
    | api.NON_DIFFERENTIABLE_METHODS
    | api.SHAPE_METHODS
    | api.DETACH_METHODS
    | frozenset(api.CONVERSIONS)
    | frozenset(
        (
            "detach_ retain_grad requires_grad_ zero_ fill_ uniform_ normal_ copy_ add_ sub_ "
            "mul_ div_ clamp_ clamp_min_ clamp_max_ item size dim numel train eval cuda cpu "
            "parameters named_parameters buffers named_buffers children named_children "
            "modules named_modules state_dict load_state_dict zero_grad register_buffer "
            "append extend insert items keys values get pop join split strip format "
            "startswith endswith lower upper replace setdefault manual_seed"
        ).split()
    )
)
# Methods returning their receiver (or a copy of a fresh tensor): freshness carries through.
_SELF_RETURNING = api.MAYBE_IDENTITY_METHODS | frozenset({"requires_grad_"})
_FAILING_OPERATORS = (
    ast.Add,
    ast.Sub,
    ast.Mult,
    ast.Div,
    ast.FloorDiv,
    ast.Pow,
    ast.MatMult,
)
_OPERATOR_SYMBOLS = {
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.Div: "/",
    ast.FloorDiv: "//",
    ast.Pow: "** or pow()",
    ast.MatMult: "@",
}
_UNARY_SYMBOLS = {ast.USub: "-", ast.UAdd: "+", ast.Invert: "~"}
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Module, ast.Lambda)
_DEPTH = 3  # how deep calls of local helpers are followed before giving up
# The attribute of a torch.nn layer the interpreter knows as a fresh parameter (`.weight`).
_LAYER_PARAMETERS = frozenset({"weight"})


@dataclass(frozen=True)
class UnfilledRead:
    """A `.grad` read that fails because no backward can have run yet.

    `creation` is the statement that created the tensor (or the module whose parameter it
    is), `created` the name it bound there, `error` the exception text the read raises on
    None, and `loop` the loop on whose first iteration the read fails although the loop
    body runs backward later (None when nothing between the creation and the read runs
    backward at all). When `reset`, `creation` is a statement `created` (`opt.zero_grad()`,
    see `grad_resets`) that set the gradient to None, not the tensor's creation.
    """

    use: GradRead
    creation: ast.stmt
    created: str
    error: str
    loop: LoopNode | None
    reset: bool = False


def unfilled_grad_reads(analysis: ModuleAnalysis) -> Iterator[UnfilledRead]:
    """Every `.grad` read (`GradRead`) that certainly sees None and fails on it."""
    # A bound read: `w.grad` was assigned on some path; the path check below decides.
    uses = analysis.events.of(GradRead)
    if not uses:
        return
    from gradguard.analysis.global_leaves import GlobalLeaves
    from gradguard.analysis.grad_resets import reset_read
    from gradguard.analysis.handed_leaves import HandedLeaves

    paths = Paths(analysis)
    handed = HandedLeaves(paths)
    global_leaves = GlobalLeaves(paths)
    seen: set[tuple[int, int]] = set()
    for use in uses:
        if not isinstance(use.node, ast.Attribute) or (id(use.stmt), id(use.node)) in seen:
            continue
        if use.value.kind not in (Kind.TENSOR, Kind.UNKNOWN):
            continue
        error = _failure(use.stmt, use.node)
        if error is None or not paths.only_failing_reads(use.stmt, use.node):
            continue
        found = _in_scope(paths, use) or handed.creation(use) or global_leaves.creation(use)
        if found is not None:
            seen.add((id(use.stmt), id(use.node)))
            yield UnfilledRead(use, *found[:2], error, found[2])
            continue
        reset = reset_read(paths, use, handed.optimizer_over) or handed.reset(use)
        if reset is not None:
            seen.add((id(use.stmt), id(use.node)))
            yield UnfilledRead(use, *reset[:2], error, reset[2], reset=True)


def _in_scope(paths: Paths, use: GradRead) -> tuple[ast.stmt, str, LoopNode | None] | None:
    """The creation of the tensor read in the read's own scope, when no backward can run
    between it and the read (and the loop whose first iteration that relies on)."""
    value = use.value
    if value.kind is not Kind.TENSOR or not (_grad_leaf(value) or value.grad is Grad.UNKNOWN):
        return None
    found = paths.creation(use)
    if found is None:
        return None
    creation, created = found
    if not _grad_leaf(value) and not _forced_fresh(creation, created):
        return None
    cls = paths.instance_class(creation, created)
    with paths.holding({created: cls} if cls is not None else {}):
        clean, loop = paths.clean_until(creation, use.stmt, use.node)
    return (creation, created, loop) if clean else None


def _grad_leaf(value: Value) -> bool:
    """A leaf that requires grad."""
    return value.grad is Grad.TRACKED and value.leaf is True


def _forced_fresh(creation: ast.stmt, key: str) -> bool:
    """`x = (image + noise).requires_grad_()`: a fresh tensor (checked by `creation`) asked
    to require grad, whose leafness the analysis may not know (the method keeps the history
    of a computed tensor). Its `.grad` is None either way: a new leaf's until a backward
    reaches it, a computed tensor's (which backward never fills without `retain_grad()`)."""
    value = _assigned_expression(creation, key)
    return (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Attribute)
        and value.func.attr == "requires_grad_"
    )


def _parents(root: ast.AST) -> dict[int, ast.AST]:
    return {id(child): node for node in ast.walk(root) for child in ast.iter_child_nodes(node)}


def _failure(stmt: ast.stmt, node: ast.Attribute) -> str | None:
    """The error a read of `node` (== None) raises in its context, or None if it does not."""
    parent = _parents(stmt).get(id(node))
    if isinstance(parent, ast.Attribute) and parent.value is node:
        if parent.attr.startswith("__"):
            return None
        return f"AttributeError: 'NoneType' object has no attribute '{parent.attr}'"
    if isinstance(parent, ast.Subscript) and parent.value is node:
        if isinstance(parent.ctx, ast.Store):
            return "TypeError: 'NoneType' object does not support item assignment"
        return "TypeError: 'NoneType' object is not subscriptable"
    if isinstance(parent, ast.BinOp) and isinstance(parent.op, _FAILING_OPERATORS):
        symbol = _OPERATOR_SYMBOLS[type(parent.op)]
        return f"TypeError: unsupported operand type(s) for {symbol}"
    if isinstance(parent, ast.UnaryOp) and type(parent.op) in _UNARY_SYMBOLS:
        return (
            f"TypeError: bad operand type for unary {_UNARY_SYMBOLS[type(parent.op)]}: 'NoneType'"
        )
    if (
        isinstance(parent, ast.AugAssign)
        and parent.target is node
        and isinstance(parent.op, _FAILING_OPERATORS)
    ):
        symbol = _OPERATOR_SYMBOLS[type(parent.op)].split(" ")[0]
        return f"TypeError: unsupported operand type(s) for {symbol}=: 'NoneType'"
    if isinstance(parent, ast.For | ast.comprehension) and parent.iter is node:
        return "TypeError: 'NoneType' object is not iterable"
    return None


def _header(stmt: ast.stmt) -> list[ast.AST]:
    """The parts of a statement that run before (or instead of) its nested blocks."""
    if isinstance(stmt, ast.If | ast.While):
        return [stmt.test]
    if isinstance(stmt, ast.For | ast.AsyncFor):
        return [stmt.iter, stmt.target]
    if isinstance(stmt, ast.With | ast.AsyncWith):
        return list(stmt.items)
    if isinstance(stmt, ast.Match):
        return [stmt.subject]
    if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return [*stmt.decorator_list]
    if isinstance(stmt, ast.Try) or type(stmt).__name__ == "TryStar":
        return []
    return [stmt]


def _mentions_grad(node: ast.AST) -> bool:
    return any(isinstance(n, ast.Attribute) and n.attr == "grad" for n in ast.walk(node))


def _tests_grad(statements: list[ast.stmt]) -> bool:
    """Whether a statement that runs before the read tests a `.grad` (`if p.grad is None:
    continue`, `assert w.grad is not None`): it may keep a missing gradient from the read."""
    return any(
        isinstance(node, ast.If | ast.While | ast.Assert | ast.IfExp) and _mentions_grad(node.test)
        for stmt in statements
        for node in ast.walk(stmt)
    )


class Paths:
    """Which code can run backward, and which paths from a creation to a read avoid it."""

    def __init__(self, analysis: ModuleAnalysis) -> None:
        self.analysis = analysis
        self.torch: dict[int, str] = {id(c.call): c.qualified for c in analysis.torch_calls}
        self.module_calls = {id(use.node): use for use in analysis.events.of(ModuleCall)}
        self.optimizer_calls = {id(use.node) for use in analysis.events.of(OptimizerCall)}
        self.bound = _bound_names(analysis.tree)
        self.local: dict[str, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef] = {}
        counts: dict[str, int] = {}
        for stmt in analysis.tree.body:
            if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                self.local[stmt.name] = stmt
                counts[stmt.name] = counts.get(stmt.name, 0) + 1
        self.local = {k: v for k, v in self.local.items() if counts[k] == 1}
        # Names also bound by assignment somewhere (`make = other`): not surely the `def`.
        self.rebound = frozenset(
            node.id
            for node in module_nodes_of(analysis.tree, ast.Name)
            if isinstance(node.ctx, ast.Store | ast.Del)
        )
        self._clean_functions: dict[int, bool] = {}
        self._depth = 0
        self._plain: PlainInstances | None = None
        # Names of the code being checked that certainly hold an instance of a plain class
        # of the file (`net` handed `TwoLayerNet(...)`): `net.forward(x)` runs its method.
        self.instances: dict[str, ast.ClassDef] = {}

    @property
    def plain(self) -> PlainInstances:
        if self._plain is None:
            self._plain = PlainInstances(self.analysis.tree, self.local, self.rebound)
        return self._plain

    @contextmanager
    def holding(self, instances: dict[str, ast.ClassDef]) -> Iterator[None]:
        """Check code in which these names hold instances of these plain classes."""
        saved, self.instances = self.instances, instances
        try:
            yield
        finally:
            self.instances = saved

    # -- which code may run backward ---------------------------------------------------------

    def clean(self, node: ast.AST, exempt: ast.AST | None = None, *, called: bool = False) -> bool:
        """True when evaluating `node` certainly runs no backward and assigns no `.grad`.

        Calls on `exempt` (`w.grad.zero_()` for the read `w.grad`), or `exempt` itself
        when it is a call (`zero_grads(w)`, a call reading `w.grad` on entry), are the
        read itself. Bodies of nested functions and lambdas do not run here and are
        skipped. In a `called` function's body, `yield` hands control back to the loop
        iterating it, which is checked where it is: only `await` may run anything.
        """
        stack: list[ast.AST] = [node]
        while stack:
            current = stack.pop()
            if isinstance(current, ast.Lambda):
                continue
            if isinstance(current, ast.FunctionDef | ast.AsyncFunctionDef) and (
                current is not node or self.local.get(current.name) is current
            ):
                # Defining a function runs its decorators and defaults, not its body. So
                # does a `def` statement of the module body on the way (`def run(): ...
                # backward()` between a module-level creation and the call of `run()`):
                # a call of it by name is checked as a call (`_harmless_call`).
                stack.extend([*current.decorator_list, *current.args.defaults])
                stack.extend(d for d in current.args.kw_defaults if d is not None)
                continue
            if isinstance(current, ast.Await) or (
                isinstance(current, ast.Yield | ast.YieldFrom) and not called
            ):
                return False
            if (
                isinstance(current, ast.Attribute)
                and current.attr == "grad"
                and isinstance(current.ctx, ast.Store | ast.Del)
            ):
                return False
            if isinstance(current, ast.Call) and not self._harmless_call(current, exempt):
                return False
            stack.extend(ast.iter_child_nodes(current))
        return True

    def _harmless_call(self, call: ast.Call, exempt: ast.AST | None) -> bool:
        if call is exempt:
            return True
        func = call.func
        qualified = self.torch.get(id(call))
        if qualified is not None:
            return qualified not in api.BACKWARD_FUNCTIONS and qualified not in api.GRAD_FUNCTIONS
        module_call = self.module_calls.get(id(call))
        if module_call is not None:
            ref = module_call.value.module
            if module_call.layer_class:
                return True  # a torch.nn layer's forward
            if ref is not None and ref.local is not None:
                forward = _method(ref.local.node, "forward")
                return forward is not None and self._function_clean(forward)
            return False
        if id(call) in self.optimizer_calls:
            assert isinstance(func, ast.Attribute)
            # `optimizer.step(closure)` runs the closure, which usually calls backward.
            return not (func.attr == "step" and (call.args or call.keywords))
        if isinstance(func, ast.Name):
            if func.id in _HARMLESS_BUILTINS and func.id not in self.bound:
                return True
            local = self.local.get(func.id)
            if local is None:
                return False
            if isinstance(local, ast.ClassDef):
                init = _method(local, "__init__")
                return init is None or self._function_clean(init)
            return self._function_clean(local)
        if isinstance(func, ast.Attribute):
            if exempt is not None and _rooted_at(func, exempt):
                return True
            if func.attr == "__init__" and _is_super_call(func.value):
                return True
            held = self.instances.get(func.value.id) if isinstance(func.value, ast.Name) else None
            method = self.plain.method(held, func.attr) if held is not None else None
            if method is not None:
                return self._function_clean(method)
            return func.attr in _HARMLESS_METHODS
        return False

    def _function_clean(self, function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
        key = id(function)
        if key in self._clean_functions:
            return self._clean_functions[key]
        if self._depth >= _DEPTH:
            return False
        self._clean_functions[key] = False  # recursion: assume the worst
        self._depth += 1
        try:
            with self.holding({}):  # the caller's names mean nothing in the body
                result = all(self.clean(stmt, called=True) for stmt in function.body)
        finally:
            self._depth -= 1
        self._clean_functions[key] = result
        return result

    def block_clean(self, statements: Iterable[ast.stmt]) -> bool:
        """Every statement (with everything nested in it) is clean."""
        return all(self.clean(stmt) for stmt in statements)

    # -- where the tensor comes from -----------------------------------------------------------

    def creation(self, use: GradRead) -> tuple[ast.stmt, str] | None:
        """The statement creating the tensor read (or the module owning it), if certain."""
        origin = use.value.origin
        key = dotted(use.target)
        if origin is None and isinstance(use.target, ast.Attribute):
            layer = self._layer_parameter(use.target, use.stmt)
            if layer is not None or not isinstance(use.target.value, ast.Name):
                return layer
            return self.built_instance(use.target.value.id, use.target.attr, use.stmt)
        if origin is None or key is None:
            return None
        if isinstance(origin, ast.For):
            return self._loop_creation(origin, key)
        value = _assigned_expression(origin, key)
        if value is None:
            unpacked = _unpacked_call(origin, key)
            fresh = unpacked is not None and self._returns_fresh(*unpacked)
            return (origin, key) if fresh else None
        if not self._fresh_tensor(value):
            return None
        return origin, key

    def _fresh_tensor(self, expr: ast.expr) -> bool:
        """True when `expr` makes a new tensor object (whose `.grad` starts as None)."""
        if isinstance(expr, ast.BinOp | ast.UnaryOp):
            return True
        if not isinstance(expr, ast.Call):
            return False
        qualified = self.torch.get(id(expr))
        if qualified is not None:
            return (
                qualified in api.FACTORIES
                or qualified in api.REWRAP
                or qualified in api.LEGACY_CONSTRUCTORS
                or qualified in api.PARAMETER
            )
        func = expr.func
        if isinstance(func, ast.Name):
            return self._returns_fresh(expr, None)
        if not isinstance(func, ast.Attribute):
            return False
        if func.attr in _SELF_RETURNING or func.attr.endswith("_"):
            return self._fresh_tensor(func.value)
        # `.clone()` always allocates a new tensor, as `.detach()` makes a new object.
        return func.attr in api.DETACH_METHODS or (func.attr == "clone" and not expr.args)

    def _returns_fresh(self, call: ast.Call, index: int | None, size: int = 1) -> bool:
        """`make(n)` (or element `index` of the tuple it returns), a call of a helper of the
        file that runs no backward and returns, on every `return`, a tensor it creates anew
        (a fresh-tensor expression, or a local name bound only to such expressions)."""
        func = call.func
        helper = self.local.get(func.id) if isinstance(func, ast.Name) else None
        if not isinstance(helper, ast.FunctionDef) or helper.name in self.rebound:
            return False
        if self._depth >= _DEPTH or not self._function_clean(helper):
            return False
        returned = [node.value for node in scope_nodes(helper) if isinstance(node, ast.Return)]
        if not returned:
            return False
        self._depth += 1
        try:
            return all(self._fresh_local(helper, _element(expr, index, size)) for expr in returned)
        finally:
            self._depth -= 1

    def _fresh_local(self, helper: ast.FunctionDef, expr: ast.expr | None) -> bool:
        """`expr`, returned by `helper`, is a tensor made by this call of it."""
        if not isinstance(expr, ast.Name):
            return expr is not None and self._fresh_tensor(expr)
        name = expr.id
        parameters = helper.args.posonlyargs + helper.args.args + helper.args.kwonlyargs
        if any(arg.arg == name for arg in parameters):
            return False
        bindings = [node for node in scope_nodes(helper) if binds(node, name)]
        statements = [
            stmt
            for stmt in scope_nodes(helper)
            if isinstance(stmt, ast.Assign | ast.AnnAssign)
            and _assigned_expression(stmt, name) is not None
        ]
        if not bindings or len(bindings) != len(statements):
            return False  # bound by a loop, an unpacked call, `global`...: unknown
        return all(
            self._fresh_tensor(value)
            for value in (_assigned_expression(stmt, name) for stmt in statements)
            if value is not None
        )

    def _loop_creation(self, loop: ast.For, key: str) -> tuple[ast.stmt, str] | None:
        """For `for p in model.parameters()`: the statement building `model` in this scope;
        for a loop over a container (`for p in [w1, w2]`, `for p in params.values()`, see
        `leaf_containers`): the creation of the fresh leaf it yields first."""
        if isinstance(loop.target, ast.Name) and loop.target.id == key:
            module = parameters_receiver(loop.iter)
            if module is not None:
                return self.built_in_scope(module, loop)
        container = loop_container(loop, key)
        if isinstance(container, ast.Name):
            return self.fresh_container(container.id, loop)
        first = first_item(container)
        if isinstance(first, ast.Name):
            return self.fresh_binding(first.id, loop)
        return None

    def fresh_container(self, name: str, stmt: ast.stmt) -> tuple[ast.stmt, str] | None:
        """The creation of the fresh leaf the container bound to `name` yields first (see
        `leaf_containers`), when that binding is the only one of `name` in the scope of
        `stmt` and nothing there may change which element comes first: the leaf's own
        binding (`w1 = torch.randn(..., requires_grad=True)` before `params = [w1, w2]`),
        or the container's (`params = init_params()`, a helper returning such a container
        made anew; `params = list(model.parameters())` of a module built there)."""
        found = self._sole_assignment(name, stmt, unchanged=True)
        if found is None:
            return None
        node, value = found
        first = first_item(value)
        if isinstance(first, ast.Name):
            return self.fresh_binding(first.id, node)
        if first is not None:
            return (node, name) if self._fresh_tensor(first) else None
        parts = concatenated_parts(value)
        if parts is not None:
            return self._fresh_concatenation(parts, node, name)
        return self._fresh_part(value, node, name)

    def _fresh_part(
        self, value: ast.expr, node: ast.stmt, name: str
    ) -> tuple[ast.stmt, str] | None:
        """A container made anew whose every element is a fresh leaf: what a helper of the
        file returns, or `list(model.parameters())` of a module built in scope."""
        if isinstance(value, ast.Call) and self._returns_fresh_container(value):
            return node, name
        listed = _listed_parameters(value) if "list" not in self.bound else None
        return self.built_in_scope(listed, node) if listed is not None else None

    def _fresh_concatenation(
        self, parts: list[ast.expr], node: ast.stmt, name: str
    ) -> tuple[ast.stmt, str] | None:
        """`G_params + D_params`: the earliest creation among the parts, when every part is
        a container of fresh leaves (a name bound once to one, `fresh_container`, or one
        made right there, `_fresh_part`). The concatenation's first element is the first
        element of some part, so it is a fresh leaf whichever part it comes from; the
        earliest creation is the one the way to the read must be free of backward from."""
        found: list[tuple[ast.stmt, str]] = []
        for part in parts:
            made = (
                self.fresh_container(part.id, node)
                if isinstance(part, ast.Name)
                else self._fresh_part(part, node, name)
            )
            if made is None:
                return None
            found.append(made)
        return min(found, key=lambda item: (item[0].lineno, item[0].col_offset))

    def _sole_assignment(
        self, name: str, stmt: ast.stmt, *, unchanged: bool = False
    ) -> tuple[ast.Assign, ast.expr] | None:
        """`_sole_assignment` of `name` in the scope of `stmt`."""
        return _sole_assignment(list(scope_nodes(self.scope_of(stmt))), name, unchanged=unchanged)

    def _returns_fresh_container(self, call: ast.Call) -> bool:
        """`init_params()`, a helper of the file that runs no backward and returns, on
        every `return`, a container it writes out whose first element is a tensor it makes
        anew (`return {"w1": w1, "w2": w2}`, or a name bound once to such a container)."""
        found = self._returned_first_items(call)
        if found is None:
            return False
        helper, firsts = found
        self._depth += 1
        try:
            return all(self._fresh_local(helper, first) for first in firsts)
        finally:
            self._depth -= 1

    def _returned_first_items(
        self, call: ast.Call
    ) -> tuple[ast.FunctionDef, list[ast.expr | None]] | None:
        """The helper `call` runs (a function of the file that runs no backward) and the
        first element of the container each of its `return`s writes out (`return [w1, b1]`,
        or a name bound once there to such a container; None where it is not written out)."""
        func = call.func
        helper = self.local.get(func.id) if isinstance(func, ast.Name) else None
        if not isinstance(helper, ast.FunctionDef) or helper.name in self.rebound:
            return None
        if self._depth >= _DEPTH or not self._function_clean(helper):
            return None
        nodes = list(scope_nodes(helper))
        returned = [node.value for node in nodes if isinstance(node, ast.Return)]
        if not returned:
            return None
        return helper, [_written_first(nodes, expr) for expr in returned]

    def returns_filled_container(self, call: ast.Call) -> bool:
        """`init_params()` whose every `return` writes out a container with a first
        element (`return [w1, b1, w2, b2]`): each call makes a new container that surely
        holds an element, whatever that element is."""
        found = self._returned_first_items(call)
        return found is not None and all(first is not None for first in found[1])

    def _layer_parameter(
        self, target: ast.Attribute, read: ast.stmt
    ) -> tuple[ast.stmt, str] | None:
        """For `layer.weight.grad`: the statement building `layer` as a torch.nn layer in
        this scope (its weight is a fresh parameter)."""
        if target.attr not in _LAYER_PARAMETERS or not isinstance(target.value, ast.Name):
            return None
        found = self.built_in_scope(target.value.id, read)
        if found is None:
            return None
        value = _assigned_expression(found[0], found[1])
        layer = isinstance(value, ast.Call) and self.torch.get(id(value), "").startswith(
            "torch.nn."
        )
        return found if layer else None

    def built_in_scope(self, name: str, stmt: ast.stmt) -> tuple[ast.stmt, str] | None:
        """The statement binding `name` to a fresh module, when it is the only binding of
        `name` in the scope of `stmt` (so the binding found is the one read)."""
        nodes = list(scope_nodes(self.scope_of(stmt)))
        if sum(1 for node in nodes if binds(node, name)) != 1:
            return None
        for node in nodes:
            if isinstance(node, ast.Assign) and _assigned_expression(node, name) is not None:
                value = _assigned_expression(node, name)
                fresh = value is not None and self._fresh_module(value)
                return (node, name) if fresh else None
        return None

    def built_instance(self, name: str, attr: str, stmt: ast.stmt) -> tuple[ast.stmt, str] | None:
        """The statement binding `name` to a new instance of a plain class of the file whose
        `__init__` binds `self.<attr>` to a fresh tensor (see `instance_leaves`), when it is
        the only binding of `name` in the scope of `stmt`."""
        found = self._sole_assignment(name, stmt)
        if found is None:
            return None
        node, value = found
        cls = self.plain.plain_class(value)
        binding = self.plain.init_binding(cls, attr) if cls is not None else None
        if binding is None or not self._fresh_tensor(binding.value):
            return None
        assert isinstance(value, ast.Call)  # a plain class is built by a call
        return (node, name) if self._harmless_call(value, None) else None

    def instance_class(self, creation: ast.stmt, name: str) -> ast.ClassDef | None:
        """The plain class whose instance `creation` binds to `name`, if it does."""
        value = _assigned_expression(creation, name)
        return self.plain.plain_class(value) if value is not None else None

    def fresh_binding(self, name: str, stmt: ast.stmt) -> tuple[ast.stmt, str] | None:
        """The statement binding `name` to a fresh tensor (`w = torch.randn(...)`,
        `w1, w2 = init_weights()`), when it is the only binding of `name` in the scope of
        `stmt`."""
        nodes = list(scope_nodes(self.scope_of(stmt)))
        if sum(1 for node in nodes if binds(node, name)) != 1:
            return None
        for node in nodes:
            if not isinstance(node, ast.Assign | ast.AnnAssign):
                continue
            value = _assigned_expression(node, name)
            if value is not None:
                return (node, name) if self._fresh_tensor(value) else None
            unpacked = _unpacked_call(node, name)
            if unpacked is not None:
                return (node, name) if self._returns_fresh(*unpacked) else None
        return None

    def _fresh_module(self, expr: ast.expr) -> bool:
        """`nn.Linear(...)`, `nn.Sequential(...)`, `Net()` (a clean `__init__`), `.to(device)`."""
        if not isinstance(expr, ast.Call):
            return False
        func = expr.func
        qualified = self.torch.get(id(expr))
        if qualified is not None:
            last = qualified.rsplit(".", 1)[-1]
            return qualified.startswith("torch.nn.") and last[:1].isupper()
        if (
            isinstance(func, ast.Attribute) and func.attr in api.MODULE_CASTS_AND_MODES
        ):  # still fresh
            return self._fresh_module(func.value)
        if isinstance(func, ast.Name) and isinstance(self.local.get(func.id), ast.ClassDef):
            return self._harmless_call(expr, None)  # a class of this file, clean `__init__`
        return False

    def statement_of(self, node: ast.AST) -> ast.stmt | None:
        """The statement an expression of the file belongs to."""
        parents = module_parents(self.analysis.tree)
        current: ast.AST | None = node
        while current is not None and not isinstance(current, ast.stmt):
            current = parents.get(id(current))
        return current

    def scope_of(self, stmt: ast.stmt) -> ast.AST:
        owner: ast.AST = stmt
        while True:
            owner, _ = self.analysis.block_of(owner)  # type: ignore[arg-type]
            if isinstance(owner, _SCOPES):
                return owner
            if not isinstance(owner, ast.stmt):
                return self.analysis.tree  # an except handler or case: give up below
            continue

    # -- the path from the creation to the read ----------------------------------------------

    def only_failing_reads(self, stmt: ast.stmt, node: ast.Attribute) -> bool:
        """Every read of the same `x.grad` in the statement fails on None (no inline guard
        such as `w.grad.norm() if w.grad is not None else 0`)."""
        key = dotted(node)
        for part in _header(stmt):
            for other in ast.walk(part):
                if (
                    isinstance(other, ast.Attribute)
                    and other.attr == "grad"
                    and dotted(other) == key
                    and _failure(stmt, other) is None
                ):
                    return False
        return True

    def clean_until(
        self, creation: ast.stmt, read: ast.stmt, node: ast.AST, *, calling: bool = False
    ) -> tuple[bool, LoopNode | None]:
        """Whether no backward can run between `creation` and the first execution of `read`,
        and the loop whose first iteration that relies on (see the module docstring).

        With `calling`, `read` is a call that reaches the read in another function (see
        `global_leaves`): a `try` whose body holds the call does not stop the way (the read
        runs, and fails, inside the call; the handler only decides what follows)."""
        _, home = self.analysis.block_of(creation)
        return self._clean_path(home, _index(home, creation), read, node, calling=calling)

    def clean_from_entry(
        self, function: ast.FunctionDef | ast.AsyncFunctionDef, read: ast.stmt, node: ast.AST
    ) -> tuple[bool, LoopNode | None]:
        """`clean_until` from the first statement of `function` (which holds `read`)."""
        return self._clean_path(function.body, -1, read, node)

    def _clean_path(
        self,
        home: list[ast.stmt],
        start: int,
        read: ast.stmt,
        node: ast.AST,
        *,
        calling: bool = False,
    ) -> tuple[bool, LoopNode | None]:
        """`clean_until` from the statement at `start` in `home` (-1: its beginning)."""
        if not all(self.clean(part, exempt=node) for part in _header(read)):
            return False, None
        chain: list[tuple[ast.stmt, list[ast.stmt], ast.stmt]] = []
        current = read
        while True:
            owner, block = self.analysis.block_of(current)
            if block is home:
                break
            if isinstance(owner, _SCOPES) or not isinstance(owner, ast.stmt):
                return False, None
            chain.append((owner, block, current))
            current = owner
        end = _index(home, current)
        if end <= start or not self.block_clean(home[start + 1 : end]):
            return False, None
        if _tests_grad(home[start + 1 : end]):
            return False, None
        first_iteration: LoopNode | None = None
        since: list[tuple[ast.stmt, list[ast.stmt], ast.stmt]] = []
        for owner, block, child in reversed(chain):
            if calling and isinstance(owner, ast.Try) and block is owner.body:
                pass  # the call runs the read whatever the handlers do afterwards
            elif isinstance(owner, ast.Try | ast.Match) or type(owner).__name__ == "TryStar":
                return False, None  # an exception may skip the read, or be the point of it
            if isinstance(owner, ast.For | ast.AsyncFor | ast.While) and owner.orelse is block:
                return False, None
            if isinstance(owner, ast.If | ast.While) and _mentions_grad(owner.test):
                return False, None  # guarded: `if w.grad is not None:`
            if not all(self.clean(part) for part in _header(owner)):
                return False, None
            if not self.block_clean(block[: _index(block, child)]):
                return False, None
            if _tests_grad(block[: _index(block, child)]):
                return False, None  # `if p.grad is None: continue` before the read
            if first_iteration is not None and not self._transparent(owner):
                # A later iteration may be the first to get here: fine only when all that
                # may run backward in the loop sits in `owner`, after the read.
                if not all(self._side_clean(*level) for level in since):
                    return False, None
                since = []
            if isinstance(owner, ast.For | ast.AsyncFor | ast.While) and not self.block_clean(
                owner.body
            ):
                first_iteration, since = owner, []
            if first_iteration is not None:
                since.append((owner, block, child))
        return True, first_iteration

    def _transparent(self, owner: ast.stmt) -> bool:
        """`_transparent`, or a loop over a container that surely holds an element, the
        same first one every time (a list written out right there, or a name bound once to
        one that nothing changes, see `leaf_containers`)."""
        if _transparent(owner):
            return True
        if not isinstance(owner, ast.For):
            return False
        iterable = owner.iter
        if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Attribute):
            if iterable.func.attr not in ("values", "items") or iterable.args:
                return False
            iterable = iterable.func.value
        if isinstance(iterable, ast.Name):
            nodes = list(scope_nodes(self.scope_of(owner)))
            if _written_first(nodes, iterable) is not None:
                return True
            # `params = init_params()`, bound once and never changed: the one container a
            # helper of the file built with its elements written out.
            found = _sole_assignment(nodes, iterable.id, unchanged=True)
            return (
                found is not None
                and isinstance(found[1], ast.Call)
                and self.returns_filled_container(found[1])
            )
        return isinstance(iterable, ast.List | ast.Tuple) and first_item(iterable) is not None

    def _side_clean(self, owner: ast.stmt, block: list[ast.stmt], child: ast.stmt) -> bool:
        """Everything `owner` may run besides `child` and what precedes it in `block` is
        clean: the rest of the block, and its other blocks (`else:`)."""
        rest = block[_index(block, child) + 1 :]
        others = [
            other
            for name in ("body", "orelse")
            if isinstance(other := getattr(owner, name, None), list) and other is not block
        ]
        return self.block_clean(rest) and all(self.block_clean(other) for other in others)


def _transparent(owner: ast.stmt) -> bool:
    """Statements every iteration passes through into their body: `with` blocks, and loops
    over `model.parameters()` or `model.named_parameters()` (the same, non-empty or empty,
    every time)."""
    if isinstance(owner, ast.With | ast.AsyncWith):
        return True
    return (
        isinstance(owner, ast.For)
        and isinstance(owner.iter, ast.Call)
        and isinstance(owner.iter.func, ast.Attribute)
        and owner.iter.func.attr in ("parameters", "named_parameters")
        and not owner.iter.args
    )


def _sole_assignment(
    nodes: list[ast.AST], name: str, *, unchanged: bool = False
) -> tuple[ast.Assign, ast.expr] | None:
    """The assignment `name = value` (and its value) when it is the only binding of `name`
    among `nodes` (a scope's); with `unchanged`, also when nothing there may change which
    element the container bound to it yields first (`changed_in`)."""
    if sum(1 for node in nodes if binds(node, name)) != 1:
        return None
    if unchanged and changed_in(nodes, name):
        return None
    for node in nodes:
        if isinstance(node, ast.Assign):
            value = _assigned_expression(node, name)
            if value is not None:
                return node, value
    return None


def _written_first(nodes: list[ast.AST], expr: ast.expr | None) -> ast.expr | None:
    """The first element of a container written out as `expr`, or bound once (and never
    changed) to the name `expr` in the scope of `nodes`."""
    if isinstance(expr, ast.Name):
        found = _sole_assignment(nodes, expr.id, unchanged=True)
        if found is None:
            return None
        expr = found[1]
    return first_item(expr)


def _listed_parameters(expr: ast.expr) -> str | None:
    """`m` of `list(m.parameters())`."""
    if (
        isinstance(expr, ast.Call)
        and isinstance(expr.func, ast.Name)
        and expr.func.id == "list"
        and len(expr.args) == 1
        and not expr.keywords
    ):
        return parameters_receiver(expr.args[0])
    return None


def _index(block: list[ast.stmt], stmt: ast.stmt) -> int:
    return next(i for i, s in enumerate(block) if s is stmt)


def _rooted_at(expr: ast.expr, root: ast.AST) -> bool:
    """`w.grad.data.zero_` is rooted at the read `w.grad`."""
    while isinstance(expr, ast.Attribute | ast.Subscript | ast.Call):
        if expr is root:
            return True
        expr = expr.func if isinstance(expr, ast.Call) else expr.value
    return expr is root


def _is_super_call(expr: ast.expr) -> bool:
    return (
        isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == "super"
    )


def _method(cls: ast.ClassDef, name: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    for stmt in cls.body:
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef) and stmt.name == name:
            return stmt
    return None


def _assigned_expression(stmt: ast.stmt, key: str) -> ast.expr | None:
    """The expression `stmt` assigns to `key` (`w = ...`, `w: T = ...`, `a, w = x, y`)."""
    if isinstance(stmt, ast.AnnAssign):
        return stmt.value if dotted(stmt.target) == key else None
    if not isinstance(stmt, ast.Assign):
        return None
    for target in stmt.targets:
        if dotted(target) == key:
            return stmt.value
        if (
            isinstance(target, ast.Tuple | ast.List)
            and isinstance(stmt.value, ast.Tuple | ast.List)
            and len(target.elts) == len(stmt.value.elts)
        ):
            for element, expr in zip(target.elts, stmt.value.elts, strict=True):
                if dotted(element) == key:
                    return expr
    return None


def _unpacked_call(stmt: ast.stmt, key: str) -> tuple[ast.Call, int, int] | None:
    """`a, w = make(n)`: the call, the position of `key` and the number of names."""
    if not (isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call)):
        return None
    for target in stmt.targets:
        if isinstance(target, ast.Tuple | ast.List) and not any(
            isinstance(element, ast.Starred) for element in target.elts
        ):
            for position, element in enumerate(target.elts):
                if dotted(element) == key:
                    return stmt.value, position, len(target.elts)
    return None


def _element(expr: ast.expr | None, index: int | None, size: int) -> ast.expr | None:
    """The returned expression (`index` None) or its element `index` (`return a, w`, of
    `size` elements: any other length fails to unpack before the read)."""
    if index is None or expr is None:
        return expr
    if isinstance(expr, ast.Tuple | ast.List) and len(expr.elts) == size:
        element = expr.elts[index]
        return None if isinstance(element, ast.Starred) else element
    return None


def scope_nodes(scope: ast.AST) -> Iterator[ast.AST]:
    """Every node of a scope, not descending into nested functions and classes."""
    stack = list(ast.iter_child_nodes(scope))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, _SCOPES):
            stack.extend(ast.iter_child_nodes(node))


def binds(node: ast.AST, name: str) -> bool:
    """True when `node` (re)binds `name` (assignment, loop target, import, def, walrus...)."""
    if isinstance(node, ast.Name) and node.id == name:
        return isinstance(node.ctx, ast.Store | ast.Del)
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return node.name == name
    if isinstance(node, ast.alias):
        return (node.asname or node.name.split(".")[0]) == name
    if isinstance(node, ast.Global | ast.Nonlocal):
        return name in node.names
    return False


def _bound_names(tree: ast.Module) -> frozenset[str]:
    """Every name the file binds anywhere: such a name is not the builtin."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.alias):
            names.add(node.asname or node.name.split(".")[0])
        elif isinstance(node, ast.arg):
            names.add(node.arg)
    return frozenset(names)
