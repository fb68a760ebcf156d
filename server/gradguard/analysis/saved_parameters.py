"""Which module calls certainly saved one of the module's own parameters for backward.

An optimizer step changes parameters in place. A graph built before the step still works
after it unless one of its nodes *saved* a parameter the step changed: then a backward
through that node raises "one of the variables needed for gradient computation has been
modified by an inplace operation". Whether a layer saves its weight is data
(`torch_api.SAVES_WEIGHT_MODULES`, `SAVES_WEIGHT_FOR_INPUT_MODULES`): convolutions and
recurrent layers always do, `nn.Linear` only when its input requires grad.

A module call is followed into what it runs when that is plain to see:

* a `torch.nn` layer of the tables;
* an `nn.Sequential(...)` built once from literal `torch.nn` layers: the first layer that
  saves its weight given what flows into it (a Linear after any layer with parameters
  gets an input that requires grad);
* a module class of the file whose `forward` returns a chain of its own layers
  (`return self.main(x)`, `x = F.relu(self.fc1(x))` then `return self.fc2(x)`): every
  layer on the chain certainly runs and its output reaches the returned value;
* a module class of the file whose `forward` runs one of its layers first thing
  (`stats = self.encode(x)`, also inside differentiable wrappers such as
  `h = torch.tanh(self.trunk(x))`) and computes every value it may return from that layer's
  output through differentiable operations (`Flow`: slices, `chunk`, arithmetic, its
  `torch.nn` layers, one-line methods of the class), whatever the branches between: a VAE
  that splits, samples and maybe decodes. A backward from any part of the call's result
  then runs through that layer.

Anything else (a layer built elsewhere, a value returned that may not come from the layer,
helpers of several statements) saves nothing as far as this module knows: silence is the
default.
"""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from gradguard.analysis import torch_api as api
from gradguard.analysis.imports import Scope, build_scope
from gradguard.analysis.names import dotted
from gradguard.analysis.sequential_subclasses import added_layers
from gradguard.analysis.values import ModuleRef

# Resolves a call to the torch API it names (`nn.Linear(...)` -> "torch.nn.Linear").
Resolver = Callable[[ast.Call], "str | None"]

# Calls and methods a forward may wrap a layer's output in without breaking the chain from
# the layer to the returned value: they are differentiable in their first input.
_CHAIN_FUNCTIONS = frozenset(
    f"{prefix}{name}"
    for prefix in ("torch.", api.FUNCTIONAL_PREFIX)
    for name in "relu leaky_relu gelu silu elu tanh sigmoid softmax log_softmax dropout "
    "flatten squeeze unsqueeze reshape".split()
)
# Arithmetic whose backward passes a gradient to each operand with history.
_DIFFERENTIABLE_OPERATORS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.MatMult)
_CHAIN_METHODS = frozenset(
    "view reshape flatten squeeze unsqueeze mean sum relu sigmoid tanh contiguous".split()
)


@dataclass(frozen=True)
class SavedParameter:
    """A layer whose weight a module call certainly saved: `layer` is the layer's
    construction (`nn.Conv2d(...)`) or the call of a torch.nn module bound elsewhere."""

    layer: ast.AST
    description: str  # "nn.Conv2d"
    # The attribute of the called module's class (a class of the file) whose layer saved
    # the weight (`trunk` of `h = self.trunk(x)` in its `forward`): the weight belongs to
    # the submodule at that attribute. None for a call of the saving layer itself.
    attribute: str | None = None


