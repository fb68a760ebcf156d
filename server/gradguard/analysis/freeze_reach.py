"""Which modules the freezes of a file can reach.

A freeze (`x.requires_grad = False`, `x.requires_grad_(False)`, a loop turning off the
`requires_grad` of each of `x.parameters()`, or `detach_()`ing them) turns off parameters of
the module it names and of the modules inside it. When every freeze of the file names its
module through an attribute (`model.embeddings`, `self.conv1`; a parameter of it, such as
`self.conv1.weight`, names its module) whose every store in the file builds a fresh torch.nn
layer (`self.embeddings = nn.Embedding(...)`, or an `nn.Sequential` / `nn.ModuleList` of
such layers, built right there), then those fresh layers are all the freezes reach. A module
held at another attribute whose every store also builds a fresh torch.nn layer is a
different object, with none of them inside: its parameters certainly still require grad.

Anything else leaves the question open (`frozen_attributes` is None): a freeze of a whole
object named by a plain name (`model.requires_grad_(False)`, a loop over
`model.parameters()`), through a subscript (`model.layers[0]`), a conditional freeze loop,
a frozen attribute also bound to something handed in (`self.base = base`) or to a module
class of the file (which may hold anything), and any `setattr` (it may bind any attribute).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator

from gradguard.analysis import parameters as params
from gradguard.analysis import torch_api as api
from gradguard.analysis.enclosed_layers import EnclosedLayers
from gradguard.analysis.names import arguments_by_parameter, parameter_names
from gradguard.analysis.walk import module_nodes_of, module_parents, own_nodes

Resolve = Callable[[ast.expr], "str | None"]

# torch.nn containers whose children are the modules they are given.
_CONTAINERS = frozenset(f"torch.nn.{name}" for name in api.MODULE_CONTAINERS)
# torch.nn classes that hold a module they are given (or a copy of it): not followed.
_WRAPPERS = frozenset(
    {
        "torch.nn.TransformerEncoder",
        "torch.nn.TransformerDecoder",
        "torch.nn.DataParallel",
        "torch.nn.parallel.DistributedDataParallel",
    }
)


class FreezeReach:
    """The freezes of one tree and the attributes they cannot reach, answered on demand
    (each answer kept: `answers` lets an edited tree be compared with the old one)."""

    def __init__(self, tree: ast.Module, resolve: Resolve) -> None:
        self.tree = tree
        self.resolve = resolve
        self.answers: dict[str, bool] = {}
        self._stores: dict[str, list[ast.expr | None]] | None = None
        self._frozen: frozenset[str] | None = None
        self._frozen_known = False
        self._enclosed: EnclosedLayers | None = None
        self._builders: frozenset[str] | None = None

    def outside(self, attribute: str) -> bool:
        """True when no freeze of the file reaches the module held at `.attribute`: the
        freezes reach only fresh torch.nn layers at other attributes (`frozen`), and every
        store of `attribute` builds a fresh torch.nn layer of its own; or that layer is kept
        to a plain class, out of reach of any freeze (see `gradguard.analysis.enclosed_layers`)."""
        if attribute not in self.answers:
            frozen = self.frozen()
            values = self.stores().get(attribute)
            self.answers[attribute] = (
                frozen is not None
                and attribute not in frozen
                and bool(values)
                and self._all_fresh(attribute)
            ) or self._enclosed_layers().enclosed(attribute)
        return self.answers[attribute]

    def _enclosed_layers(self) -> EnclosedLayers:
        if self._enclosed is None:
            self._enclosed = EnclosedLayers(self.tree, self.resolve, self._fresh)
        return self._enclosed

    def frozen(self) -> frozenset[str] | None:
        """The attribute names through which every freeze of the file names its module,
        when each of them holds only fresh torch.nn layers; None when some freeze may reach
        anything else."""
        if not self._frozen_known:
            self._frozen_known = True
            self._frozen = self._frozen_attributes()
        return self._frozen

    def stores(self) -> dict[str, list[ast.expr | None]]:
        """Each attribute name the file stores into, with the value of each store."""
        if self._stores is None:
            self._stores = _attribute_stores(self.tree, module_parents(self.tree))
        return self._stores

    def _all_fresh(self, attribute: str) -> bool:
        return all(
            value is not None and self._fresh(value) for value in self.stores().get(attribute, ())
        )

    def _fresh(self, expr: ast.expr) -> bool:
        """`fresh_layer`, or a call of a function of the module's body (defined once, its
        name never bound otherwise) whose every `return` is one (`make_discriminator(ndf)`
        returning `nn.Sequential(nn.Conv2d(...), ...)`): a new layer on every call."""
        if fresh_layer(expr, self.resolve):
            return True
        built = api.uncast(expr)
        if not (isinstance(built, ast.Call) and isinstance(built.func, ast.Name)):
            return False
        if self._builders is None:
            self._builders = _layer_builders(self.tree, self.resolve)
        return built.func.id in self._builders

    def _frozen_attributes(self) -> frozenset[str] | None:
        if _sets_attributes_dynamically(self.tree):
            return None
        stores = self.stores()
        parents = module_parents(self.tree)
        names: set[str] = set()
        for frozen in _frozen_modules(self.tree, parents):
            name = _module_attribute(frozen, stores)
            found = {name} if name is not None else self._handed(frozen, parents)
            if found is None or not all(self._all_fresh(n) for n in found):
                return None
            names |= found
        return frozenset(names)

    def _handed(self, frozen: ast.expr, parents: dict[int, ast.AST]) -> set[str] | None:
        """A freeze of a helper's parameter (`def set_requires_grad(net, flag): for p in
        net.parameters(): p.requires_grad = flag`): the attributes every call of the helper
        passes for it (see `handed_modules`)."""
        if not isinstance(frozen, ast.Name):
            return None
        scope = parents.get(id(frozen))
        while scope is not None and not isinstance(scope, ast.FunctionDef | ast.Lambda):
            scope = parents.get(id(scope))
        if not isinstance(scope, ast.FunctionDef):
            return None
        passed = handed_modules(self.tree, scope, frozen.id, parents)
        if passed is None:
            return None
        found = {_module_attribute(argument, self.stores()) for argument in passed}
        return None if None in found else {name for name in found if name is not None}


def frozen_attributes(tree: ast.Module, resolve: Resolve) -> frozenset[str] | None:
    """See `FreezeReach.frozen`."""
    return FreezeReach(tree, resolve).frozen()


def outside_freezes(tree: ast.Module, attribute: str, resolve: Resolve) -> bool:
    """See `FreezeReach.outside`."""
    return FreezeReach(tree, resolve).outside(attribute)


def fresh_layer(expr: ast.expr, resolve: Resolve) -> bool:
    """`expr` builds a torch.nn layer right here, with no module inside it that exists
    elsewhere: a layer that takes no modules (`nn.Linear(d, 4 * d)`), or a container
    whose every child is such a layer built in place (`nn.Sequential(nn.Linear(...),
    nn.GELU())`, `nn.ModuleList([...])`, `nn.ModuleList(nn.Linear(d, d) for _ in ...)`)."""
    built = api.uncast(expr)
    if not isinstance(built, ast.Call):
        return False
    qualified = resolve(built.func)
    if qualified is None or not qualified.startswith("torch.nn.") or qualified in _WRAPPERS:
        return False
    if qualified in _CONTAINERS:
        if built.keywords or (len(built.args) > 1 and qualified != "torch.nn.Sequential"):
            return False
        return all(_fresh_children(arg, resolve) for arg in built.args)
    # (An InstanceNorm's parameters depend on its `affine` flag; it takes no module either.)
    last = qualified.rsplit(".", 1)[-1]
    return api.nn_module_kind(qualified) is not None or last in api.INSTANCE_NORMS


def _layer_builders(tree: ast.Module, resolve: Resolve) -> frozenset[str]:
    """Functions of the module's body, each the only binding of its name in the file, whose
    every `return` builds a fresh layer (`fresh_layer`)."""
    bound: dict[str, int] = {}
    for node in module_nodes_of(tree, ast.Name):
        if not isinstance(node.ctx, ast.Load):
            bound[node.id] = bound.get(node.id, 0) + 1
    definitions: dict[str, int] = {}
    for defined in _definitions(tree):
        definitions[defined.name] = definitions.get(defined.name, 0) + 1
    found: set[str] = set()
    for stmt in tree.body:
        if not isinstance(stmt, ast.FunctionDef) or stmt.decorator_list:
            continue
        if definitions.get(stmt.name) != 1 or bound.get(stmt.name):
            continue
        returned = [node.value for node in own_nodes(stmt.body) if isinstance(node, ast.Return)]
        if returned and all(v is not None and fresh_layer(v, resolve) for v in returned):
            found.add(stmt.name)
    return frozenset(found)


def _fresh_children(expr: ast.expr, resolve: Resolve) -> bool:
    """An argument of a container: a fresh layer, a list or tuple of them, or a
    comprehension building one on each pass."""
    if isinstance(expr, ast.List | ast.Tuple):
        return all(fresh_layer(e, resolve) for e in expr.elts)
    if isinstance(expr, ast.GeneratorExp | ast.ListComp):
        return fresh_layer(expr.elt, resolve)
    return fresh_layer(expr, resolve)


def _sets_attributes_dynamically(tree: ast.Module) -> bool:
    """`setattr(...)` or `delattr(...)` anywhere: any attribute may be bound."""
    return any(
        isinstance(call.func, ast.Name) and call.func.id in ("setattr", "delattr")
        for call in module_nodes_of(tree, ast.Call)
    )


def _attribute_stores(
    tree: ast.Module, parents: dict[int, ast.AST]
) -> dict[str, list[ast.expr | None]]:
    """Each attribute name the file stores into, with the value of each store (None when
    the value is not one expression bound to that attribute alone: an augmented
    assignment, a `del`, a loop target, an unpacked value)."""
    found: dict[str, list[ast.expr | None]] = {}
    for node in module_nodes_of(tree, ast.Attribute):
        if isinstance(node.ctx, ast.Load):
            continue
        found.setdefault(node.attr, []).append(_stored_value(node, parents))
    return found


def _stored_value(target: ast.Attribute, parents: dict[int, ast.AST]) -> ast.expr | None:
    """The expression `target` is bound to: `self.a = value`, `self.a: T = value`, or the
    matching item of `self.a, self.b = x, y`."""
    parent = parents.get(id(target))
    if isinstance(parent, ast.Assign | ast.AnnAssign) and parent.value is not None:
        return parent.value
    if isinstance(parent, ast.Tuple) and isinstance(parent.ctx, ast.Store):
        statement = parents.get(id(parent))
        if isinstance(statement, ast.Assign) and isinstance(statement.value, ast.Tuple):
            values = statement.value.elts
            if len(values) == len(parent.elts) and not any(
                isinstance(e, ast.Starred) for e in (*values, *parent.elts)
            ):
                return values[[id(e) for e in parent.elts].index(id(target))]
    return None


def _frozen_modules(tree: ast.Module, parents: dict[int, ast.AST]) -> Iterator[ast.expr]:
    """The expression naming what each freeze of the file turns off: `x` of `x.requires_grad
    = False` / `x.requires_grad_(flag)`, or the module of a loop over its parameters that
    freezes or detaches the loop's variable (`m` of `for p in m.parameters()`); a plain
    name bound otherwise stands for itself (it may be anything)."""
    for node in module_nodes_of(tree, ast.Assign, ast.Call, ast.For, ast.AsyncFor):
        if isinstance(node, ast.For | ast.AsyncFor):
            if params.detaches_parameters(node):
                yield _parameters_owner(node) or ast.Name("?", ast.Load())
            continue
        frozen = _frozen_object(node)
        if frozen is None:
            continue
        if isinstance(frozen, ast.Name):
            loop = _loop_binding(frozen.id, node, parents)
            owner = _parameters_owner(loop) if loop is not None else None
            yield owner if owner is not None else frozen
        else:
            yield frozen


def _frozen_object(node: ast.AST) -> ast.expr | None:
    """`x` of `x.requires_grad = <not True>` or `x.requires_grad_(<not True>)`."""
    if isinstance(node, ast.Assign) and not params.is_true(node.value):
        for target in node.targets:
            if isinstance(target, ast.Attribute) and target.attr == "requires_grad":
                return target.value
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        flags = [*node.args[:1], *(k.value for k in node.keywords if k.arg == "requires_grad")]
        if node.func.attr == "requires_grad_" and any(not params.is_true(f) for f in flags):
            return node.func.value
    return None


def _loop_binding(
    name: str, node: ast.AST, parents: dict[int, ast.AST]
) -> ast.For | ast.AsyncFor | None:
    """The innermost loop around `node` whose target binds `name` (also as the last item of
    `for n, p in ...`)."""
    scope = parents.get(id(node))
    while scope is not None and not isinstance(scope, ast.FunctionDef | ast.Lambda):
        if isinstance(scope, ast.For | ast.AsyncFor):
            target = scope.target
            if isinstance(target, ast.Tuple) and target.elts:
                target = target.elts[-1]
            if isinstance(target, ast.Name) and target.id == name:
                return scope
        scope = parents.get(id(scope))
    return None


def _parameters_owner(loop: ast.For | ast.AsyncFor) -> ast.expr | None:
    """`m` of `for p in m.parameters()` / `m.named_parameters()` (no arguments)."""
    iterable = loop.iter
    if (
        isinstance(iterable, ast.Call)
        and isinstance(iterable.func, ast.Attribute)
        and iterable.func.attr in ("parameters", "named_parameters")
        and not iterable.args
        and not iterable.keywords
    ):
        return iterable.func.value
    return None


def handed_modules(
    tree: ast.Module, helper: ast.FunctionDef, parameter: str, parents: dict[int, ast.AST]
) -> list[ast.expr] | None:
    """What every call of `helper` passes for its `parameter`, when the file shows every
    call: `helper` is a function of the module's body or a `@staticmethod`, the only
    definition of its name in the file, never rebinds the parameter, and every mention of
    its name (`set_requires_grad(...)`, `self.set_requires_grad(...)`) is the callee of a
    call that passes the parameter plainly. None otherwise."""
    static = [d for d in helper.decorator_list if isinstance(d, ast.Name)]
    in_module = any(stmt is helper for stmt in tree.body)
    is_static = len(helper.decorator_list) == 1 and [d.id for d in static] == ["staticmethod"]
    if not (in_module and not helper.decorator_list) and not is_static:
        return None
    if parameter not in parameter_names(helper) or any(
        isinstance(node, ast.Name) and node.id == parameter and not isinstance(node.ctx, ast.Load)
        for node in ast.walk(helper)
    ):
        return None
    name = helper.name
    definitions = [defined for defined in _definitions(tree) if defined.name == name]
    if definitions != [helper]:
        return None
    passed: list[ast.expr] = []
    mentions = [
        node
        for node in module_nodes_of(tree, ast.Name, ast.Attribute)
        if (node.id if isinstance(node, ast.Name) else node.attr) == name
    ]
    for mention in mentions:
        if isinstance(mention, ast.Name) != in_module:
            return None  # a function of the module named by attribute, or the reverse
        call = parents.get(id(mention))
        if not isinstance(call, ast.Call) or call.func is not mention:
            return None
        if any(isinstance(a, ast.Starred) for a in call.args) or any(
            k.arg is None for k in call.keywords
        ):
            return None
        arguments = arguments_by_parameter(helper, call, skip_self=False)
        argument = arguments.get(parameter) if arguments is not None else None
        if argument is None:
            return None
        passed.append(argument)
    return passed or None


def _definitions(tree: ast.Module) -> list[ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef]:
    """Every `def` and `class` statement of the file."""
    return [
        node
        for node in module_nodes_of(tree, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
    ]


def _module_attribute(frozen: ast.expr, stores: dict[str, list[ast.expr | None]]) -> str | None:
    """The attribute through which `frozen` names a module of the file: its own name when
    the file stores into it, else (a parameter or buffer such as `.weight`, an attribute
    set by a library) that of the object it belongs to; None for anything but a chain of
    attributes ending at a stored one."""
    while isinstance(frozen, ast.Attribute):
        if frozen.attr in stores:
            return frozen.attr
        frozen = frozen.value
    return None
