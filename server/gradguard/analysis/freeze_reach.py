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
from gradguard.analysis.walk import module_nodes_of, module_parents

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
            self._enclosed = EnclosedLayers(
                self.tree, self.resolve, lambda expr: fresh_layer(expr, self.resolve)
            )
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
            value is not None and fresh_layer(value, self.resolve)
            for value in self.stores().get(attribute, ())
        )

    def _frozen_attributes(self) -> frozenset[str] | None:
        if _sets_attributes_dynamically(self.tree):
            return None
        stores = self.stores()
        names: set[str] = set()
        for frozen in _frozen_modules(self.tree, module_parents(self.tree)):
            name = _module_attribute(frozen, stores)
            if name is None or not self._all_fresh(name):
                return None
            names.add(name)
        return frozenset(names)


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
    return api.nn_module_kind(qualified) is not None


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