class ParameterSaves:
    """Answers `saved_parameter` for the module calls of one file."""

    def __init__(self, tree: ast.Module, resolve: Resolver) -> None:
        self._tree = tree
        self._resolve = resolve
        self._bindings: dict[str, list[ast.AST]] | None = None
        self._scope: Scope | None = None

    def saved_parameter(
        self, call: ast.Call, module: ModuleRef, input_requires_grad: bool
    ) -> SavedParameter | None:
        """The layer whose weight `call` (a call of `module`) certainly saved for backward,
        given whether its first input certainly requires grad; None when not certain."""
        qualified = module.qualified
        if qualified in api.SEQUENTIAL:
            key = dotted(call.func)
            construction = self._only_construction(key) if key is not None else None
            if construction is None:
                return _built_sequential(call, module, input_requires_grad)
            return self._sequential(construction, input_requires_grad)
        if qualified is not None:
            layer = _layer_saves(qualified, input_requires_grad)
            return SavedParameter(call, layer) if layer is not None else None
        if module.local is not None:
            return self._local(module.local.node, input_requires_grad)
        return None

    def saved_by_method(
        self, call: ast.Call, module: ModuleRef, method: str, input_requires_grad: bool
    ) -> SavedParameter | None:
        """The layer whose weight `call`, a call of the method `method` of `module` (a
        module class of the file: `model.embed(x)`), certainly saved for backward; read as
        `forward` is read by `saved_parameter` (a chain of the class's layers, or a layer
        the method runs first); None when not certain."""
        if module.local is None or module.qualified is not None:
            return None
        return self._local(module.local.node, input_requires_grad, method)

    # -- nn.Sequential ------------------------------------------------------------------

    def _sequential(self, construction: ast.Call, tracked: bool) -> SavedParameter | None:
        """The first layer of a literal `nn.Sequential(...)` that saves its weight, given
        whether the tensor flowing into it requires grad."""
        added = self._constructed_subclass(construction)
        return self._in_order(added if added is not None else _listed(construction), tracked)

    def _in_order(self, listed: Sequence[ast.expr] | None, tracked: bool) -> SavedParameter | None:
        """The first of `listed`, layers run one after the other, that saves its weight,
        given whether the tensor flowing into the first requires grad."""
        if listed is None:
            return None
        for layer in listed:
            if not isinstance(layer, ast.Call):
                return None
            qualified = self._resolve(layer)
            if qualified is None or not qualified.startswith("torch.nn."):
                return None
            name = qualified.rsplit(".", 1)[-1]
            saved = _layer_saves(qualified, tracked)
            if saved is not None:
                return SavedParameter(layer, saved)
            kind = api.nn_module_kind(qualified)
            if kind is not None and kind.has_parameters:
                tracked = True  # its parameters require grad: so does what comes out
            elif name not in api.HISTORY_KEEPING_LAYERS:
                return None  # a layer that might cut or change history: stop here
        return None

    def _only_construction(self, key: str) -> ast.Call | None:
        """The value of the one statement in the file binding `key`, when there is exactly
        one, it is a plain assignment and it builds something right there
        (`nn.Sequential(...)`, `nn.Sequential(...).to(device)`)."""
        found = self._all_bindings().get(key, [])
        if len(found) != 1 or not isinstance(found[0], ast.Assign):
            return None
        return _constructor(found[0].value)

    def _added_layers(self, node: ast.ClassDef) -> tuple[ast.Call, ...] | None:
        """The layers of an `nn.Sequential` subclass of the file, registered by
        `add_module` in `__init__` (`sequential_subclasses.added_layers`); only a class of
        the module's body is resolved, in the module's scope."""
        if not any(stmt is node for stmt in self._tree.body):
            return None
        return added_layers(node, self._module_scope().resolve)

    def _constructed_subclass(self, construction: ast.Call) -> tuple[ast.Call, ...] | None:
        """The layers `construction` builds, when it calls by a plain name an `nn.Sequential`
        subclass of the file (see `_added_layers`) bound by nothing else in the module."""
        func = construction.func
        if not isinstance(func, ast.Name):
            return None
        counts = self._module_scope().counts or {}
        if counts.get(func.id) != 1:
            return None
        node = next(
            (s for s in self._tree.body if isinstance(s, ast.ClassDef) and s.name == func.id),
            None,
        )
        return self._added_layers(node) if node is not None else None

    def _module_scope(self) -> Scope:
        if self._scope is None:
            self._scope = build_scope(self._tree, None)
        return self._scope

    def _all_bindings(self) -> dict[str, list[ast.AST]]:
        if self._bindings is None:
            self._bindings = bindings_of(self._tree)
        return self._bindings

    # -- classes of the file ------------------------------------------------------------

    def _local(
        self, node: ast.ClassDef, input_requires_grad: bool, method: str = "forward"
    ) -> SavedParameter | None:
        """The layer a local module's `forward` (or other `method`) certainly runs on the
        way to its result and whose weight it certainly saves."""
        if method == "forward" and (added := self._added_layers(node)) is not None:
            return self._in_order(added, input_requires_grad)
        forward = _method(node, method)
        layers = _self_layers(node)
        if forward is None or layers is None:
            return None
        chain = _forward_chain(forward, self._resolve)
        if chain is None or any(attr not in layers for attr in chain[0]):
            # Not a chain of layers (a method of the class on the way may return anything).
            return self._leading_layer(node, forward, layers, input_requires_grad)
        steps, reaches_input = chain
        tracked = reaches_input and input_requires_grad
        for attr in steps:  # from the input towards the result
            layer = layers.get(attr)
            if layer is None:
                return None
            qualified = self._resolve(layer)
            added = self._constructed_subclass(layer) if qualified is None else None
            if qualified is None and added is None:
                return None
            if added is not None or qualified in api.SEQUENTIAL:
                listed = added if added is not None else _listed(layer)
                saved = self._in_order(listed, tracked)
                if saved is not None:
                    return dataclasses.replace(saved, attribute=attr)
                if listed is None or not _has_parameters_somewhere(listed, self._resolve):
                    return None
                tracked = True
                continue
            assert qualified is not None
            description = _layer_saves(qualified, tracked)
            if description is not None:
                return SavedParameter(layer, description, attr)
            kind = api.nn_module_kind(qualified)
            if kind is None:
                return None
            tracked = tracked or kind.has_parameters
        return None

    def _leading_layer(
        self,
        node: ast.ClassDef,
        forward: ast.FunctionDef,
        layers: dict[str, ast.Call],
        input_requires_grad: bool,
    ) -> SavedParameter | None:
        """A layer `forward` runs first thing (`h = self.encode(x)`, a statement of its body
        before any other kind of statement; also inside differentiable wrappers, `h =
        torch.tanh(self.trunk(x))`: `h` then carries the layer's output, see `_unwrapped`)
        that certainly saves its weight, when every value
        `forward` can return is computed from that layer's output through differentiable
        operations only: whatever a caller backpropagates from the call then runs through
        the layer (`saved_parameters.Flow`)."""
        params = forward.args.args
        argument = params[1].arg if len(params) > 1 else None
        for stmt in forward.body:
            if _is_docstring(stmt):
                continue
            if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1):
                return None
            target, value = stmt.targets[0], _unwrapped(stmt.value, self._resolve)
            attr = _self_call(value)
            layer = layers.get(attr) if attr is not None else None
            if layer is None or not isinstance(target, ast.Name):
                continue
            assert isinstance(value, ast.Call)
            tracked = input_requires_grad and _is_name(value.args[0], argument)
            saved = self._layer_of(layer, tracked)
            if saved is not None and Flow(node, forward, layers, self._resolve).returns_from(
                target.id
            ):
                return dataclasses.replace(saved, attribute=attr)
        return None

    def _layer_of(self, layer: ast.Call, tracked: bool) -> SavedParameter | None:
        """The weight a call of the `torch.nn` layer built by `layer` certainly saves."""
        qualified = self._resolve(layer)
        if qualified is None:
            added = self._constructed_subclass(layer)
            return self._in_order(added, tracked) if added is not None else None
        if qualified in api.SEQUENTIAL:
            return self._sequential(layer, tracked)
        description = _layer_saves(qualified, tracked)
        return SavedParameter(layer, description) if description is not None else None


