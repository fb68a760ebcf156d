"""What one file's text and syntax tree say before anything is interpreted.

Every analysis pass over a file (the call-site passes of `gradguard.analysis.model` run the
interpreter up to three times) asks the same questions of the same tree and text: the
scope of each function, the order its functions are analysed in, whether the text may
freeze a parameter or switch a module's mode. None of the answers depends on what a pass
learnt, so they are computed once per check in a `FileSyntax` that the passes share.

The text scans use patterns that start with a literal (`Lazy(?<!\\wLazy)` rather than
`\\bLazy`): a pattern starting with `\\b` makes `re` try a match at every offset of the
text, which on a 5,000-line file cost more than a whole analysis pass.
"""

from __future__ import annotations

import ast
import re
from bisect import bisect_left
from dataclasses import dataclass, field

from gradguard.analysis import historyless_state
from gradguard.analysis import parameters as params
from gradguard.analysis import torch_api as api
from gradguard.analysis.buffer_copies import may_copy_buffers
from gradguard.analysis.command_line import parsed_namespaces
from gradguard.analysis.config_objects import config_instances
from gradguard.analysis.constant_dicts import literal_dicts, unchanged_dicts
from gradguard.analysis.freeze_reach import FreezeReach
from gradguard.analysis.imports import COMPOUND, Scope, ScopeNode, build_scope, walrus_names
from gradguard.analysis.interpreter.call_order import callees_first
from gradguard.analysis.interpreter.statements import is_true
from gradguard.analysis.model import FunctionNode
from gradguard.analysis.names import dotted
from gradguard.analysis.node_cache import last_calls
from gradguard.analysis.settings_classes import settings_classes
from gradguard.analysis.values import Value
from gradguard.analysis.walk import (
    assignment_targets,
    module_nodes_of,
    module_parents,
    own_nodes,
)


