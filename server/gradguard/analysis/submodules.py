"""Which modules a module holds, and which of them an `isinstance` test keeps.

`for m in model.modules():` binds `model` itself and every module it holds, in turn;
`children()` binds only the modules it holds directly (`named_*` pair each with its name).
When the analysis knows the structure of `model` it binds the loop's target to the join of
those modules, with each one kept apart (`Value.alternatives`), so that an `isinstance(m,
nn.BatchNorm2d)` test narrows `m` to the BatchNorm layers on its true branch (see
`narrowed`). The structure is known for:

* a torch.nn layer holding no module (`LEAF_LAYERS`, checked by building each with torch
  2.13.0): nothing;
* an `nn.Sequential` or `nn.ModuleList` built from the layers it is given
  (`ModuleRef.children`, set where it is built);
* an instance of a module class of the file whose bases are `nn.Module` (or such classes of
  the file), that never registers modules by name (`add_module`, `register_module`,
  `setattr`): the modules its methods store as `self.<attr>`. A stored value whose
  `__init__` value is not known is an unknown possibility (`UNKNOWN`), unless every store of
  that attribute is a literal (a number, a string, a flag, a plain list, None).

Anything else leaves the possibilities unknown: an unknown possibility stays one, and the
narrowed value is then as unknown as it (precision first). `isinstance` of a torch.nn class
is decided only for torch.nn classes of `NN_SUBCLASSES`'s table and classes of the file;
a private base (`_BatchNorm`) or an imported class decides nothing.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import reduce

from gradguard.analysis import torch_api as api
from gradguard.analysis.names import dotted
from gradguard.analysis.node_cache import cached_by_node
from gradguard.analysis.values import UNKNOWN, ClassInfo, Kind, Value, evolve, join
from gradguard.analysis.walk import assignment_targets, module_nodes_of, walk

# torch.nn layers of `torch_api.NN_MODULES` that hold no module (checked by building each
# one with torch 2.13.0: MultiheadAttention holds its `out_proj`, the Transformer layers
# their attention and feed-forward layers, TripletMarginWithDistanceLoss a PairwiseDistance).
LEAF_LAYERS = (
    frozenset(api.NN_MODULES)
    - {
        "MultiheadAttention",
        "Transformer",
        "TransformerEncoder",
        "TransformerDecoder",
        "TransformerEncoderLayer",
        "TransformerDecoderLayer",
        "TripletMarginWithDistanceLoss",
        "ModuleList",
        "ModuleDict",
    }
) | frozenset(api.INSTANCE_NORMS)
# The torch.nn classes of `LEAF_LAYERS` and the containers that subclass another of them
# (checked with `issubclass` in torch 2.13.0); no other pair does.
NN_SUBCLASSES = {
    "LazyConv1d": "Conv1d",
    "LazyConv2d": "Conv2d",
    "LazyConv3d": "Conv3d",
    "LazyConvTranspose1d": "ConvTranspose1d",
    "LazyConvTranspose2d": "ConvTranspose2d",
    "LazyConvTranspose3d": "ConvTranspose3d",
    "LazyLinear": "Linear",
    "NLLLoss2d": "NLLLoss",
    "ReLU6": "Hardtanh",
    "UpsamplingBilinear2d": "Upsample",
    "UpsamplingNearest2d": "Upsample",
    "ZeroPad1d": "ConstantPad1d",
    "ZeroPad2d": "ConstantPad2d",
    "ZeroPad3d": "ConstantPad3d",
}
_KNOWN_CLASSES = LEAF_LAYERS | api.MODULE_CONTAINERS
# Methods listing modules, and whether they list the module itself and its descendants
# (True) or its children only.
LISTINGS = {"modules": True, "named_modules": True, "children": False, "named_children": False}
# How deep a module's structure is followed.
_DEPTH = 6
# What registers a module under a computed name.
_REGISTERING = frozenset({"add_module", "register_module", "setattr", "__setattr__", "_modules"})


@dataclass(frozen=True)
class Classes:
    """How the interpreter resolves names of classes: a class expression of a class of the
    file (`class_named`), its qualified name (`resolve`, in the scope of a class node when
    given one)."""

    resolve: Callable[[ast.ClassDef | None, ast.expr], str | None]
    class_named: Callable[[str], ast.ClassDef | None]
    class_info: Callable[[ast.ClassDef], ClassInfo]
    # Attribute names and names of containers some code of the file may change.
    changed_containers: frozenset[str]


def listed(module: Value, method: str, classes: Classes) -> Value | None:
    """What a loop over `module.<method>()` (a `LISTINGS` method) binds: the join of the
    possible modules, each kept apart (`Value.alternatives`); a pair of a name and that for
    the `named_*` methods. None when `module`'s structure is not known."""
    found = _children(module, classes, _DEPTH)
    if found is None:
        return None
    possible = list(found)
    if LISTINGS[method]:
        possible = [module.with_origin(None), *_descendants(found, classes, _DEPTH)]
    if not possible:
        return None
    each = tuple(dict.fromkeys(p.with_origin(None) for p in possible))
    item = evolve(reduce(join, each), alternatives=each if len(each) > 1 else None)
    if method.startswith("named_"):
        name = Value(kind=Kind.OTHER)
        return Value(kind=Kind.SEQUENCE, elements=(name, item))
    return item