class Flow:
    """Which values of a module's `forward` certainly carry the history of a name bound
    once in it: through arithmetic, indexing, differentiable torch functions and tensor
    methods, the class's `torch.nn` layers, and methods of the class returning one such
    expression of their parameters. Names bound more than once, or in branches and loops,
    carry nothing known."""

    def __init__(
        self,
        node: ast.ClassDef,
        forward: ast.FunctionDef,
        layers: dict[str, ast.Call],
        resolve: Resolver,
    ) -> None:
        self._node = node
        self._layers = layers
        self._resolve = resolve
        self._forward = forward
        counts: dict[str, int] = {}
        for binding in ast.walk(forward):
            if isinstance(binding, ast.arg):
                counts[binding.arg] = counts.get(binding.arg, 0) + 1
            for target in _targets(binding):
                if isinstance(target, ast.Name):
                    counts[target.id] = counts.get(target.id, 0) + 1
        self._once = {name for name, count in counts.items() if count == 1}

    def returns_from(self, name: str) -> bool:
        """Whether every `return` of `forward` gives values (each element of a returned
        tuple) computed from `name`."""
        if name not in self._once:
            return False
        carried = {name}
        for stmt in self._forward.body:
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
                self._bind(stmt.targets[0], stmt.value, carried)
        returns = [r for r in _own_nodes(self._forward) if isinstance(r, ast.Return)]
        if not returns:
            return False
        for ret in returns:
            if ret.value is None:
                return False
            values = ret.value.elts if isinstance(ret.value, ast.Tuple) else [ret.value]
            if not values or not all(self.carries(v, carried, 0) for v in values):
                return False
        return True

    def _bind(self, target: ast.expr, value: ast.expr, carried: set[str]) -> None:
        if isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple):
            if len(target.elts) == len(value.elts):
                for inner, part in zip(target.elts, value.elts, strict=True):
                    self._bind(inner, part, carried)
            return
        if isinstance(target, ast.Tuple):
            # `mu, logvar = h.chunk(2, dim=1)`: every piece is a view of `h`.
            pieces = _pieces_of(value)
            if pieces is not None and self.carries(pieces, carried, 0):
                for inner in target.elts:
                    if isinstance(inner, ast.Name) and inner.id in self._once:
                        carried.add(inner.id)
            return
        if (
            isinstance(target, ast.Name)
            and target.id in self._once
            and self.carries(value, carried, 0)
        ):
            carried.add(target.id)

    def carries(self, expr: ast.expr, carried: set[str], depth: int) -> bool:
        """Whether `expr` certainly has a differentiable path from a name of `carried`."""
        if isinstance(expr, ast.Name):
            return expr.id in carried
        if isinstance(expr, ast.BinOp):
            if not isinstance(expr.op, _DIFFERENTIABLE_OPS):
                return False
            return self.carries(expr.left, carried, depth) or self.carries(
                expr.right, carried, depth
            )
        if isinstance(expr, ast.UnaryOp):
            return isinstance(expr.op, ast.USub | ast.UAdd) and self.carries(
                expr.operand, carried, depth
            )
        if isinstance(expr, ast.Subscript):
            return self.carries(expr.value, carried, depth)
        if isinstance(expr, ast.Call):
            return self._call_carries(expr, carried, depth)
        return False

    def _call_carries(self, call: ast.Call, carried: set[str], depth: int) -> bool:
        func = call.func
        if isinstance(func, ast.Attribute) and func.attr in _FLOW_METHODS:
            return self.carries(func.value, carried, depth)
        qualified = self._resolve(call)
        if qualified in _FLOW_FUNCTIONS:
            return bool(call.args) and self.carries(call.args[0], carried, depth)
        if (
            api.distribution_class(qualified) is not None
            and len(call.args) + len(call.keywords) == 1
        ):
            # `Categorical(logits=h)`: a distribution of one parameter tensor; what is
            # computed from it with history (`log_prob`, `entropy`) runs through that tensor.
            if call.keywords and call.keywords[0].arg is None:
                return False  # `**params`
            given = call.args[0] if call.args else call.keywords[0].value
            return self.carries(given, carried, depth)
        attr = _self_call(call, any_arguments=True)
        if attr is None:
            return False
        layer = self._layers.get(attr)
        if layer is not None:
            qualified = self._resolve(layer)
            return (
                qualified is not None
                and qualified.startswith("torch.nn.")
                and len(call.args) == 1
                and not call.keywords
                and self.carries(call.args[0], carried, depth)
            )
        return self._method_carries(attr, call, carried, depth)

    def _method_carries(self, attr: str, call: ast.Call, carried: set[str], depth: int) -> bool:
        """A method of the class whose body is one `return <expr>` of its parameters,
        called with positional arguments: whether its result carries a name."""
        method = _method(self._node, attr)
        if method is None or depth > 2 or call.keywords:
            return False
        body = [s for s in method.body if not _is_docstring(s)]
        params = [a.arg for a in method.args.args[1:]]
        if (
            len(body) != 1
            or not isinstance(body[0], ast.Return)
            or body[0].value is None
            or method.decorator_list
            or method.args.vararg
            or method.args.kwarg
            or len(call.args) != len(params)
            or any(isinstance(a, ast.Starred) for a in call.args)
        ):
            return False
        inner = {
            p for p, a in zip(params, call.args, strict=True) if self.carries(a, carried, depth)
        }
        return Flow(self._node, method, self._layers, self._resolve).carries(
            body[0].value, inner, depth + 1
        )