class FileSyntax:
    """The interpretation-independent facts of one file (tree and, when known, text)."""

    def __init__(self, tree: ast.Module, text: str | None) -> None:
        self.tree = tree
        self.text = text
        self.walrus = self._walrus_names(tree, text)
        # `from m import *` binds names the environment never sees.
        if text is not None:
            self.star_imports = _STAR_IMPORT.search(text) is not None
        else:
            self.star_imports = _has_star_import(tree)
        # Whether a call of the file's functions may switch the thread's grad mode for good
        # (`call_sites.switches_grad_mode`): only when the text names the switch.
        self.switches_grad_mode = text is None or "set_grad_enabled" in text
        self.functions: list[FunctionNode] = []
        self.declared_global: set[str] = set()
        self.parent_scope: dict[int, ScopeNode] = {}
        self.scopes: dict[int, Scope] = {}
        # Caches of syntactic per-node answers (see `ModuleInterpreter.appended_items`).
        self.appended_lists: dict[int, dict[str, tuple[FunctionNode, ...]]] = {}
        # The text scan is cheap and rules most files out; the tree says which mentions
        # may reach a parameter.
        self.freezes_parameters = text_may_freeze(text) and self._tree_freezes(tree)
        # Certain freezing facts only where nothing in the file may unfreeze a parameter.
        self.frozen_facts = self.freezes_parameters and not self._may_unfreeze(tree, text)
        source = text if text is not None else ast.unparse(tree)
        # Nothing in the file may switch a module out of training mode (`.eval()`,
        # `.train(False)`, `.training = False`): dropout layers certainly run as in training.
        self.always_training = _MODE_CHANGE.search(source) is None
        # Nothing in the file may change torch's default dtype: factories make float32.
        self.default_float32 = _DEFAULT_DTYPE_CHANGE.search(source) is None
        # The file defines an `item` function or method, or imports names it cannot see.
        self.defines_item = self.star_imports or any(p.search(source) for p in _DEFINES_ITEM)
        self._index_scopes(tree)
        self._order: list[FunctionNode] | None = None
        self._backward_lines: list[int] | None = None
        self._star_count: int | None = None
        self._attribute_stores: dict[str, int] | None = None
        self._foreign_stores: dict[str, int] | None = None
        self._sets_any_attribute = False
        self._attribute_names: frozenset[str] | None = None
        self._namespaces: dict[int, Value] | None = None
        self._configs: dict[int, Value] | None = None
        self._class_binds: dict[str, int] | None = None
        self._settings: frozenset[str] | None = None
        self._settings_classes: frozenset[str] | None = None
        self._freeze_reach: FreezeReach | None = None
        self._buffer_copies: bool | None = None
        self._changed_in_place: frozenset[str] | None = None

    def _walrus_names(self, tree: ast.Module, text: str | None) -> frozenset[str]:
        """Names some `name := value` of the file may bind (`walrus_names`)."""
        return walrus_names(text) if text is not None else _walrus_targets(tree)

    def _tree_freezes(self, tree: ast.Module) -> bool:
        """Whether code of the tree may freeze a parameter (`mentions_freezing`)."""
        return mentions_freezing(tree)

    def _may_unfreeze(self, tree: ast.Module, text: str | None) -> bool:
        """Whether code of the file may unfreeze or add a parameter (`may_unfreeze`)."""
        if text is None:
            return params.may_unfreeze(ast.unparse(tree))
        return params.may_unfreeze(text, tree)

    def _index_scopes(self, tree: ast.Module) -> None:
        """Record each function's and class's enclosing scope, visiting statements only."""
        index = index_scopes(tree)
        self.functions = index.functions
        self.parent_scope = index.parent_scope
        self.declared_global = index.declared_global

    def scope_of(self, node: ScopeNode) -> Scope:
        """The name-resolution scope of a module, function or class node."""
        key = id(node)
        if key not in self.scopes:
            parent_node = self.parent_scope.get(key)
            parent = self.scope_of(parent_node) if parent_node is not None else None
            self.scopes[key] = build_scope(node, parent, extra_bound=self.walrus)
        return self.scopes[key]

    def order(self) -> list[FunctionNode]:
        """The file's functions, callees first (see `callees_first`)."""
        if self._order is None:
            self._order = callees_first(self.functions, self.text)
        return self._order

    def star_count(self) -> int:
        """How many `from m import *` the file holds."""
        if self._star_count is None:
            self._star_count = sum(
                1
                for node in module_nodes_of(self.tree, ast.ImportFrom)
                if any(a.name == "*" for a in node.names)
            )
        return self._star_count

    def class_level_binds(self) -> dict[str, int]:
        """How many times class bodies of the file bind each name (`class cfg: lr = 0.1`),
        in any of their blocks (`if DEBUG: lr = 1.0`), as a target or a def."""
        if self._class_binds is None:
            counts: dict[str, int] = {}
            for node in module_nodes_of(self.tree, ast.ClassDef):
                names = [t.id for t in assignment_targets(node.body) if isinstance(t, ast.Name)]
                names += [d.name for d in own_nodes(node.body) if isinstance(d, _DEFINITIONS)]
                for name in names:
                    counts[name] = counts.get(name, 0) + 1
            self._class_binds = counts
        return self._class_binds

    def parsed_namespace(self, call: ast.Call) -> Value | None:
        """What `call`, a `parser.parse_args(...)` or `parser.parse_known_args(...)`, returns
        when certain (see `gradguard.analysis.command_line`)."""
        return self.namespaces().get(id(call))

    def namespaces(self) -> dict[int, Value]:
        """Every certain namespace of the file, by id() of the call that parses it (see
        `parsed_namespace`)."""
        if self._namespaces is None:
            self._namespaces = {}
            if self.text is None or "_args(" in self.text:
                self._namespaces = parsed_namespaces(self.tree, self.attribute_stores())
        return self._namespaces

    def config_instance(self, call: ast.Call) -> Value | None:
        """What the fields of the dataclass instance (or `SimpleNamespace`) `call` builds
        certainly hold (`fields` and `elements`), when nothing may change it (see
        `gradguard.analysis.config_objects`)."""
        return self.config_instances().get(id(call))

    def config_instances(self) -> dict[int, Value]:
        """Every dataclass instance of the file whose fields are certain, by id() of the call
        that builds it (see `config_instance`)."""
        if self._configs is None:
            self._configs = {}
            if self.text is None or "dataclass" in self.text or "SimpleNamespace" in self.text:
                self._configs = config_instances(self.tree, self.attribute_stores())
        return self._configs

    def settings_classes(self) -> frozenset[str]:
        """The module-level classes whose instances hold only settings, by name (see
        `gradguard.analysis.settings_classes`)."""
        if self._settings_classes is None:
            self._settings_classes = settings_classes(self.tree)
        return self._settings_classes

    def mentions_attribute(self, name: str) -> bool:
        """Whether any expression of the file reads, calls or stores `.name`
        (`optimizer.add_param_group(...)` anywhere)."""
        if self._attribute_names is None:
            attributes = module_nodes_of(self.tree, ast.Attribute)
            self._attribute_names = frozenset(node.attr for node in attributes)
        return name in self._attribute_names

    def attribute_stores(self) -> dict[str, int]:
        """How many times the file stores into or deletes each attribute name (`x.a = ...`,
        `del x.a`, any receiver); every name counts twice when the file calls `setattr` or
        `delattr`, which may bind any of them."""
        if self._attribute_stores is None:
            self._count_attribute_stores()
        assert self._attribute_stores is not None
        return self._attribute_stores

    def foreign_attribute_stores(self) -> dict[str, int]:
        """The same count (see `attribute_stores`) without the stores into `self.<attr>`:
        how often code may set an attribute of an object from outside its methods."""
        if self._foreign_stores is None:
            self._count_attribute_stores()
        assert self._foreign_stores is not None
        return self._foreign_stores

    def _count_attribute_stores(self) -> None:
        counts: dict[str, int] = {}
        foreign: dict[str, int] = {}
        dynamic = False
        for node in module_nodes_of(self.tree, ast.Attribute, ast.Name):
            if isinstance(node, ast.Attribute) and not isinstance(node.ctx, ast.Load):
                counts[node.attr] = counts.get(node.attr, 0) + 1
                if not (isinstance(node.value, ast.Name) and node.value.id == "self"):
                    foreign[node.attr] = foreign.get(node.attr, 0) + 1
            elif isinstance(node, ast.Name) and node.id in ("setattr", "delattr"):
                dynamic = True
        self._attribute_stores = {a: 2 for a in counts} if dynamic else counts
        self._foreign_stores = {a: 2 for a in counts} if dynamic else foreign
        self._sets_any_attribute = dynamic

    def outside_freezes(self, attribute: str) -> bool:
        """Whether no freeze of the file can reach the module held at `.attribute` (see
        `gradguard.analysis.freeze_reach`); asked only of files that freeze something."""
        if self._freeze_reach is None:
            self._freeze_reach = FreezeReach(self.tree, self.scope_of(self.tree).resolve)
        return self._freeze_reach.outside(attribute)

    def changed_in_place(self) -> frozenset[str]:
        """The attribute names whose tensors code of the file may change in place (see
        `gradguard.analysis.historyless_state.changed_in_place`)."""
        if self._changed_in_place is None:
            resolve = self.scope_of(self.tree).resolve
            self._changed_in_place = historyless_state.changed_in_place(self.tree, resolve)
        return self._changed_in_place

    def may_copy_buffers(self) -> bool:
        """Whether code of the file may replace a module's buffers by copies (a module
        cast, a deep copy: see `gradguard.analysis.buffer_copies`)."""
        if self._buffer_copies is None:
            self._buffer_copies = may_copy_buffers(self.tree)
        return self._buffer_copies

    def may_store_attribute(self, name: str) -> bool:
        """Whether the file may store into or delete `.name` of some object: it does so by
        name, or calls `setattr`/`delattr`, which may bind any name."""
        stores = self.attribute_stores()
        return name in stores or self._sets_any_attribute

    def unchanged_dicts(self) -> frozenset[str]:
        """Module-level dicts of literals nothing in the file may change (see
        `gradguard.analysis.constant_dicts`); computed once, only for files that have one."""
        if self._settings is None:
            self._settings = unchanged_dicts(self.tree, literal_dicts(self.tree))
        return self._settings

    def may_call_backward(self, node: FunctionNode | ast.Module) -> bool:
        """Whether `.backward(` may appear in the node's lines (True without the text)."""
        if self.text is None:
            return True
        if self._backward_lines is None:
            self._backward_lines = _lines_holding(self.text, ".backward(")
        if isinstance(node, ast.Module):
            return bool(self._backward_lines)
        end = node.end_lineno or node.lineno
        # The first line holding it at or after the function's start (the lines are sorted).
        at = bisect_left(self._backward_lines, node.lineno)
        return at < len(self._backward_lines) and self._backward_lines[at] <= end


