"""Dotted names: how the analysis keys a variable or an attribute chain (`self.hidden`)."""

from __future__ import annotations

import ast
import re
import unicodedata
from collections.abc import Iterable
from itertools import chain

from gradguard.analysis.node_cache import cached_by_node
from gradguard.analysis.walk import (
    LEAVES,
    NESTED_CODE,
    children,
    module_nodes_of,
    module_parents,
    own_nodes,
    walk,
)


def dotted(expr: ast.expr) -> str | None:
    """`self.hidden` for an Attribute chain rooted in a Name, `h` for a Name, else None."""
    if isinstance(expr, ast.Name):
        return expr.id
    if isinstance(expr, ast.Attribute):
        base = dotted(expr.value)
        return f"{base}.{expr.attr}" if base is not None else None
    return None


def is_access_path(expr: ast.expr) -> bool:
    """True for a chain of attributes and subscripts rooted in a name whose indices are
    names, constants, slices or tuples of them (`model.encoder.layer[i].out.weight`):
    reading it calls no function (a property or `__getitem__` aside, which only read), so
    the analysis may evaluate it again where it has no dotted key for it."""
    while True:
        if isinstance(expr, ast.Name):
            return True
        if not isinstance(expr, ast.Attribute | ast.Subscript):
            return False
        if isinstance(expr, ast.Subscript) and not _plain_index(expr.slice):
            return False
        expr = expr.value


def _plain_index(index: ast.expr) -> bool:
    if isinstance(index, ast.Name | ast.Constant):
        return True
    if isinstance(index, ast.UnaryOp) and isinstance(index.op, ast.USub):
        return isinstance(index.operand, ast.Constant)
    if isinstance(index, ast.Slice):
        return all(
            part is None or _plain_index(part) for part in (index.lower, index.upper, index.step)
        )
    if isinstance(index, ast.Tuple):
        return all(_plain_index(element) for element in index.elts)
    return False


def paired(target: ast.expr, value: ast.expr) -> list[tuple[ast.expr, ast.expr]]:
    """What each target of an assignment gets: `a, (b, c) = x, (y, z)` gives `(a, x)`,
    `(b, y)`, `(c, z)`; a single target gets the whole value. Nothing when the sides of an
    unpacking cannot be matched (a starred element, a value that is not a tuple or list
    literal of the same length)."""
    if not isinstance(target, ast.Tuple | ast.List):
        return [(target, value)]
    if (
        not isinstance(value, ast.Tuple | ast.List)
        or len(target.elts) != len(value.elts)
        or any(isinstance(e, ast.Starred) for e in (*target.elts, *value.elts))
    ):
        return []
    return [
        pair
        for element, item in zip(target.elts, value.elts, strict=True)
        for pair in paired(element, item)
    ]


def attribute_root(expr: ast.expr) -> str | None:
    """The name an attribute chain starts from: `model` of `model.backbone.head` (and of
    `model`); None when it starts from anything else (a call, a subscript)."""
    while isinstance(expr, ast.Attribute):
        expr = expr.value
    return expr.id if isinstance(expr, ast.Name) else None


def root_name(expr: ast.expr) -> ast.Name | None:
    """The name an attribute/subscript/call chain starts from: `a` of `a.b[0].c(x)`."""
    while True:
        if isinstance(expr, ast.Name):
            return expr
        if isinstance(expr, ast.Attribute | ast.Subscript | ast.Starred):
            expr = expr.value
        elif isinstance(expr, ast.Call):
            expr = expr.func
        else:
            return None


def passed_keyword(call: ast.Call, name: str) -> ast.keyword | None:
    """The `name=...` keyword of a call (None when it passes none)."""
    return next((kw for kw in call.keywords if kw.arg == name), None)


def keyword_value(call: ast.Call, name: str) -> ast.expr | None:
    """The expression a call passes as `name=` (None when it passes none)."""
    found = passed_keyword(call, name)
    return found.value if found is not None else None