_DIFFERENTIABLE_OPS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.MatMult, ast.Pow)
_FLOW_METHODS = _CHAIN_METHODS | frozenset("exp log pow abs clamp t transpose permute".split())
_FLOW_FUNCTIONS = _CHAIN_FUNCTIONS | frozenset(
    f"torch.{name}" for name in "exp log abs transpose permute".split()
)


def _self_call(expr: ast.expr, any_arguments: bool = False) -> str | None:
    """`<attr>` of `self.<attr>(x)` (one positional argument unless `any_arguments`)."""
    if not (
        isinstance(expr, ast.Call)
        and isinstance(expr.func, ast.Attribute)
        and isinstance(expr.func.value, ast.Name)
        and expr.func.value.id == "self"
    ):
        return None
    if not any_arguments and (len(expr.args) != 1 or expr.keywords):
        return None
    return expr.func.attr


def _unwrapped(value: ast.expr, resolve: Resolver) -> ast.expr:
    """The expression inside the differentiable wrappers around `value` (`self.trunk(x)`
    of `torch.tanh(self.trunk(x))`, `F.relu(...)`, `(...).flatten(1)`: `_CHAIN_FUNCTIONS`,
    `_CHAIN_METHODS`), whose output's history the whole value certainly carries; `value`
    itself when it is no such wrapper. A call of `self` is never peeled (it is the layer
    call looked for)."""
    while isinstance(value, ast.Call) and _self_call(value, any_arguments=True) is None:
        func = value.func
        if resolve(value) in _CHAIN_FUNCTIONS and value.args:
            inner = value.args[0]
        elif isinstance(func, ast.Attribute) and func.attr in _CHAIN_METHODS:
            inner = func.value
        else:
            break
        if isinstance(inner, ast.Starred):
            break
        value = inner
    return value