def _descendants(children: tuple[Value, ...], classes: Classes, depth: int) -> Iterator[Value]:
    for child in children:
        yield child
        if child.kind is not Kind.MODULE:
            continue
        inner = _children(child, classes, depth - 1)
        if inner is None:
            yield UNKNOWN
        else:
            yield from _descendants(inner, classes, depth - 1)


def _children(module: Value, classes: Classes, depth: int) -> tuple[Value, ...] | None:
    """The modules `module` holds directly; None when not known."""
    ref = module.module
    if depth <= 0 or module.kind is not Kind.MODULE or ref is None:
        return None
    if ref.local is not None:
        return _local_children(ref.local, classes) if ref.local.is_module else None
    if ref.children is not None:
        return ref.children
    if ref.qualified is not None and ref.qualified.startswith("torch.nn."):
        name = ref.qualified.rsplit(".", 1)[-1]
        if name in LEAF_LAYERS and ref.qualified in (f"torch.nn.{name}",):
            return ()
    return None


def _local_children(info: ClassInfo, classes: Classes) -> tuple[Value, ...] | None:
    """The modules an instance of a module class of the file stores on itself."""
    named = local_named_children(info, classes)
    return None if named is None else tuple(value for _, value in named)


def local_named_children(
    info: ClassInfo, classes: Classes, depth: int = _DEPTH, *, once: bool = False
) -> tuple[tuple[str, Value], ...] | None:
    """The modules an instance of a module class of the file stores on itself, each with the
    attribute it is stored at (the name `named_children()` gives it): those of its bases of
    the file first. An attribute whose value is not known stands with `UNKNOWN` (a module or
    not), and so does, with `once`, one its methods store more than once (which of the
    modules it then holds is not known); None when the class may register modules by name
    or has a base not followed."""
    node = info.node
    inherited: list[tuple[str, Value]] = []
    for base in node.bases:
        if classes.resolve(node, base) in api.MODULE_BASES:
            continue
        local = classes.class_named(base.id) if isinstance(base, ast.Name) else None
        if local is None or local is node or depth <= 0:
            return None
        found = local_named_children(classes.class_info(local), classes, depth - 1, once=once)
        if found is None:
            return None
        inherited.extend(found)
    if node.keywords or _registers_by_name(node):
        return None
    own: list[tuple[str, Value]] = []
    for attr, stored in _self_stores(node).items():
        known = info.attributes.get(attr)
        if known is not None and known.kind is Kind.MODULE and attr in classes.changed_containers:
            own.append((attr, UNKNOWN))  # `self.layers.append(...)`: it may hold more
        elif known is not None and known.kind is Kind.MODULE and once and len(stored) != 1:
            own.append((attr, UNKNOWN))
        elif known is not None and known.kind is Kind.MODULE:
            own.append((attr, known))
        elif known is not None and known.kind in _NOT_MODULES:
            continue
        elif not all(_literal(value) for value in stored):
            own.append((attr, UNKNOWN))
    return (*inherited, *own)


# Kinds of values that are not modules.
_NOT_MODULES = frozenset({Kind.SCALAR, Kind.TENSOR, Kind.NONE, Kind.SEQUENCE, Kind.MAPPING})


