"""Resolve local names to torch qualified names through a file's imports.

`import torch as T`, `from torch import no_grad`, `from torch import nn, optim` and
`import torch.nn.functional as F` all become entries of a small table; a name that is also
bound by anything else in the same scope (a parameter called `torch`, a local `def no_grad`)
is ambiguous and resolves to nothing.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

ScopeNode = ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef


@dataclass(frozen=True)
class Binding:
    """How a name is bound in one scope: to a torch path, or to something else (`None`)."""

    qualified: str | None


def _torch_import_bindings(node: ast.Import | ast.ImportFrom) -> Iterable[tuple[str, Binding]]:
    if isinstance(node, ast.Import):
        for alias in node.names:
            top = alias.name.split(".")[0]
            if alias.asname:
                qualified = alias.name if top == "torch" else None
                yield alias.asname, Binding(qualified)
            else:
                yield top, Binding("torch" if top == "torch" else None)
        return
    module = node.module or ""
    is_torch = node.level == 0 and (module == "torch" or module.startswith("torch."))
    for alias in node.names:
        if alias.name == "*":
            continue
        local = alias.asname or alias.name
        yield local, Binding(f"{module}.{alias.name}" if is_torch else None)


class _ScopeBindings(ast.NodeVisitor):
    """Collect the bindings made directly in one scope (not in nested functions/classes)."""

    def __init__(self) -> None:
        self.bindings: dict[str, list[Binding]] = {}
        self.globals: set[str] = set()

    def add(self, name: str, binding: Binding) -> None:
        self.bindings.setdefault(name, []).append(binding)

    def scan(self, scope: ScopeNode) -> None:
        if isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            args = scope.args
            for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs):
                self.add(arg.arg, Binding(None))
            for extra in (args.vararg, args.kwarg):
                if extra is not None:
                    self.add(extra.arg, Binding(None))
            if isinstance(scope, ast.Lambda):
                self.visit(scope.body)
                return
        for stmt in scope.body:
            self.visit(stmt)

    def visit_Import(self, node: ast.Import) -> None:
        for name, binding in _torch_import_bindings(node):
            self.add(name, binding)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        for name, binding in _torch_import_bindings(node):
            self.add(name, binding)

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self.add(node.name, Binding(None))
        for decorator in node.decorator_list:
            self.visit(decorator)
        for default in (*node.args.defaults, *node.args.kw_defaults):
            if default is not None:
                self.visit(default)

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> None:
        self.add(node.name, Binding(None))
        for decorator in node.decorator_list:
            self.visit(decorator)

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.add(node.name, Binding(None))
        for expr in (*node.bases, *node.decorator_list):
            self.visit(expr)

    def visit_Lambda(self, node: ast.Lambda) -> None:
        return

    def visit_ListComp(self, node: ast.ListComp) -> None:
        return

    visit_SetComp = visit_ListComp  # type: ignore[assignment]
    visit_GeneratorExp = visit_ListComp  # type: ignore[assignment]
    visit_DictComp = visit_ListComp  # type: ignore[assignment]

    def visit_Global(self, node: ast.Global) -> None:
        self.globals.update(node.names)

    def visit_Nonlocal(self, node: ast.Nonlocal) -> None:
        self.globals.update(node.names)

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Store | ast.Del):
            self.add(node.id, Binding(None))

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        if node.name:
            self.add(node.name, Binding(None))
        self.generic_visit(node)

    def visit_MatchAs(self, node: ast.MatchAs) -> None:
        if node.name:
            self.add(node.name, Binding(None))
        self.generic_visit(node)

    def visit_MatchStar(self, node: ast.MatchStar) -> None:
        if node.name:
            self.add(node.name, Binding(None))

    def visit_MatchMapping(self, node: ast.MatchMapping) -> None:
        if node.rest:
            self.add(node.rest, Binding(None))
        self.generic_visit(node)


@dataclass(frozen=True)
class Scope:
    """Name resolution for one scope, chained to its enclosing function scopes and the module."""

    table: Mapping[str, str | None]  # local name -> torch path (None: bound, but not to torch)
    parent: Scope | None
    is_class: bool = False

    def resolve_name(self, name: str) -> str | None:
        """The torch path `name` refers to here, or None when it is not (certainly) torch."""
        scope: Scope | None = self
        while scope is not None:
            if name in scope.table:
                return scope.table[name]
            scope = scope.parent
            # Class bodies are not visible from the methods defined inside them.
            while scope is not None and scope.is_class and scope is not self:
                scope = scope.parent
        return None

    def resolve(self, expr: ast.expr) -> str | None:
        """Qualified torch path of a `Name` or dotted `Attribute` chain, if it is one."""
        if isinstance(expr, ast.Name):
            return self.resolve_name(expr.id)
        if isinstance(expr, ast.Attribute):
            base = self.resolve(expr.value)
            return f"{base}.{expr.attr}" if base is not None else None
        return None

    def is_bound_locally(self, name: str) -> bool:
        """True when `name` is bound in this very scope."""
        return name in self.table


def build_scope(node: ScopeNode, parent: Scope | None) -> Scope:
    """Bindings of one scope; a name bound to torch *and* to anything else is ambiguous."""
    collector = _ScopeBindings()
    collector.scan(node)
    table: dict[str, str | None] = {}
    for name, bindings in collector.bindings.items():
        if name in collector.globals:
            continue
        paths = {b.qualified for b in bindings}
        table[name] = paths.pop() if len(paths) == 1 else None
    return Scope(table=table, parent=parent, is_class=isinstance(node, ast.ClassDef))