def _pieces_of(value: ast.expr) -> ast.expr | None:
    """The tensor `value` splits into views (`h.chunk(2, dim=1)`, `h.split(n)`,
    `h.unbind(1)`), when it is such a call."""
    if (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Attribute)
        and value.func.attr in ("chunk", "split", "unbind")
    ):
        return value.func.value
    return None


def _is_name(expr: ast.expr, name: str | None) -> bool:
    return name is not None and isinstance(expr, ast.Name) and expr.id == name


def _own_nodes(function: ast.FunctionDef) -> Iterator[ast.AST]:
    """The nodes of `function`'s body, not those of functions or classes defined in it."""
    todo: list[ast.AST] = list(function.body)
    while todo:
        current = todo.pop()
        yield current
        if isinstance(current, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
            continue
        todo.extend(ast.iter_child_nodes(current))


def bindings_of(tree: ast.AST) -> dict[str, list[ast.AST]]:
    """Every node binding each name or attribute chain (`scaler`, `self.main`) anywhere in
    `tree`: assignments, augmented and annotated assignments, loop and `with` targets,
    walrus targets, and function parameters (a parameter may be bound to anything)."""
    found: dict[str, list[ast.AST]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.arg):
            found.setdefault(node.arg, []).append(node)
        for target in _targets(node):
            key = dotted(target)
            if key is not None:
                found.setdefault(key, []).append(node)
    return found


def _layer_saves(qualified: str, input_requires_grad: bool) -> str | None:
    """ "nn.X" when calling the torch.nn layer `qualified` certainly saves its weight."""
    if not qualified.startswith("torch.nn."):
        return None
    name = qualified.rsplit(".", 1)[-1]
    if name in api.SAVES_WEIGHT_MODULES:
        return f"nn.{name}"
    if name in api.SAVES_WEIGHT_FOR_INPUT_MODULES and input_requires_grad:
        return f"nn.{name}"
    return None


def _listed(construction: ast.Call) -> Sequence[ast.expr] | None:
    """The layers a literal `nn.Sequential(...)` is given, in order (no keywords)."""
    return None if construction.keywords else construction.args


def _has_parameters_somewhere(listed: Sequence[ast.expr], resolve: Resolver) -> bool:
    """Whether layers run in order (`nn.Sequential(...)` of literal layers) hold one with
    parameters, whose output then requires grad (and so does the Sequential's, through
    history-keeping layers only)."""
    seen = False
    for layer in listed:
        qualified = resolve(layer) if isinstance(layer, ast.Call) else None
        if qualified is None:
            return False
        kind = api.nn_module_kind(qualified)
        if kind is not None and kind.has_parameters:
            seen = True
        elif qualified.rsplit(".", 1)[-1] not in api.HISTORY_KEEPING_LAYERS:
            return False
    return seen


def _constructor(expr: ast.expr) -> ast.Call | None:
    """`nn.Sequential(...)` out of `nn.Sequential(...).to(device)` and the like."""
    built = api.uncast(expr)
    return built if isinstance(built, ast.Call) else None


def _targets(node: ast.AST) -> Iterator[ast.expr]:
    """Every expression `node` binds, unpacking tuples."""
    targets: list[ast.expr] = []
    if isinstance(node, ast.Assign):
        targets = list(node.targets)
    elif isinstance(node, ast.AugAssign | ast.AnnAssign | ast.For | ast.AsyncFor):
        targets = [node.target]
    elif isinstance(node, ast.withitem) and node.optional_vars is not None:
        targets = [node.optional_vars]
    elif isinstance(node, ast.NamedExpr):
        targets = [node.target]
    while targets:
        target = targets.pop()
        if isinstance(target, ast.Tuple | ast.List):
            targets.extend(target.elts)
        elif isinstance(target, ast.Starred):
            targets.append(target.value)
        else:
            yield target


def _method(node: ast.ClassDef, name: str) -> ast.FunctionDef | None:
    for stmt in node.body:
        if isinstance(stmt, ast.FunctionDef) and stmt.name == name:
            return stmt
    return None


def _self_layers(node: ast.ClassDef) -> dict[str, ast.Call] | None:
    """`self.<attr> = <construction>` statements of `__init__`, for attributes bound
    exactly once in the whole class; None when the class has no `__init__`."""
    init = _method(node, "__init__")
    if init is None:
        return None
    counts: dict[str, int] = {}
    for child in ast.walk(node):
        for target in _targets(child):
            if (
                isinstance(target, ast.Attribute)
                and isinstance(target.value, ast.Name)
                and target.value.id == "self"
            ):
                counts[target.attr] = counts.get(target.attr, 0) + 1
    layers: dict[str, ast.Call] = {}
    for stmt in init.body:
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1):
            continue
        target = stmt.targets[0]
        if (
            isinstance(target, ast.Attribute)
            and isinstance(target.value, ast.Name)
            and target.value.id == "self"
            and counts.get(target.attr) == 1
            and isinstance(stmt.value, ast.Call)
        ):
            layers[target.attr] = stmt.value
    return layers