# `def item(` or `item =` (each starting at a word boundary).
# Two patterns, each starting with its literal: one alternation of both would be tried at
# every offset of the text.
_DEFINES_ITEM = (re.compile(r"def(?<!\wdef)\s+item\s*\("), re.compile(r"item(?<!\witem)\s*="))
_MODE_CHANGE = re.compile(r"\.(?:eval|train)\s*\(|\.training\b")
# What may change the dtype torch's factories default to.
_DEFAULT_DTYPE_CHANGE = re.compile(r"set_default_(?:dtype|tensor_type)\b")


def _lines_holding(text: str, needle: str) -> list[int]:
    """1-based numbers of the lines holding `needle` (a plain substring)."""
    lines: list[int] = []
    at = text.find(needle)
    while at >= 0:
        lines.append(text.count("\n", 0, at) + 1)
        at = text.find(needle, at + len(needle))
    return lines


@dataclass
class ScopeIndex:
    """Each function of a tree in statement order, the scope each function and class is
    defined in (by id()), and the names declared `global` anywhere."""

    functions: list[FunctionNode] = field(default_factory=list)
    parent_scope: dict[int, ScopeNode] = field(default_factory=dict)
    declared_global: set[str] = field(default_factory=set)


def index_scopes(tree: ast.Module) -> ScopeIndex:
    """The scope index of a module, visiting statements only."""
    index = ScopeIndex()
    stack: list[tuple[ast.stmt, ScopeNode]] = [(stmt, tree) for stmt in reversed(tree.body)]
    while stack:
        stmt, owner = stack.pop()
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            index.parent_scope[id(stmt)] = owner
            if not isinstance(stmt, ast.ClassDef):
                index.functions.append(stmt)
            stack.extend((child, stmt) for child in reversed(stmt.body))
            continue
        if isinstance(stmt, ast.Global):
            index.declared_global.update(stmt.names)
        if not isinstance(stmt, COMPOUND):
            continue
        for name in ("finalbody", "orelse", "body"):
            block = getattr(stmt, name, None)
            if block:
                stack.extend((child, owner) for child in reversed(block))
        for handler in getattr(stmt, "handlers", ()):
            stack.extend((child, owner) for child in reversed(handler.body))
        for case in getattr(stmt, "cases", ()):
            stack.extend((child, owner) for child in reversed(case.body))
    return index


