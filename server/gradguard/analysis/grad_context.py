"""Where a function's code runs: the grad mode its callers enter it with, and which functions
of the file can reach it or be reached from it.

The dataflow pass starts every function with gradient recording on. Rules about code that is
wrong only *because* recording is on (an evaluation loop that keeps graphs, an inference
tensor used in a graph) need more: every call of the function in this file must be made with
recording on. Everything here is syntactic and conservative: a reference to the function
that is not a plain call (a callback, `functools.partial`), a caller inside any grad-mode
`with` block or decorator, or a caller that switches modes with `set_grad_enabled` makes the
answer "unknown", and unknown is never "on". The target of a `threading.Thread` is called
by the new thread, which starts with recording on whatever the mode of its starter
(`gradguard.analysis.threads`). A function another file of the project may call, by name,
with recording off (`gradguard.project.grad_off_calls`) is not certainly entered with
recording on, whatever this file's calls say.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from functools import cached_property

from gradguard.analysis.events import Event, ForwardCall, ModuleModeCall
from gradguard.analysis.model import FunctionNode
from gradguard.analysis.node_cache import cached_by_node
from gradguard.analysis.threads import thread_target
from gradguard.analysis.values.vocabulary import ModuleRef
from gradguard.analysis.walk import module_nodes_of, module_parents, own_nodes, walk

# Context managers and decorators that change the grad mode or inference mode (matched by
# their last name, so an alias the import table cannot resolve still counts).
_MODE_NAMES = frozenset(
    {"no_grad", "enable_grad", "inference_mode", "set_grad_enabled", "grad_mode"}
)
# How many callers deep the search for a grad-mode switch goes before giving up.
_DEPTH = 4


# Bases whose methods only user code calls (with whatever grad mode it runs in).
_PLAIN_BASES = frozenset({"object", "nn.Module", "torch.nn.Module", "Module"})


def _last_name(expr: ast.expr) -> str | None:
    if isinstance(expr, ast.Call):
        expr = expr.func
    if isinstance(expr, ast.Attribute):
        return expr.attr
    if isinstance(expr, ast.Name):
        return expr.id
    return None


def _switches_mode(expr: ast.expr) -> bool:
    return _last_name(expr) in _MODE_NAMES


def modes_switched_only_in(tree: ast.Module, function: FunctionNode) -> bool:
    """Whether every mention of a grad-mode switch in the file (`no_grad`, `inference_mode`,
    `set_grad_enabled`..., by last name: a `with` block, a decorator, a call) lies in
    `function`'s own code. Then whatever calls it in this file, also `model(x)` running a
    `forward`, calls it with recording on: its run decides its grad mode by itself."""
    mentions = _mode_mentions(tree)
    if not mentions:
        return True
    inside = {(n.lineno, n.col_offset) for n in walk(function) if isinstance(n, _MENTIONS)}
    return inside.issuperset(mentions)


@cached_by_node
def _mode_mentions(tree: ast.Module) -> frozenset[tuple[int, int]]:
    """Where (line, column) the tree names a grad-mode switch (`_MODE_NAMES`, as a name or
    an attribute): positions, not nodes, so an edit of one function that keeps its own
    mentions where they were keeps the answer (`gradguard.analysis.incremental` compares it
    on the edited function's part)."""
    return frozenset(
        (node.lineno, node.col_offset)
        for kind in _MENTIONS
        for node in module_nodes_of(tree, kind)
        if _mentioned(node) in _MODE_NAMES
    )


def _mentioned(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    return node.attr if isinstance(node, ast.Attribute) else None


_MENTIONS = (ast.Name, ast.Attribute)


class GradContext:
    """Call sites, callers and grad-mode regions of one module's functions."""

    def __init__(
        self,
        tree: ast.Module,
        events: Iterable[Event] = (),
        called_off_elsewhere: frozenset[str] = frozenset(),
    ) -> None:
        """`events`: what the interpreter recorded; the method calls on a known module
        (`self.model.train()`, `net.forward(x)`) tell which calls cannot run a method of
        a class of the file (see `call_sites`). `called_off_elsewhere`: the names other
        files of the project may call with recording off (`ModuleAnalysis`)."""
        self.tree = tree
        self.called_off_elsewhere = called_off_elsewhere
        # id(call) -> the module `receiver.method(...)` was called on.
        self.receivers: dict[int, ModuleRef] = {
            id(event.node): event.value.module
            for event in events
            if isinstance(event, ModuleModeCall | ForwardCall) and event.value.module is not None
        }
        self.parents: dict[int, ast.AST] = module_parents(tree)  # shared: read only
        self.functions: dict[str, list[FunctionNode]] = {}
        self.classes: dict[str, ast.ClassDef] = {
            n.name: n for n in tree.body if isinstance(n, ast.ClassDef)
        }
        for node in module_nodes_of(tree, ast.FunctionDef, ast.AsyncFunctionDef):
            self.functions.setdefault(node.name, []).append(node)

    @cached_property
    def references(self) -> dict[str, list[ast.expr]]:
        """Name -> the loaded `Name` / `Attribute` nodes that mention it (indexed when first
        asked: a third of a module's nodes, and most checks never ask)."""
        found: dict[str, list[ast.expr]] = {}
        for node in module_nodes_of(self.tree, ast.Name, ast.Attribute):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                found.setdefault(node.id, []).append(node)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
                found.setdefault(node.attr, []).append(node)
        return found

    def ancestors(self, node: ast.AST) -> Iterator[ast.AST]:
        """The nodes enclosing `node`, innermost first."""
        parent = self.parents.get(id(node))
        while parent is not None:
            yield parent
            parent = self.parents.get(id(parent))

    def enclosing_function(self, node: ast.AST) -> FunctionNode | None:
        """The innermost function around `node`; None for the module body."""
        for parent in self.ancestors(node):
            if isinstance(parent, ast.FunctionDef | ast.AsyncFunctionDef):
                return parent
        return None

    def in_mode_region(self, node: ast.AST) -> bool:
        """True when `node` sits inside a grad-mode `with` block of its own function, or its
        function is decorated with a grad-mode switch or calls `set_grad_enabled` itself."""
        for parent in self.ancestors(node):
            if isinstance(parent, ast.With | ast.AsyncWith) and any(
                _switches_mode(item.context_expr) for item in parent.items
            ):
                return True
            if isinstance(parent, ast.FunctionDef | ast.AsyncFunctionDef):
                return self._switches_inside(parent)
        return self._switches_inside(self.tree)

    def _switches_inside(self, scope: FunctionNode | ast.Module) -> bool:
        if isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef) and any(
            _switches_mode(d) for d in scope.decorator_list
        ):
            return True
        for node in own_nodes(scope.body):
            if isinstance(node, ast.Call) and _last_name(node.func) == "set_grad_enabled":
                return True
        return False

    def defined_once(self, name: str | None) -> FunctionNode | None:
        """The function or method the file defines under `name`, when it defines exactly
        one: what a call of that name (`f(x)`, `self.helper()`) runs, in view."""
        found = self.functions.get(name, []) if name is not None else []
        return found[0] if len(found) == 1 else None

    def call_sites(self, function: FunctionNode) -> list[ast.Call] | None:
        """Every call in the file that may run `function`: the calls of its name (a method's
        calls by attribute name, so the calls of other functions or methods of the same name
        are among them), or None when the name is also used another way (passed as a
        callback, rebound). A method call on a module the analysis knows to be no instance of
        the method's class (`self.model.train()`, `self.model` an `nn.Linear` or another
        class of the file) is left out: Python looks the name up on that module's class."""
        name = function.name
        owner = self.parents.get(id(function))
        calls: list[ast.Call] = []
        for reference in self.references.get(name, []):
            parent = self.thread_of(reference) or self.parents.get(id(reference))
            if not isinstance(parent, ast.Call):
                return None
            if parent.func is not reference and thread_target(parent) is not reference:
                return None
            module = self.receivers.get(id(parent))
            if (
                isinstance(owner, ast.ClassDef)
                and module is not None
                and not self._may_be_instance(module, owner)
            ):
                continue
            calls.append(parent)
        return calls

    def thread_of(self, reference: ast.expr) -> ast.Call | None:
        """The `threading.Thread(target=reference, ...)` call starting a thread that runs
        `reference` (see `gradguard.analysis.threads`), when the file defines no `Thread`
        of its own; None for any other mention."""
        keyword = self.parents.get(id(reference))
        call = self.parents.get(id(keyword)) if isinstance(keyword, ast.keyword) else None
        if not isinstance(call, ast.Call) or thread_target(call) is not reference:
            return None
        if "Thread" in self.functions or "Thread" in self.classes:
            return None
        return call

    def _may_be_instance(self, module: ModuleRef, owner: ast.ClassDef) -> bool:
        """Whether a module may be an instance of `owner`, a class of the file: unless the
        analysis knows its class, and that class is a torch or library class (never a class
        of this file) or a class of the file that neither inherits from `owner` nor is
        inherited by it (a module known only by use, `model.eval()` on a parameter, may be
        anything)."""
        if module.local is not None:
            built = module.local.node
            return built is owner or self._inherits(built, owner) or self._inherits(owner, built)
        return module.qualified is None

    def _inherits(self, child: ast.ClassDef, parent: ast.ClassDef) -> bool:
        """Whether `parent` is among the bases of `child`'s hierarchy, through the classes of
        the file (by name, as `_plain_class` reads them)."""
        seen: list[ast.ClassDef] = []
        pending = [child]
        while pending:  # each class of the file is visited once
            current = pending.pop()
            for base in current.bases:
                local = self.classes.get(ast.unparse(base))
                if local is parent:
                    return True
                if local is not None and local not in seen:
                    seen.append(local)
                    pending.append(local)
        return False

    def entered_with_grad_on(self, function: FunctionNode | None, depth: int = 0) -> bool:
        """True when every run of `function` starts with gradient recording certainly on:
        the module body, a function called in this file only from such places, or a plain
        function of the module that nothing in this file names (`def evaluate(model,
        loader)`, the entry point other code calls; see `uncalled_entry_point`)."""
        if function is None:
            return not self._switches_inside(self.tree)
        if depth > _DEPTH or any(_switches_mode(d) for d in function.decorator_list):
            return False
        if self.called_elsewhere_without_grad(function):
            return False
        sites = self.call_sites(function)
        if sites == []:
            return self.uncalled_entry_point(function)
        if not sites:
            return False  # passed as a callback, or rebound: who calls it is unknown
        for call in sites:
            if thread_target(call) is not None and function.name != "Thread":
                continue  # a new thread starts with grad on, whatever its starter's mode
            if self.in_mode_region(call):
                return False
            caller = self.enclosing_function(call)
            if caller is function:
                continue  # a call from inside (recursion, or another `step`): the same mode
            if not self.entered_with_grad_on(caller, depth + 1):
                return False
        return True

    def uncalled_entry_point(self, function: FunctionNode) -> bool:
        """An undecorated function of the module, or method of one of its plain classes,
        that nothing in this file names.

        Code in another file calls it the way one calls any function: with gradient
        recording on (the default), unless that caller switches it off around the call,
        which GradGuard cannot see. Methods of classes built on a base the file does not
        define (a framework calls `LightningModule.validation_step` under no_grad), dunder
        methods, decorated functions (handlers registered with a framework) and nested
        functions stay unknown.
        """
        if function.decorator_list or self.call_sites(function) != []:
            return False
        if self.called_elsewhere_without_grad(function):
            return False
        parent = self.parents.get(id(function))
        if isinstance(parent, ast.Module):
            return True
        return (
            isinstance(parent, ast.ClassDef)
            and not function.name.startswith("__")
            and self._plain_class(parent, depth=0)
        )

    def called_elsewhere_without_grad(self, function: FunctionNode) -> bool:
        """Whether another file of the project may call `function` with recording off: a
        module-level function or a method of a module-level class whose name that file calls
        in a grad-off region (`gradguard.project.grad_off_calls`)."""
        if function.name not in self.called_off_elsewhere:
            return False
        parent = self.parents.get(id(function))
        if isinstance(parent, ast.ClassDef):
            parent = self.parents.get(id(parent))
        return isinstance(parent, ast.Module)

    def _plain_class(self, node: ast.ClassDef, depth: int) -> bool:
        """A module-level class whose bases are `object`, `nn.Module` or plain classes of
        this file: nothing but user code calls its methods."""
        if depth > _DEPTH or not isinstance(self.parents.get(id(node)), ast.Module):
            return False
        if node.keywords:  # a metaclass may wrap the methods
            return False
        for base in node.bases:
            text = ast.unparse(base)
            if text in _PLAIN_BASES:
                continue
            local = self.classes.get(text)
            if local is None or not self._plain_class(local, depth + 1):
                return False
        return True

    def callers(self, function: FunctionNode) -> set[FunctionNode | None] | None:
        """Functions (None: the module body) that may call `function`, directly or through
        other functions of the file; None when that cannot be told."""
        found: set[FunctionNode | None] = set()
        pending: list[FunctionNode] = [function]
        seen: set[int] = set()
        while pending:
            current = pending.pop()
            if id(current) in seen:
                continue
            seen.add(id(current))
            sites = self.call_sites(current)
            if sites is None:
                return None
            for call in sites:
                caller = self.enclosing_function(call)
                found.add(caller)
                if caller is not None:
                    pending.append(caller)
        return found

    def handed_results(
        self, scope: FunctionNode | None, function: FunctionNode
    ) -> set[FunctionNode] | None:
        """Functions of this file to which `scope` (None: the module body) may hand what
        `function` returned: called with an argument that mentions the call or a name bound
        from it (flow-insensitively, through any chain of assignments). None when a result
        may reach shared state (an attribute, a subscript, a global), where anything reads it."""
        body = list(own_nodes((scope if scope is not None else self.tree).body))
        tainted: set[str] = set()

        def carries(expr: ast.AST) -> bool:
            for node in ast.walk(expr):
                if isinstance(node, ast.Call) and _last_name(node.func) == function.name:
                    return True
                if isinstance(node, ast.Name) and node.id in tainted:
                    return True
            return False

        changed = True
        while changed:
            changed = False
            for node in body:
                targets: list[ast.expr] = []
                value: ast.expr | None = None
                if isinstance(node, ast.Assign):
                    targets, value = list(node.targets), node.value
                elif isinstance(node, ast.AugAssign | ast.AnnAssign | ast.NamedExpr):
                    targets, value = [node.target], node.value
                elif isinstance(node, ast.For | ast.AsyncFor):
                    targets, value = [node.target], node.iter
                if value is None or not carries(value):
                    continue
                for target in targets:
                    for name in ast.walk(target):
                        if isinstance(name, ast.Attribute | ast.Subscript):
                            return None
                        if isinstance(name, ast.Name) and name.id not in tainted:
                            tainted.add(name.id)
                            changed = True
        found: set[FunctionNode] = set()
        for node in body:
            if isinstance(node, ast.Call) and _last_name(node.func) != function.name:
                arguments = [*node.args, *(k.value for k in node.keywords)]
                if any(carries(argument) for argument in arguments):
                    found.update(self.functions.get(_last_name(node.func) or "", []))
        return found

    def callees(self, function: FunctionNode | None) -> set[FunctionNode]:
        """Functions of this file that `function` (None: the module body) may call, directly
        or indirectly, matched by name."""
        found: set[FunctionNode] = set()
        pending: list[FunctionNode | ast.Module] = [function if function is not None else self.tree]
        while pending:
            current = pending.pop()
            for node in own_nodes(current.body):
                if isinstance(node, ast.Call):
                    name = _last_name(node.func)
                    for callee in self.functions.get(name or "", []):
                        if callee not in found:
                            found.add(callee)
                            pending.append(callee)
        return found