def _forward_chain(forward: ast.FunctionDef, resolve: Resolver) -> tuple[list[str], bool] | None:
    """The `self.<attr>` layers `forward` runs on the chain from its first input to what it
    returns, in the order they run, and whether the chain starts at that input. None when
    `forward` is not a straight run of assignments to names ending in a `return`, or the
    chain passes through anything but layers and differentiable wrappers."""
    params = forward.args.args
    if len(params) < 2 or forward.args.vararg or forward.args.kwarg:
        return None
    argument = params[1].arg
    body = [s for s in forward.body if not _is_docstring(s)]
    if not body or not isinstance(body[-1], ast.Return) or body[-1].value is None:
        return None
    for stmt in body[:-1]:
        if not (
            isinstance(stmt, ast.Assign)
            and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name)
        ):
            return None
    steps: list[str] = []
    expr: ast.expr | None = body[-1].value
    position = len(body) - 1
    while expr is not None:
        if isinstance(expr, ast.Name):
            binding = _last_binding(body, position, expr.id)
            if binding is None:
                return list(reversed(steps)), expr.id == argument
            position, expr = binding
            continue
        expr = _chain_step(expr, steps, resolve)
    return None


def _last_binding(body: list[ast.stmt], before: int, name: str) -> tuple[int, ast.expr] | None:
    """The index and value of the last `name = ...` among `body[:before]`."""
    for index in range(before - 1, -1, -1):
        stmt = body[index]
        assert isinstance(stmt, ast.Assign)
        target = stmt.targets[0]
        if isinstance(target, ast.Name) and target.id == name:
            return index, stmt.value
    return None