def parameter_names(function: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> list[str]:
    """The names a function's callers can bind by position or keyword, in order (`self`
    first for a method); not `*args` or `**kwargs`."""
    spec = function.args
    return [a.arg for a in (*spec.posonlyargs, *spec.args, *spec.kwonlyargs)]


def callee_name(func: ast.expr) -> str | None:
    """`f` for the callee of `f(...)`, `m` for that of `x.m(...)`, else None."""
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def parameters_receiver(expr: ast.expr) -> str | None:
    """`model` for `model.parameters()`: the name whose `parameters()` a call without
    arguments asks for; None for anything else."""
    if (
        isinstance(expr, ast.Call)
        and not expr.args
        and not expr.keywords
        and isinstance(expr.func, ast.Attribute)
        and expr.func.attr == "parameters"
        and isinstance(expr.func.value, ast.Name)
    ):
        return expr.func.value.id
    return None


def identifier_spelling(text: str) -> str:
    """Source text as the parser reads its identifiers, for raw-text look-ups.

    Python normalises identifiers with NFKC, so `torch` spelled in fullwidth letters
    (U+FF54...) is `torch` to the interpreter; a search of the raw text must see
    them the same way. Positions do not survive normalisation: use this only for "does the
    file say X" tests. ASCII text is returned as it is, and so are ASCII lines: NFKC leaves
    ASCII alone and nothing composes across a line break, so only the (few) other lines are
    normalised, about five times faster on a large file than normalising it whole. The text
    is read in blocks of whole lines, and only a block that is not ASCII is split into lines
    (most of a large file's text then costs one `isascii` per block).
    """
    if text.isascii():
        return text
    pieces: list[str] = []
    start, size = 0, len(text)
    while start < size:
        end = text.find("\n", start + _BLOCK)
        end = size if end < 0 else end + 1  # the block ends after a line break
        block = text[start:end]
        if not block.isascii():
            block = "\n".join(
                line if line.isascii() else unicodedata.normalize("NFKC", line)
                for line in block.split("\n")
            )
        pieces.append(block)
        start = end
    return "".join(pieces)


# Characters per block `identifier_spelling` tests at once (then up to the line's end).
_BLOCK = 4096


def mentions(pattern: re.Pattern[str], text: str) -> bool:
    """Whether the text says `pattern` as the parser reads identifiers: found in the raw
    text (the common case: no normalisation needed), or in `identifier_spelling(text)`
    when the text is not ASCII. A cheap "may the file do X" test; a raw match counts even
    where normalising would merge a character into its neighbour."""
    if pattern.search(text):
        return True
    return not text.isascii() and pattern.search(identifier_spelling(text)) is not None


# Words that name an optimizer in training code: `optimizer`, `optim`, `opt`, alone or as one
# `_`-separated part (`opt_g`, `d_optimizer`), or with a one-letter or numeric suffix
# (`optimizerG`, `optimizer2`).
_OPTIMIZER_WORD = re.compile(r"(?:optimi[sz]er|optim|opt)(?:[A-Z0-9][0-9]*)?")


def names_an_optimizer(name: str) -> bool:
    """True when a variable's name says it holds an optimizer (`optimizer`, `opt_d`,
    `model_optim`, `optimizerG`); `options`, `optimal`, `opt_level` do not."""
    parts = name.split("_")
    return any(_OPTIMIZER_WORD.fullmatch(part) for part in parts) and not (
        len(parts) > 1 and parts[-1] in ("level", "args", "cfg", "config", "name", "type")
    )


def may_name_an_optimizer(name: str) -> bool:
    """The looser test (`opt...`, `...optim...`, any case) for where a guess only decides
    what may train or step: `optimizer_g`, `self.opt`, `model_optim`, `Optimizer`."""
    lowered = name.lower()
    return lowered.startswith("opt") or "optim" in lowered


def arguments_by_parameter(
    function: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda,
    call: ast.Call,
    *,
    skip_self: bool = False,
) -> dict[str, ast.expr] | None:
    """The expression `call` passes for each parameter it names, by name: positional
    arguments in order, then keywords under their own name (`**options` names nothing).
    With `skip_self` (a method called on an object) the object fills the first parameter
    and is not listed. None when a `*` argument hides the order, or when there are more
    positional arguments than parameters to take them (a TypeError without `*args`)."""
    if any(isinstance(a, ast.Starred) for a in call.args):
        return None
    spec = function.args
    positional = [*spec.posonlyargs, *spec.args][1 if skip_self else 0 :]
    if len(call.args) > len(positional) and spec.vararg is None:
        return None
    passed = {param.arg: arg for param, arg in zip(positional, call.args, strict=False)}
    for keyword in call.keywords:
        if keyword.arg is not None:
            passed[keyword.arg] = keyword.value
    return passed


def first_parameter(function: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    """The name of a function's first positional parameter: what a method calls its
    instance (`self`), positional-only or not; None when it has none."""
    positional = [*function.args.posonlyargs, *function.args.args]
    return positional[0].arg if positional else None


def is_own_attribute(function: ast.FunctionDef | ast.AsyncFunctionDef, node: ast.expr) -> bool:
    """`node` is `self.<attr>`: an attribute of `function`'s first parameter."""
    return (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == first_parameter(function)
    )


def is_staticmethod(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Decorated `@staticmethod`: called on an object, it gets no `self`."""
    return any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in function.decorator_list)


# The nodes other than a Name that can bind a name in a function's own scope
# (`kept_parameters`).
_MAY_BIND = (
    ast.Global,
    ast.Nonlocal,
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.alias,
    ast.ExceptHandler,
    ast.MatchAs,
    ast.MatchStar,
    ast.MatchMapping,
)


@cached_by_node
def kept_parameters(function: ast.FunctionDef | ast.AsyncFunctionDef) -> frozenset[str]:
    """The parameters nothing in the function rebinds (no assignment, deletion, `global` or
    `nonlocal` of the name, nor a nested function declaring it `nonlocal`): the name holds
    the caller's argument wherever the function reads it."""
    names = set(parameter_names(function))
    if not names:  # nothing to lose: spare the walk
        return frozenset()
    # The nodes of `own_nodes(function.body)`, in another order (each binding only removes
    # names: the order changes nothing) and without the contexts under a Name (markers,
    # never bindings); a plain stack, as this walks most of the file's code.
    stack: list[ast.AST] = list(function.body)
    pop, push = stack.pop, stack.extend
    while stack:
        node = pop()
        if type(node) is ast.Name:  # parsed trees hold the ast classes themselves
            if type(node.ctx) is not ast.Load:
                names.discard(node.id)
            continue
        if type(node) in LEAVES:
            continue
        if isinstance(node, _MAY_BIND):
            _unbind(names, node)
        if not isinstance(node, NESTED_CODE):
            push(children(node))
    return frozenset(names)


def _unbind(names: set[str], node: ast.AST) -> None:
    """Remove from `names` those `node` of a function's own code may bind (`kept_parameters`;
    not a Name, which it handles itself)."""
    names.difference_update(names_bound_by(node))
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        names.difference_update(_bound_inside(node))


def names_bound_by(node: ast.AST) -> list[str]:
    """The plain names `node` itself binds where it runs (not what code nested in it binds):
    a stored or deleted Name, a parameter, a `def` or `class`, an import, an `except` or
    `match` capture, and the names a `global` or `nonlocal` declaration makes bound
    elsewhere too."""
    if isinstance(node, ast.Name):
        return [] if isinstance(node.ctx, ast.Load) else [node.id]
    if isinstance(node, ast.arg):
        return [node.arg]
    if isinstance(node, ast.Global | ast.Nonlocal):
        return list(node.names)
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return [node.name]
    if isinstance(node, ast.alias):
        return [(node.asname or node.name).split(".")[0]]
    if isinstance(node, ast.ExceptHandler | ast.MatchAs | ast.MatchStar):
        return [node.name] if node.name else []
    if isinstance(node, ast.MatchMapping):
        return [node.rest] if node.rest else []
    return []


def class_body_names(node: ast.ClassDef) -> frozenset[str]:
    """The names a class body binds in its own statements (the defaults an instance reads
    when it has none of its own): methods, nested classes, and the names in the targets of
    its assignments, annotated and augmented ones included."""
    found: set[str] = set()
    for stmt in node.body:
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            found.add(stmt.name)
        elif isinstance(stmt, ast.Assign | ast.AugAssign | ast.AnnAssign):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            found.update(n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name))
    return frozenset(found)


def binding_counts(nodes: Iterable[ast.AST]) -> dict[str, int]:
    """How often `nodes` bind each plain name (`names_bound_by`). A `global` or `nonlocal`
    declaration counts twice: its name is bound elsewhere too, so never "bound once"."""
    counts: dict[str, int] = {}
    for node in nodes:
        twice = isinstance(node, ast.Global | ast.Nonlocal)
        for name in names_bound_by(node):
            counts[name] = counts.get(name, 0) + (2 if twice else 1)
    return counts


@cached_by_node
def local_binding_counts(function: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, int]:
    """`binding_counts` of a function's own scope: its parameters (`*args` and `**kwargs`
    too) and its own code, not the code of functions and classes nested in it."""
    spec = function.args
    starred = [a for a in (spec.vararg, spec.kwarg) if a is not None]
    parameters = [*spec.posonlyargs, *spec.args, *spec.kwonlyargs, *starred]
    return binding_counts(chain(parameters, own_nodes(function.body)))


def _bound_inside(node: ast.AST) -> frozenset[str]:
    """Names a nested function or class declares `nonlocal` (it could rebind them)."""
    return frozenset(
        name for inner in walk(node) if isinstance(inner, ast.Nonlocal) for name in inner.names
    )


def may_read_builtin(tree: ast.Module, names: frozenset[str]) -> bool:
    """Whether some read of one of `names` in the file may be the builtin of that name
    (`vars(args)`): a Name read at module level or in a class body, or in a function none
    of whose enclosing functions (or lambdas) binds the name in its own scope (`def
    forward(self, x, vars=None)` reads its parameter). A name declared `global` in the
    function is the module's, which may be the builtin."""
    if not any(isinstance(n, ast.Name) and n.id in names for n in module_nodes_of(tree, ast.Name)):
        return False
    parents = module_parents(tree)
    for node in module_nodes_of(tree, ast.Name):
        if node.id in names and not _locally_bound(node, parents):
            return True
    return False


def _locally_bound(node: ast.Name, parents: dict[int, ast.AST]) -> bool:
    """Whether a function or lambda enclosing `node` binds its name in its own scope."""
    parent = parents.get(id(node))
    while parent is not None:
        if isinstance(parent, ast.FunctionDef | ast.AsyncFunctionDef):
            declared = any(
                isinstance(d, ast.Global) and node.id in d.names for d in own_nodes(parent.body)
            )
            if declared:
                return False
            if node.id in local_binding_counts(parent):
                return True
        elif isinstance(parent, ast.Lambda) and node.id in parameter_names(parent):
            return True
        parent = parents.get(id(parent))
    return False
