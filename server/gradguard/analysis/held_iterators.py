"""One-shot iterators of parameters kept on `self` by `__init__`, used up there, and read
again by another method of the class.

`self.params = filter(lambda p: p.requires_grad, self.net.parameters())` followed, in the
same `__init__`, by `self.optim = torch.optim.SGD(self.params, ...)`: the optimizer iterated
the generator to its end before `__init__` returned. Every other method runs on the built
instance, after `__init__`: a `clip_grad_norm_(self.params, 1.0)` in `train_step` clips
nothing, an optimizer built from `self.params` in `configure()` raises "optimizer got an
empty parameter list".

The fact is certain only when all of this holds (anything else: silence):

* the binding is a statement `self.<a> = <one-shot>` of the body of `__init__` itself (not
  under `if`, a loop, `try` or `with`), a plain method of a class of the file whose bases
  are classes of the file, `object` or torch.nn.Module, none redefining attribute access;
  the one-shot value is one `parameter_iterators` certainly knows;
* it is the only store (or deletion) of an attribute named `<a>` in the file that may
  reach an instance of the class: any other is `self.<a> = ...` in a plain method of
  another class of the file, plain as above, neither deriving from this one nor one of its
  bases; no class body of the file defines `<a>`, and the file never sets attributes by
  computed names (`setattr`, `vars`, `__dict__`...);
* a later statement of that same body, a simple statement nothing before it can skip (no
  `return` between the binding and it, nor a conditional expression around the read),
  iterates `self.<a>` to its end (as `parameter_iterators` counts consumptions);
* the second read is such a consumption of `self.<a>` in another plain method of the class
  (`self` its first parameter, never re-bound), where it cannot run before `__init__`
  returns.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from typing import TYPE_CHECKING

from gradguard.analysis.names import is_own_attribute
from gradguard.analysis.walk import innermost_function, module_nodes_of, own_nodes

if TYPE_CHECKING:
    from gradguard.analysis.parameter_iterators import Consumption, ReusedIterator, _Finder

_UNCERTAIN = (ast.IfExp, ast.BoolOp, ast.Lambda)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def held_iterators(finder: _Finder, bindings: list[ast.Assign]) -> list[ReusedIterator]:
    """Every generator `__init__` keeps on `self` and uses up, read again by another method
    (see the module docstring); `bindings` are the file's assignments of maybe one-shot
    values."""
    found = []
    for stmt in bindings:
        init = finder.flow.parents.get(id(stmt))
        owner = finder.flow.parents.get(id(init))
        if (
            not isinstance(init, ast.FunctionDef)
            or init.name != "__init__"
            or not isinstance(owner, ast.ClassDef)
            or finder.self_class_of(init) is not owner
        ):
            continue
        index = next((i for i, s in enumerate(init.body) if s is stmt), None)
        reuse = _check_binding(finder, owner, init, index, stmt) if index is not None else None
        if reuse is not None:
            found.append(reuse)
    return found


def _check_binding(
    finder: _Finder, owner: ast.ClassDef, init: ast.FunctionDef, index: int, stmt: ast.stmt
) -> ReusedIterator | None:
    from gradguard.analysis.parameter_iterators import ReusedIterator

    attribute = _self_store(init, stmt)
    if attribute is None or not isinstance(stmt, ast.Assign):
        return None
    if not finder.one_shot(stmt.value) or not _only_store(finder, owner, attribute, stmt):
        return None
    first = _first_consumption(finder, init, index, attribute)
    if first is None:
        return None
    use, adjacent = first
    for method in _other_methods(finder, owner, init):
        for read in _self_reads(method, attribute):
            second = finder.consumption_of(read)
            if second is not None:
                target = stmt.targets[0]
                return ReusedIterator(
                    stmt, ast.unparse(target), stmt.value, second, use, None, adjacent
                )
    return None


def _self_store(init: ast.FunctionDef, stmt: ast.stmt) -> str | None:
    """`self.<a> = value` (one target): the attribute name."""
    if not isinstance(stmt, ast.Assign) or len(stmt.targets) != 1:
        return None
    target = stmt.targets[0]
    if isinstance(target, ast.Attribute) and is_own_attribute(init, target):
        return target.attr
    return None


def _only_store(finder: _Finder, owner: ast.ClassDef, attribute: str, stmt: ast.Assign) -> bool:
    """`stmt` is the only store or deletion of `attribute` that may reach an instance of
    `owner`: any other is `self.<attribute> = ...` in a plain method of a class of the file
    that neither derives from `owner` nor is one of its bases. No class body defines it;
    attributes are never set by computed names; the class is plain."""
    if finder.sets_attributes_dynamically() or not finder.plain_class(owner):
        return False
    tree = finder.analysis.tree
    if any(finder.class_binds(c, attribute) for c in module_nodes_of(tree, ast.ClassDef)):
        return False
    for node in module_nodes_of(tree, ast.Attribute):
        if node.attr != attribute or isinstance(node.ctx, ast.Load) or node is stmt.targets[0]:
            continue
        other = _storing_class(finder, node)
        if other is None or other is owner or _related(finder, owner, other):
            return False
    return True


def _storing_class(finder: _Finder, target: ast.Attribute) -> ast.ClassDef | None:
    """The class whose plain method stores `target` as `self.<a>`, else None."""
    method = innermost_function(target, finder.flow.parents)
    if method is None or not is_own_attribute(method, target):
        return None
    return finder.self_class_of(method)


def _related(finder: _Finder, one: ast.ClassDef, other: ast.ClassDef) -> bool:
    """One of the two classes derives from the other (through classes of the file), or
    `other` has a base that is neither a class of the file, `object` nor torch.nn.Module
    (it may be `one` under another name): then either may run the other's methods."""
    if not finder.plain_class(other):
        return True
    return _derives(finder, one, other, set()) or _derives(finder, other, one, set())


