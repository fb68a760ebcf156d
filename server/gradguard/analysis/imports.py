"""Resolve local names to torch qualified names through a file's imports.

`import torch as T`, `from torch import no_grad`, `from torch import nn, optim` and
`import torch.nn.functional as F` all become entries of a small table; a name that is also
bound by anything else in the same scope (a parameter called `torch`, a local `def no_grad`)
is ambiguous and resolves to nothing.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

ScopeNode = ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef


# Statements that own nested statement lists (besides functions and classes).
COMPOUND = tuple(
    getattr(ast, name)
    for name in ("If", "For", "AsyncFor", "While", "With", "AsyncWith", "Try", "TryStar", "Match")
    if hasattr(ast, name)
)


@dataclass(frozen=True)
class Binding:
    """How a name is bound in one scope: to a torch path, or to something else (`None`)."""

    qualified: str | None


# Packages whose names resolve to qualified paths: torch, numpy (whose functions turn a
# tensor that requires grad into an array, see `torch_api.NUMPY_CONVERTS`), and the
# libraries of `gradguard.analysis.libraries` (models, plotting, metrics), and `threading`
# (a thread's target is called with grad on, see `gradguard.analysis.threads`).
_LIBRARIES = frozenset(
    {
        "torch",
        "numpy",
        "torchvision",
        "timm",
        "transformers",
        "pytorch_lightning",
        "lightning",
        "matplotlib",
        "accelerate",
        "lightning_fabric",
        "peft",
        "copy",
        "sklearn",
        "math",
        "itertools",
        "collections",
        "tqdm",
        "threading",
    }
)


def is_library(top: str) -> bool:
    """True for the top-level name of a library whose names resolve to qualified paths."""
    return top in _LIBRARIES


def is_torch(qualified: str | None) -> bool:
    """True for `torch` itself and the paths under it (not `torchvision`)."""
    return qualified is not None and (qualified == "torch" or qualified.startswith("torch."))


def _torch_import_bindings(node: ast.Import | ast.ImportFrom) -> Iterable[tuple[str, Binding]]:
    if isinstance(node, ast.Import):
        for alias in node.names:
            top = alias.name.split(".")[0]
            if alias.asname:
                qualified = alias.name if top in _LIBRARIES else None
                yield alias.asname, Binding(qualified)
            else:
                yield top, Binding(top if top in _LIBRARIES else None)
        return
    module = node.module or ""
    top = module.split(".")[0]
    is_torch = node.level == 0 and top in _LIBRARIES
    for alias in node.names:
        if alias.name == "*":
            continue
        local = alias.asname or alias.name
        yield local, Binding(f"{module}.{alias.name}" if is_torch else None)


# The kinds of statement `_ScopeBindings._statements` tells apart, as tuples built once (a
# union written in its loop would be rebuilt for every statement).
_IMPORTS = (ast.Import, ast.ImportFrom)
_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_DECLARATIONS = (ast.Global, ast.Nonlocal)
_ONE_TARGET = (ast.AugAssign, ast.AnnAssign, ast.For, ast.AsyncFor)
_WITHS = (ast.With, ast.AsyncWith)
_TRIES = (ast.Try, getattr(ast, "TryStar", ast.Try))


class _ScopeBindings:
    """Collect the bindings made directly in one scope (not in nested functions/classes).

    Only statements and assignment targets are visited, never whole expressions: that keeps
    the cost proportional to the number of statements. Assignment expressions (`:=`), the one
    binding inside expressions, are supplied by the caller (see `walrus_names`).
    """

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
                return
        self._statements(scope.body)

    def _target(self, target: ast.expr) -> None:
        if isinstance(target, ast.Name):
            self.add(target.id, Binding(None))
        elif isinstance(target, ast.Tuple | ast.List):
            for element in target.elts:
                self._target(element)
        elif isinstance(target, ast.Starred):
            self._target(target.value)

    def _statements(self, body: list[ast.stmt]) -> None:
        stack = list(reversed(body))
        while stack:
            stmt = stack.pop()
            if isinstance(stmt, _IMPORTS):
                for name, binding in _torch_import_bindings(stmt):
                    self.add(name, binding)
                continue
            if isinstance(stmt, _DEFINITIONS):
                self.add(stmt.name, Binding(None))
                continue
            if isinstance(stmt, _DECLARATIONS):
                self.globals.update(stmt.names)
                continue
            if isinstance(stmt, ast.Assign):
                for target in stmt.targets:
                    self._target(target)
            elif isinstance(stmt, _ONE_TARGET):
                self._target(stmt.target)
            elif isinstance(stmt, ast.Delete):
                for target in stmt.targets:
                    self._target(target)
            elif isinstance(stmt, _WITHS):
                for item in stmt.items:
                    if item.optional_vars is not None:
                        self._target(item.optional_vars)
            elif isinstance(stmt, _TRIES):
                for handler in stmt.handlers:
                    if handler.name:
                        self.add(handler.name, Binding(None))
                    stack.extend(reversed(handler.body))
            elif isinstance(stmt, ast.Match):
                for case in stmt.cases:
                    for node in ast.walk(case.pattern):
                        captured = getattr(node, "name", None) or getattr(node, "rest", None)
                        if isinstance(captured, str):
                            self.add(captured, Binding(None))
                    stack.extend(reversed(case.body))
            if isinstance(stmt, COMPOUND):
                for block_name in ("finalbody", "orelse", "body"):
                    block = getattr(stmt, block_name, None)
                    if block:
                        stack.extend(reversed(block))


@dataclass(frozen=True)
class Scope:
    """Name resolution for one scope, chained to its enclosing function scopes and the module."""

    table: Mapping[str, str | None]  # local name -> torch path (None: bound, but not to torch)
    parent: Scope | None
    is_class: bool = False
    counts: Mapping[str, int] | None = None  # how many times each name is bound here

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


_NAME_BEFORE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*$")


# How far before its `:=` a walrus's name is looked for, in characters.
WALRUS_REACH = 80


def walrus_names(text: str) -> frozenset[str]:
    """Names that some `name := value` in the text may bind (a cheap over-approximation)."""
    names: set[str] = set()
    at = text.find(":=")
    while at >= 0:
        match = _NAME_BEFORE.search(text, max(0, at - WALRUS_REACH), at)
        if match:
            names.add(match.group(1))
        at = text.find(":=", at + 2)
    return frozenset(names)


def build_scope(
    node: ScopeNode, parent: Scope | None, *, extra_bound: frozenset[str] = frozenset()
) -> Scope:
    """Bindings of one scope; a name bound to torch *and* to anything else is ambiguous.

    `extra_bound` names count as bound here too (used for `:=` targets, which live inside
    expressions that the collector does not visit).
    """
    collector = _ScopeBindings()
    collector.scan(node)
    for name in extra_bound:
        collector.add(name, Binding(None))
    table: dict[str, str | None] = {}
    for name, bindings in collector.bindings.items():
        if name in collector.globals:
            continue
        paths = {b.qualified for b in bindings}
        table[name] = paths.pop() if len(paths) == 1 else None
    counts = {name: len(bindings) for name, bindings in collector.bindings.items()}
    return Scope(table, parent, isinstance(node, ast.ClassDef), counts)


def torch_alias(tree: ast.Module) -> str | None:
    """The module-level name under which `torch` itself is importable in this file, for fixes
    that must spell `torch.no_grad()` or `torch.float32` (None when there is none)."""
    scope = build_scope(tree, None)
    for stmt in tree.body:
        if isinstance(stmt, ast.Import):
            for alias in stmt.names:
                local = alias.asname or alias.name.split(".")[0]
                imports_torch = alias.name == "torch" or (
                    alias.asname is None and alias.name.startswith("torch.")
                )
                if imports_torch and scope.resolve_name(local) == "torch":
                    return local
    return None