def _chain_step(expr: ast.expr, steps: list[str], resolve: Resolver) -> ast.expr | None:
    """One link down the chain: record a `self.<attr>(inner)` layer, or pass through a
    differentiable wrapper; the inner expression, or None when the chain breaks."""
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, _DIFFERENTIABLE_OPERATORS):
        # `self.a(x) + self.b(y)`: backward runs into both operands; the chain follows the
        # left one (an operand with history gets its gradient whatever the other holds).
        return expr.left
    if not isinstance(expr, ast.Call):
        return None
    func = expr.func
    inner: ast.expr | None = None
    if (
        isinstance(func, ast.Attribute)
        and isinstance(func.value, ast.Name)
        and func.value.id == "self"
        and len(expr.args) == 1
        and not expr.keywords
    ):
        steps.append(func.attr)
        inner = expr.args[0]
    elif resolve(expr) in _CHAIN_FUNCTIONS and expr.args:
        inner = expr.args[0]
    elif isinstance(func, ast.Attribute) and func.attr in _CHAIN_METHODS:
        inner = func.value
    if inner is None or isinstance(inner, ast.Starred):
        return None
    return inner


def _is_docstring(stmt: ast.stmt) -> bool:
    return (
        isinstance(stmt, ast.Expr)
        and isinstance(stmt.value, ast.Constant)
        and isinstance(stmt.value.value, str)
    )


def _built_sequential(call: ast.Call, module: ModuleRef, tracked: bool) -> SavedParameter | None:
    """The same answer as `ParameterSaves._sequential`, from the layers the analysis knows
    the container was built with (`ModuleRef.children`: `nn.Sequential(OrderedDict(...))`,
    or one built by a helper) when its construction is not one statement of the file."""
    if module.children is None:
        return None
    for child in module.children:
        qualified = child.module.qualified if child.module is not None else None
        if qualified is None or not qualified.startswith("torch.nn."):
            return None
        saved = _layer_saves(qualified, tracked)
        if saved is not None:
            return SavedParameter(call, saved)
        kind = api.nn_module_kind(qualified)
        if kind is not None and kind.has_parameters:
            tracked = True
        elif qualified.rsplit(".", 1)[-1] not in api.HISTORY_KEEPING_LAYERS:
            return None
    return None