def _literal(value: ast.expr | None) -> bool:
    """A stored value that is certainly no module: a literal, a plain list, tuple or dict
    display (a Python container registers nothing), arithmetic or a comparison."""
    if value is None:
        return False
    return isinstance(
        value,
        ast.Constant
        | ast.List
        | ast.Tuple
        | ast.Dict
        | ast.Set
        | ast.ListComp
        | ast.DictComp
        | ast.JoinedStr
        | ast.Compare
        | ast.BinOp
        | ast.UnaryOp,
    )


@cached_by_node
def _self_stores(node: ast.ClassDef) -> dict[str, tuple[ast.expr | None, ...]]:
    """Each `self.<attr>` the methods of a class assign, with the values stored (None where
    the value is not one expression: a tuple unpacked, a loop target, an `+=`)."""
    stores: dict[str, list[ast.expr | None]] = {}
    for method in node.body:
        if not isinstance(method, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        values = _stored_values(method)
        for target in assignment_targets(method.body):
            if isinstance(target, ast.Attribute) and dotted(target.value) == "self":
                stores.setdefault(target.attr, []).append(values.get(id(target)))
    return {attr: tuple(values) for attr, values in stores.items()}


def _stored_values(method: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[int, ast.expr]:
    """The value each plain assignment target of a method is given."""
    found: dict[int, ast.expr] = {}
    for stmt in ast.walk(method):
        if isinstance(stmt, ast.Assign):
            for target in stmt.targets:
                found[id(target)] = stmt.value
        elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
            found[id(stmt.target)] = stmt.value
    return found


@cached_by_node
def _registers_by_name(node: ast.AST) -> bool:
    """Code in `node` may register a module under a computed name. (The answer about a
    class is the `or` of its parts' answers: an edit compares the edited method's part.)"""
    if isinstance(node, ast.Module):
        inner: Iterable[ast.AST] = module_nodes_of(node, ast.Attribute, ast.Name)
    else:
        inner = walk(node)
    return any(
        (isinstance(n, ast.Attribute) and n.attr in _REGISTERING)
        or (isinstance(n, ast.Name) and n.id in _REGISTERING)
        for n in inner
    )


def structure_may_change(tree: ast.Module) -> bool:
    """Code of the file may give a module another submodule outside a class's own methods:
    registration by name anywhere, or an attribute other than `self`'s assigned something
    that may be a module (`model.fc = nn.Linear(...)`), or deleted."""
    return _changes_structure(tree)


# Attributes a module's code sets that are never submodules (tensors, flags, settings).
_PLAIN_ATTRIBUTES = frozenset(
    "data grad requires_grad weight bias training momentum eps track_running_stats "
    "running_mean running_var num_batches_tracked inplace p".split()
)


@cached_by_node
def _changes_structure(tree: ast.Module) -> bool:
    stored = foreign_children(tree)
    return stored is None or bool(stored)


@cached_by_node
def foreign_children(tree: ast.Module) -> frozenset[str] | None:
    """The attribute names code of the file may give a module a submodule (or parameter)
    under from outside a class's own methods: `model.fc = nn.Linear(...)` may replace the
    child `fc` of any module, or add one named so (`structure_may_change`). None when a
    module may get one under any name: registration by a computed name, or a deletion."""
    if _registers_by_name(tree):
        return None
    found: set[str] = set()
    for node in module_nodes_of(tree, ast.Delete, ast.Assign, ast.AnnAssign):
        if isinstance(node, ast.Delete) and any(isinstance(t, ast.Attribute) for t in node.targets):
            return None
        if not isinstance(node, ast.Assign | ast.AnnAssign):
            continue
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for target in targets:
            for part, value in _stored_parts(target, node.value):
                if (
                    isinstance(part, ast.Attribute)
                    and dotted(part.value) != "self"
                    and part.attr not in _PLAIN_ATTRIBUTES
                    and not (_literal(value) or isinstance(value, ast.BoolOp))
                ):
                    found.add(part.attr)
    return frozenset(found)


def _stored_parts(
    target: ast.expr, value: ast.expr | None
) -> Iterator[tuple[ast.expr, ast.expr | None]]:
    """Each plain target of an assignment with the value it gets: `a.fc, n = make(), 3`
    gives `make()` to `a.fc`; a part of an unpacking whose value is not a display of as
    many items gets None (not known)."""
    if not isinstance(target, ast.Tuple | ast.List):
        yield target, value
        return
    items: list[ast.expr | None] = [None] * len(target.elts)
    if (
        isinstance(value, ast.Tuple | ast.List)
        and len(value.elts) == len(target.elts)
        and not any(isinstance(e, ast.Starred) for e in (*value.elts, *target.elts))
    ):
        items = list(value.elts)
    for element, item in zip(target.elts, items, strict=True):
        yield from _stored_parts(element, item)


def _qualified_test(classes: Classes, expr: ast.expr) -> list[str | ast.ClassDef] | None:
    """The classes `isinstance`'s second argument names: torch.nn classes (by their name
    after `torch.nn.`) and classes of the file; None when one is neither."""
    exprs = expr.elts if isinstance(expr, ast.Tuple) else [expr]
    found: list[str | ast.ClassDef] = []
    for part in exprs:
        local = classes.class_named(part.id) if isinstance(part, ast.Name) else None
        qualified = classes.resolve(None, part)
        if local is not None and qualified is None:
            found.append(local)
        elif qualified in api.MODULE_BASES:
            found.append("Module")
        elif qualified is not None and qualified.startswith("torch.nn."):
            name = qualified.removeprefix("torch.nn.")
            if name not in _KNOWN_CLASSES:
                return None
            found.append(name)
        else:
            return None
    return found


def is_instance(value: Value, tested: list[str | ast.ClassDef], classes: Classes) -> bool | None:
    """Whether the module `value` is certainly an instance of one of `tested` (True),
    certainly of none (False), or either (None)."""
    outcomes = [_instance_of_one(value, one, classes) for one in tested]
    if True in outcomes:
        return True
    return False if outcomes and all(o is False for o in outcomes) else None


def _instance_of_one(value: Value, tested: str | ast.ClassDef, classes: Classes) -> bool | None:
    ref = value.module
    if value.kind is not Kind.MODULE or ref is None:
        return None
    if tested == "Module":
        return True
    if ref.local is not None:
        if not ref.local.is_module:
            return None
        return _local_subclass(ref.local.node, tested, classes, _DEPTH)
    if ref.qualified is None or not ref.qualified.startswith("torch.nn."):
        return None
    name = ref.qualified.removeprefix("torch.nn.")
    if isinstance(tested, ast.ClassDef):
        return False if name in _KNOWN_CLASSES else None  # torch's classes are not the file's
    if name not in _KNOWN_CLASSES:
        return None
    return name == tested or NN_SUBCLASSES.get(name) == tested


def _local_subclass(
    node: ast.ClassDef, tested: str | ast.ClassDef, classes: Classes, depth: int
) -> bool | None:
    """Whether the class of the file `node` is `tested` or a subclass of it, following its
    bases through classes of the file down to `nn.Module`."""
    if node is tested:
        return True
    if depth <= 0:
        return None
    outcomes: list[bool | None] = []
    for base in node.bases:
        if classes.resolve(node, base) in api.MODULE_BASES:
            outcomes.append(False)
            continue
        local = classes.class_named(base.id) if isinstance(base, ast.Name) else None
        if local is None or local is node:
            return None
        outcomes.append(_local_subclass(local, tested, classes, depth - 1))
    if True in outcomes:
        return True
    return False if all(o is False for o in outcomes) else None


def narrowed(value: Value, test: ast.expr, when: bool, classes: Classes) -> Value | None:
    """`value` on the branch where `isinstance(<it>, test)` came out `when`: the join of its
    alternatives that may be (or may not be) instances of the classes `test` names; None
    when nothing is known apart. A branch no alternative can take binds an unknown value
    (the analysis does not claim the branch never runs)."""
    alternatives = value.alternatives
    if alternatives is None:
        return None
    tested = _qualified_test(classes, test)
    if tested is None:
        return None
    kept = tuple(a for a in alternatives if is_instance(a, tested, classes) is not (not when))
    if kept == alternatives:
        return None
    if not kept:
        return UNKNOWN.with_origin(value.origin)
    joined = reduce(join, kept)
    return evolve(joined, origin=value.origin, alternatives=kept if len(kept) > 1 else None)