def _derives(finder: _Finder, cls: ast.ClassDef, base: ast.ClassDef, seen: set[int]) -> bool:
    if id(cls) in seen:
        return False
    seen.add(id(cls))
    for expr in cls.bases:
        local = finder.local_class(expr)
        if local is base or (local is not None and _derives(finder, local, base, seen)):
            return True
    return False


def _first_consumption(
    finder: _Finder, init: ast.FunctionDef, index: int, attribute: str
) -> tuple[Consumption, bool] | None:
    """The first statement after the binding in `__init__`'s body that certainly iterates
    `self.<attribute>` to its end, and whether it is the next statement; None when a
    `return` may come first, or a statement that reads it is not such a certain one."""
    for offset, stmt in enumerate(init.body[index + 1 :]):
        nodes = list(own_nodes([stmt]))
        if any(isinstance(n, ast.Return | ast.Yield | ast.YieldFrom) for n in nodes):
            return None
        reads = [
            n
            for n in nodes
            if isinstance(n, ast.Attribute) and _reads_attribute(init, n, attribute)
        ]
        if not reads:
            continue
        if not isinstance(stmt, ast.Assign | ast.Expr | ast.AnnAssign):
            return None
        use = finder.consumption_of(reads[0])
        if use is None or _conditional(finder, reads[0], stmt):
            return None
        return use, offset == 0
    return None


def _conditional(finder: _Finder, node: ast.AST, stmt: ast.stmt) -> bool:
    """Something between `node` and its statement may skip evaluating it: a conditional
    expression, `and`/`or`, a lambda, or a comprehension other than through the iterable
    of its first loop (evaluated once, whatever the rest does)."""
    child, current = node, finder.flow.parents.get(id(node))
    while current is not None and current is not stmt:
        if isinstance(current, _UNCERTAIN):
            return True
        if isinstance(current, ast.comprehension) and child is not current.iter:
            return True
        if isinstance(current, _COMPREHENSIONS) and child is not current.generators[0]:
            return True
        child, current = current, finder.flow.parents.get(id(current))
    return False


def _reads_attribute(
    method: ast.FunctionDef | ast.AsyncFunctionDef, node: ast.AST, attribute: str
) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and node.attr == attribute
        and isinstance(node.ctx, ast.Load)
        and is_own_attribute(method, node)
    )


def _other_methods(
    finder: _Finder, owner: ast.ClassDef, init: ast.FunctionDef
) -> Iterator[ast.FunctionDef | ast.AsyncFunctionDef]:
    """The class's plain methods other than `__init__` (`self` never re-bound)."""
    for stmt in owner.body:
        if (
            isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef)
            and stmt is not init
            and finder.self_class_of(stmt) is owner
        ):
            yield stmt


def _self_reads(
    method: ast.FunctionDef | ast.AsyncFunctionDef, attribute: str
) -> list[ast.Attribute]:
    reads = [
        n
        for n in own_nodes(method.body)
        if isinstance(n, ast.Attribute) and _reads_attribute(method, n, attribute)
    ]
    return sorted(reads, key=lambda n: (n.lineno, n.col_offset))