# `x.requires_grad = <anything but True>` or `x.requires_grad_(<anything but True>)`.
_FREEZING = re.compile(
    r"requires_grad(?:(?<=\.requires_grad)\s*=(?!=)(?!\s*True\b)|_\((?!\s*\)|\s*True\b))"
)


def text_may_freeze(text: str | None) -> bool:
    """Whether the text may freeze a parameter (True without the text): the cheap test that
    rules most files out before the tree is asked (`mentions_freezing`)."""
    return text is None or _text_may_freeze(text)


@last_calls(2)
def _text_may_freeze(text: str) -> bool:
    """Kept for the last two texts: an edit asks of the old text and of the new one."""
    return _FREEZING.search(text) is not None or "detach_(" in text


def mentions_freezing(tree: ast.Module) -> bool:
    """True when the file may freeze parameters (`requires_grad = False`,
    `requires_grad_(False)`, `p.detach_()` in a loop over `.parameters()`): a module call's
    output is then tracked only if its input is.
    A freeze of a tensor its function made itself (`_fresh_tensors`) reaches no parameter."""
    parents = module_parents(tree)
    fresh: dict[int, frozenset[str]] = {}
    # What `_frozen_object` and `detaches_parameters` read.
    for node in module_nodes_of(tree, ast.Assign, ast.Call, ast.For, ast.AsyncFor):
        if isinstance(node, ast.For | ast.AsyncFor) and params.detaches_parameters(node):
            return True
        frozen = _frozen_object(node)
        if frozen is None:
            continue
        if not isinstance(frozen, ast.Name):
            return True
        scope = parents.get(id(node))
        while scope is not None and not isinstance(scope, _SCOPES):
            scope = parents.get(id(scope))
        if not isinstance(scope, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef):
            return True  # a lambda's or a class body's name: not followed
        if id(scope) not in fresh:
            fresh[id(scope)] = _fresh_tensors(list(own_nodes(scope.body)))
        if frozen.id not in fresh[id(scope)]:
            return True
    return False


