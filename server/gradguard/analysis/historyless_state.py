"""Which attributes of `self` every store of the file fills with a value that has no
autograd history, and which nothing may give one afterwards.

`self.prototypes = torch.zeros(n, d)` in `__init__`, then `self.prototypes = one_hot.t() @
feats / counts` in another method, `feats` computed under no_grad: whichever store ran
last, `self.prototypes` holds a tensor without history in every method that reads it (or
the read raises AttributeError). Two things could break that, and this module rules them
out syntactically, for the whole file:

* another store: every store or deletion of the attribute name in the file, on any
  receiver, must be a statement `self.<attr> = value` of the own body of a method of the
  class (`stores_by_methods`); the interpreter then runs those methods and checks each
  value (`ModuleInterpreter._collect_historyless_state`);
* a change in place: an in-place op with an operand that has history gives the tensor a
  `grad_fn` (`self.prototypes.add_(delta)`, `self.prototypes[0] = out`), and so may one on
  a view or an alias of it. So every read of the attribute name in the file must use the
  tensor only where a new tensor comes out (`kept_in_place`): an operand of arithmetic or
  a comparison, the receiver of a method that neither changes it nor may return a view of
  it (`self.prototypes.sum()`), an argument of a torch function of the same kind
  (`torch.cdist(f, self.prototypes)`, without `out=`), a truth test. Bound to another name,
  returned, put in a container, handed to other code: it may be changed there, and the
  fact does not hold.

Whether `requires_grad` or `.data` of it may be set is the interpreter's other check
(`_grad_state_kept`).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Mapping

from gradguard.analysis import torch_api as api
from gradguard.analysis.model import FunctionNode
from gradguard.analysis.names import dotted
from gradguard.analysis.walk import children, module_nodes_of, module_parents, own_nodes, walk

Resolve = Callable[[ast.expr], "str | None"]

# Methods and torch functions whose result may share the receiver's storage (a view or the
# tensor itself): changing that result in place changes the attribute's tensor.
_ALIASING = (
    api.VIEW_METHODS
    | api.MAY_ALIAS_METHODS
    | api.TENSOR_VIEWS
    | frozenset("as_tensor asarray from_numpy as_strided view_as_real view_as_complex".split())
    | frozenset("unflatten movedim moveaxis swapaxes swapdims diagonal unbind split".split())
    | frozenset("chunk tensor_split hsplit vsplit dsplit align_to refine_names".split())
    | frozenset("rename unfold detach numpy".split())
)
# Expressions whose operands are read and not kept: the result is a new object.
_OPERATORS = (ast.BinOp, ast.UnaryOp, ast.Compare, ast.BoolOp)


# Calls that bind an attribute of the receiver by the name they are given.
_NAMED_BINDERS = frozenset(
    "register_buffer register_parameter add_module register_module setattr __setattr__".split()
)


def stores_by_methods(
    tree: ast.Module, cls: ast.ClassDef, attr: str, stores: int
) -> list[tuple[FunctionNode, ast.expr]] | None:
    """What the methods of `cls` store into `self.<attr>`, each value with its method:
    statements `self.<attr> = value` anywhere in the own code of an undecorated method, and
    calls `self.register_buffer("<attr>", value)` there (torch keeps that very tensor as
    the attribute), when nothing else in `tree` may bind the name: the statements are the
    file's `stores` stores of it (`FileSyntax.attribute_stores`, on any receiver), and no
    other call binds it by name (`x.register_buffer("<attr>", ...)`, `setattr`,
    `register_parameter`, or any of those with a name not written out). None otherwise."""
    found: list[tuple[FunctionNode, ast.expr]] = []
    registered: set[int] = set()
    assigned = 0
    for method in cls.body:
        if not isinstance(method, ast.FunctionDef) or not method.args.args:
            continue
        me = method.args.args[0].arg
        for node in own_nodes(method.body):
            value = _assigned(node, me, attr) if isinstance(node, ast.Assign) else None
            if value is None and isinstance(node, ast.Call):
                value = _registered(node, me, attr)
                if value is not None:
                    registered.add(id(node))
            elif value is not None:
                assigned += 1
            if value is None:
                continue
            if method.decorator_list:
                return None
            found.append((method, value))
    if not found or assigned != stores:
        return None
    for call in module_nodes_of(tree, ast.Call):
        assert isinstance(call, ast.Call)
        func = call.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
        if name not in _NAMED_BINDERS or id(call) in registered:
            continue
        named = call.args[1] if name == "setattr" and len(call.args) > 1 else None
        if name != "setattr":
            named = call.args[0] if call.args else None
        if not (isinstance(named, ast.Constant) and named.value != attr):
            return None
    return found


def _assigned(stmt: ast.Assign, me: str, attr: str) -> ast.expr | None:
    """`value` of `me.<attr> = value` (one target)."""
    if len(stmt.targets) != 1:
        return None
    target = stmt.targets[0]
    if isinstance(target, ast.Attribute) and target.attr == attr and dotted(target.value) == me:
        return stmt.value
    return None


def _registered(call: ast.Call, me: str, attr: str) -> ast.expr | None:
    """`value` of `me.register_buffer("<attr>", value)`."""
    func = call.func
    if (
        isinstance(func, ast.Attribute)
        and func.attr == "register_buffer"
        and dotted(func.value) == me
        and len(call.args) >= 2
        and isinstance(call.args[0], ast.Constant)
        and call.args[0].value == attr
        and not any(isinstance(a, ast.Starred) for a in call.args)
    ):
        return call.args[1]
    return None


def changed_in_place(tree: ast.Module, resolve: Resolve) -> frozenset[str]:
    """The attribute names some read of which in `tree` (on any receiver) may let code
    change the tensor in place, directly or through a view or an alias (see the module
    docstring); an attribute not named here is only ever used where a new tensor comes
    out."""
    return _changed_among(module_nodes_of(tree, ast.Attribute), module_parents(tree), resolve)


def changed_in_place_part(function: FunctionNode, resolve: Resolve) -> frozenset[str]:
    """`changed_in_place` of the reads inside `function` alone (the file's answer is the
    union of its parts: an edit of one function changes only its part)."""
    nodes = walk(function)  # asked of the edited function on every edit: one walk, lists
    parents = {id(child): node for node in nodes for child in children(node)}
    return _changed_among(nodes, parents, resolve)


def _changed_among(
    nodes: Iterable[ast.AST], parents: Mapping[int, ast.AST], resolve: Resolve
) -> frozenset[str]:
    changed: set[str] = set()
    for node in nodes:
        if not isinstance(node, ast.Attribute) or node.attr in changed:
            continue
        if isinstance(node.ctx, ast.Load) and not _read_only(node, parents, resolve):
            changed.add(node.attr)
    return frozenset(changed)


def _read_only(node: ast.expr, parents: Mapping[int, ast.AST], resolve: Resolve) -> bool:
    """`node` (a read of the attribute, or a view of it) is used where only a new tensor
    comes out; a view (`self.centres.t()`, `self.centres[0]`) is followed to its own use."""
    parent = parents.get(id(node))
    if isinstance(parent, _OPERATORS):
        return True
    if isinstance(parent, ast.If | ast.While | ast.Assert | ast.IfExp) and parent.test is node:
        return True
    if isinstance(parent, ast.Subscript) and parent.value is node:
        return isinstance(parent.ctx, ast.Load) and _read_only(parent, parents, resolve)
    if isinstance(parent, ast.Attribute):
        # `self.centres.sum()` (a method called) or `.shape` (an attribute read).
        name = parent.attr
        if name in ("data", "grad", "requires_grad") or name.endswith("_"):
            return False
        if name not in _ALIASING:
            return True
        call = parents.get(id(parent))
        if isinstance(call, ast.Call) and call.func is parent:
            return _read_only(call, parents, resolve)
        return _read_only(parent, parents, resolve)
    if isinstance(parent, ast.Call) and node is not parent.func:
        qualified = resolve(parent.func)
        name = qualified.rsplit(".", 1)[-1] if qualified is not None else ""
        if not (
            qualified is not None
            and qualified.startswith("torch.")
            and not name.endswith("_")
            and not any(kw.arg in (None, "out") for kw in parent.keywords)
            and not any(isinstance(a, ast.Starred) for a in parent.args)
        ):
            return False
        return name not in _ALIASING or _read_only(parent, parents, resolve)
    return False
