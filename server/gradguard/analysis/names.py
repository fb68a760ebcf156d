"""Dotted names: how the analysis keys a variable or an attribute chain (`self.hidden`)."""

from __future__ import annotations

import ast
import re
import unicodedata

from gradguard.analysis.node_cache import cached_by_node
from gradguard.analysis.walk import LEAVES, NESTED_CODE, children, walk


def dotted(expr: ast.expr) -> str | None:
    """`self.hidden` for an Attribute chain rooted in a Name, `h` for a Name, else None."""
    if isinstance(expr, ast.Name):
        return expr.id
    if isinstance(expr, ast.Attribute):
        base = dotted(expr.value)
        return f"{base}.{expr.attr}" if base is not None else None
    return None


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


def identifier_spelling(text: str) -> str:
    """Source text as the parser reads its identifiers, for raw-text look-ups.

    Python normalises identifiers with NFKC, so `torch` spelled in fullwidth letters
    (U+FF54...) is `torch` to the interpreter; a search of the raw text must see
    them the same way. Positions do not survive normalisation: use this only for "does the
    file say X" tests. ASCII text is returned as it is.
    """
    return text if text.isascii() else unicodedata.normalize("NFKC", text)


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
    if isinstance(node, ast.Global | ast.Nonlocal):
        names.difference_update(node.names)
    elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        names.discard(node.name)
        names -= _bound_inside(node)
    elif isinstance(node, ast.alias):
        names.discard((node.asname or node.name).split(".")[0])
    elif isinstance(node, ast.ExceptHandler | ast.MatchAs | ast.MatchStar) and node.name:
        names.discard(node.name)
    elif isinstance(node, ast.MatchMapping) and node.rest:
        names.discard(node.rest)


def _bound_inside(node: ast.AST) -> frozenset[str]:
    """Names a nested function or class declares `nonlocal` (it could rebind them)."""
    return frozenset(
        name for inner in walk(node) if isinstance(inner, ast.Nonlocal) for name in inner.names
    )
