"""Modules only their own function can reach: freezing elsewhere in the file cannot touch them.

A file that freezes some parameter (`p.requires_grad = False`, `x.requires_grad_(False)`)
makes GradGuard careful about every module: any of them might be the one frozen, and a
frozen module's outputs have no history. That care is wasted on a module built inside a
function that never lets it out: code elsewhere cannot reach its parameters, so unless the
function itself freezes something, they still require grad.

A name is private to its function when the function has no freezing statement and every
use of the name stays inside it: calling the module, calling its methods, reading its
attributes, or handing it (or its parameters) to a torch function (an optimizer,
`clip_grad_norm_`). It escapes when it, or anything read from it, is an argument of any
other call, is stored or aliased (`other = fc`, `self.fc = fc`, `[fc]`), yielded, named by a
nested function or lambda, declared global or nonlocal, or has an attribute stored into it
(`fc.weight = ...`). Returning it is fine: the caller gets it once this run is over. Whether the
name holds a freshly built module is the interpreter's business (see
`FunctionInterpreter.may_be_frozen`); this module only answers "does it stay inside".
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator

from gradguard.analysis.model import FunctionNode
from gradguard.analysis.node_cache import cached_by_node

# Resolves a callee to its torch path (`torch.optim.SGD`), None when it is not torch.
Resolver = Callable[[ast.expr], str | None]


def private_names(function: FunctionNode, resolve: Resolver) -> frozenset[str]:
    """Names whose every use stays inside `function` (see the module docstring); empty when
    the function itself freezes a parameter."""
    if _freezes(function):
        return frozenset()
    parents = _parents(function)
    used: set[str] = set()
    escaped: set[str] = set()
    for node in ast.walk(function):
        if isinstance(node, ast.Global | ast.Nonlocal):
            escaped.update(node.names)
        if not (isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)):
            continue
        used.add(node.id)
        if _escapes(node, parents, function, resolve):
            escaped.add(node.id)
    return frozenset(used - escaped)


def _escapes(
    name: ast.Name, parents: dict[int, ast.AST], function: FunctionNode, resolve: Resolver
) -> bool:
    """Whether this use of a name hands the module, or something read from it, to other
    code. What calling the module returns (`fc(x)`, `fc(x).sum()`) is its output, not the
    module: that may go anywhere."""
    child: ast.AST = name
    output = False
    for parent in _ancestors(name, parents):
        if parent is function:
            return False
        if isinstance(parent, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            return True  # read by a nested function: it may run anywhere
        if isinstance(parent, ast.Attribute) and not isinstance(parent.ctx, ast.Load):
            return not output  # `fc.weight = ...`: its parameters may be replaced
        if isinstance(parent, ast.Call):
            if child is parent.func:
                output = output or child is name  # `fc(x)`: from here on, an output
            elif not output:
                if (qualified := resolve(parent.func)) is None or qualified.startswith(
                    ("torchvision.", "timm.", "transformers.")
                ):
                    return True  # handed to code GradGuard cannot see
                output = True  # what a torch function makes of it (an optimizer, a tensor)
        elif isinstance(parent, ast.stmt):
            if isinstance(parent, ast.Assign | ast.AnnAssign | ast.AugAssign):
                return not output and parent.value is child
            # `return fc`: each call builds its own, so the caller gets it only after this
            # run is over.
            return False
        elif isinstance(parent, ast.Yield | ast.YieldFrom | ast.NamedExpr):
            return not output
        elif (
            isinstance(parent, ast.Tuple | ast.List | ast.Set | ast.Dict | ast.Starred)
            and not output
        ):
            return True  # the module, or part of it, put in a container
        child = parent
    return False


def _ancestors(node: ast.AST, parents: dict[int, ast.AST]) -> Iterator[ast.AST]:
    parent = parents.get(id(node))
    while parent is not None:
        yield parent
        parent = parents.get(id(parent))


@cached_by_node
def _parents(function: FunctionNode) -> dict[int, ast.AST]:
    parents: dict[int, ast.AST] = {}
    for node in ast.walk(function):
        for child in ast.iter_child_nodes(node):
            parents[id(child)] = node
    return parents


@cached_by_node
def _freezes(function: FunctionNode) -> bool:
    """A `requires_grad` store or a `requires_grad_(...)` call anywhere in the function that
    is not plainly `True`."""
    for node in ast.walk(function):
        if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            value = node.value
            plainly_true = isinstance(value, ast.Constant) and value.value is True
            for target in targets:
                if (
                    isinstance(target, ast.Attribute)
                    and target.attr == "requires_grad"
                    and not plainly_true
                ):
                    return True
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "requires_grad_"
        ):
            first = node.args[0] if node.args else None
            if first is not None and not (isinstance(first, ast.Constant) and first.value is True):
                return True
            if any(kw.arg == "requires_grad" for kw in node.keywords):
                return True
        if isinstance(node, ast.Call) and any(
            kw.arg == "requires_grad"
            and not (isinstance(kw.value, ast.Constant) and kw.value.value is True)
            for kw in node.keywords
        ):
            return True  # `nn.Parameter(w, requires_grad=False)`
    return False
