"""Fresh leaves a function of the file reads through a module global.

`def reset_grad(): for p in params: p.grad.data.zero_()`, with `params` bound once at
module level to a container of fresh leaves (`params = G_params + D_params`, the parameters
of modules built there), reads `params` as it is when the function runs: a global is not
handed down, so `handed_leaves` (which follows parameters) does not see it. The read fails
on None, certainly, when:

* the function is a module-level `def` no assignment rebinds, its read reached from its
  first statement with nothing on the way that may run backward (`unfilled_grads` path
  rules, the first iteration of a loop included), and the name it reads is a global of it:
  the only loop binding the read name walks the container (`leaf_containers.loop_container`)
  and the function never binds the container's name;
* the container's name is bound once in the whole file, at module level, to a container of
  fresh leaves (`Paths.fresh_container`), no `global` statement names it, and nothing in the
  file may change which element comes first (`leaf_containers.changed_in`);
* some call of the function runs before any backward since that creation: a module-level
  statement after the creation calls it (or calls, by a plain name, a module-level function
  reaching such a call from its entry, up to four calls deep), and the way from the
  creation to that statement, and from each function's entry to its call, may run no
  backward. A `try` whose body holds the module-level call does not stop the way
  (`Paths.clean_until` with `calling`): the read runs, and fails, inside the call.

That chain runs the read before any backward could fill the gradients: one certain run is
enough, whatever other calls of the function do later (a `reset_grad()` after backward is
fine; the one at the top of the first iteration is not). Anything else stays unknown.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from gradguard.analysis.events import GradRead
from gradguard.analysis.leaf_containers import changed_in, loop_container
from gradguard.analysis.model import LoopNode
from gradguard.analysis.names import parameter_names
from gradguard.analysis.unfilled_grads import binds, scope_nodes
from gradguard.analysis.walk import module_nodes_of

if TYPE_CHECKING:
    from gradguard.analysis.unfilled_grads import Paths

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef
Found = tuple[ast.stmt, str, LoopNode | None]
_DEPTH = 4  # how many callers up the first call is followed


class GlobalLeaves:
    """Creation points of `.grad` reads of the leaves a module global holds (module docs)."""

    def __init__(self, paths: Paths) -> None:
        self.paths = paths
        self._calls: dict[str, list[ast.Call]] | None = None

    def creation(self, use: GradRead) -> Found | None:
        """The creation of the container whose first leaf `use` reads, when a call of the
        read's function certainly runs before any backward since then, and the loop whose
        first iteration that relies on (the innermost)."""
        function = self.paths.scope_of(use.stmt)
        if not self._module_function(function):
            return None
        assert isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef)
        name = _global_container(function, use.target)
        if name is None or not self._global_once(name):
            return None
        clean, loop = self.paths.clean_from_entry(function, use.stmt, use.node)
        if not clean:
            return None
        found = self._first_call(function, name, 0)
        if found is None:
            return None
        return found[0], found[1], loop or found[2]

    def _module_function(self, node: ast.AST) -> bool:
        """A `def` of the module body, the only one of its name, never rebound."""
        return (
            isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            and self.paths.local.get(node.name) is node
            and node.name not in self.paths.rebound
        )

    def _global_once(self, name: str) -> bool:
        """`name` is bound once in the whole file, at module level (no `global` statement,
        no binding in any function), and nothing in the file changes its first element."""
        tree = self.paths.analysis.tree
        everywhere = list(ast.walk(tree))
        if sum(1 for node in everywhere if binds(node, name)) != 1:
            return False
        if not any(binds(node, name) for node in scope_nodes(tree)):
            return False
        return not changed_in(everywhere, name)

    def _first_call(self, function: FunctionNode, name: str, depth: int) -> Found | None:
        """A call of `function` run before any backward since the creation of the global
        `name`: at module level after it, or from the entry of a function so called."""
        if depth >= _DEPTH:
            return None
        tree = self.paths.analysis.tree
        for call in self._calls_of(function.name):
            stmt = self.paths.statement_of(call)
            if stmt is None:
                continue
            scope = self.paths.scope_of(stmt)
            if scope is tree:
                made = self.paths.fresh_container(name, stmt)
                if made is None or made[0].lineno > stmt.lineno:
                    continue
                clean, loop = self.paths.clean_until(made[0], stmt, call, calling=True)
                if clean:
                    return made[0], made[1], loop
                continue
            if not self._module_function(scope):
                continue
            assert isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef)
            if function.name in parameter_names(scope) or any(
                binds(node, function.name) for node in scope_nodes(scope)
            ):
                continue  # the name means something else there
            clean, loop = self.paths.clean_from_entry(scope, stmt, call)
            if not clean:
                continue
            found = self._first_call(scope, name, depth + 1)
            if found is not None:
                return found[0], found[1], loop or found[2]
        return None

    def _calls_of(self, name: str) -> list[ast.Call]:
        """Calls of the plain name `name` without arguments spread (`f()`, `f(x)`)."""
        if self._calls is None:
            self._calls = {}
            for call in module_nodes_of(self.paths.analysis.tree, ast.Call):
                if isinstance(call.func, ast.Name):
                    self._calls.setdefault(call.func.id, []).append(call)
        return self._calls.get(name, [])


def _global_container(function: FunctionNode, target: ast.expr) -> str | None:
    """The global name whose container the only loop binding `target` in `function` walks
    (`for p in params`), when the function binds neither that name nor (elsewhere) `target`."""
    if not isinstance(target, ast.Name):
        return None
    nodes = list(scope_nodes(function))
    bindings = [node for node in nodes if binds(node, target.id)]
    loops = [node for node in nodes if isinstance(node, ast.For) and node.target in bindings]
    if len(bindings) != 1 or len(loops) != 1:
        return None
    container = loop_container(loops[0], target.id)
    if not isinstance(container, ast.Name):
        return None
    if container.id in parameter_names(function) or any(
        binds(node, container.id) for node in nodes
    ):
        return None
    return container.id