_SCOPES = (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _frozen_object(node: ast.AST) -> ast.expr | None:
    """The object whose `requires_grad` `node` may turn off (`x` of `x.requires_grad =
    False` or `x.requires_grad_(flag)`), or None when `node` turns nothing off."""
    if isinstance(node, ast.Assign) and not is_true(node.value):
        for target in node.targets:
            if isinstance(target, ast.Attribute) and target.attr == "requires_grad":
                return target.value
    elif (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "requires_grad_"
        and node.args
        and not is_true(node.args[0])
    ):
        return node.func.value
    return None


def _fresh_tensors(nodes: list[ast.AST]) -> frozenset[str]:
    """Names a block binds exactly once, to a tensor its own code creates: arithmetic
    (`target = r + gamma * next_q`) or a torch factory (`mask = torch.zeros(n)`). Such a
    tensor is never a module's parameter, so turning off its `requires_grad` freezes
    nothing a module computes with."""
    bound: dict[str, int] = {}
    fresh: set[str] = set()
    for node in nodes:
        for name in _bound_names(node):
            bound[name] = bound.get(name, 0) + 1
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and _creates_tensor(node.value)
        ):
            fresh.add(node.targets[0].id)
    return frozenset(name for name in fresh if bound.get(name) == 1)


def _bound_names(node: ast.AST) -> list[str]:
    """Names `node` binds, as far as the freeze question needs: stores, deletions and
    `global`/`nonlocal` declarations (a declared name may be bound elsewhere)."""
    if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
        return [node.id]
    if isinstance(node, ast.Global | ast.Nonlocal):
        return [*node.names, *node.names]  # counted twice: never "bound exactly once"
    if isinstance(node, ast.arg):
        return [node.arg]
    return []


def _creates_tensor(value: ast.expr) -> bool:
    """Arithmetic, a call of a `torch.<factory>` by its plain dotted name, or a tensor's
    `.detach()` / `.clone()` (a new tensor object even when it shares a parameter's data)."""
    if isinstance(value, ast.BinOp | ast.UnaryOp):
        return True
    if not isinstance(value, ast.Call):
        return False
    func = value.func
    if isinstance(func, ast.Attribute) and func.attr in ("detach", "clone"):
        return not value.args and not value.keywords
    return dotted(func) in api.FACTORIES


def _walrus_targets(tree: ast.Module) -> frozenset[str]:
    return frozenset(
        node.target.id
        for node in module_nodes_of(tree, ast.NamedExpr)
        if isinstance(node.target, ast.Name)
    )


# `import *` (at a word boundary).
_STAR_IMPORT = re.compile(r"import(?<!\wimport)\s+\*")


def _has_star_import(tree: ast.Module) -> bool:
    return any(
        any(alias.name == "*" for alias in node.names)
        for node in module_nodes_of(tree, ast.ImportFrom)
    )
