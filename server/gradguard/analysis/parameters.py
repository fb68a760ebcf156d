"""Facts about whose parameters train: frozen modules and optimizers built on a module.

Two facts ride on abstract values of the dataflow pass (see `Value.frozen` and
`Value.optimizes`):

* a module every one of whose parameters was set `requires_grad = False` (`Freeze`): its
  outputs on inputs that do not require grad have no history;
* an optimizer built from `model.parameters()` (`OptimizedParameters`), and the statement
  that later gave the model parameters this optimizer does not hold (`Replacement`).

This module holds the pure, syntactic parts: which statements freeze, which classes own every
parameter their outputs depend on, which files may unfreeze something behind the analysis'
back. The dataflow pass applies them; rules read the results.
"""

from __future__ import annotations

import ast
import builtins
import re
from bisect import bisect_right
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gradguard.analysis import layer_lists, libraries, unfreeze_loops
from gradguard.analysis import torch_api as api
from gradguard.analysis.names import (
    callee_name,
    dotted,
    kept_parameters,
    local_binding_counts,
    parameter_names,
)
from gradguard.analysis.node_cache import cached_by_node
from gradguard.analysis.walk import module_nodes_of, own_nodes

if TYPE_CHECKING:
    from gradguard.analysis.values import ClassInfo, ModuleRef


@dataclass(frozen=True, eq=False)
class Freeze:
    """Where every parameter of a module was frozen: the `for` loop over `.parameters()` or
    the `model.requires_grad_(False)` call. Identity is the fact: joins keep it only when
    both paths froze the module at the same place."""

    node: ast.AST
    stmt: ast.stmt
    key: str  # the module as written: "model"
    description: str  # "for p in model.parameters(): p.requires_grad = False"


@dataclass(frozen=True, eq=False)
class Replacement:
    """A statement that gave a module parameters an existing optimizer does not hold."""

    stmt: ast.stmt
    target: ast.expr  # `model.fc`, `model[-1]` or `model`
    module: ModuleRef  # the module whose forward now runs the new parameters
    rebound: bool  # the optimized module itself was re-bound (`model = Net()`)
    # The statement that replaced it inside a function called at `stmt` (`load(model)`
    # setting `model.fc`), when the replacement was made there.
    through: ast.stmt | None = None
    # The replacement is a fresh `nn.Parameter(...)`, not a module.
    new_parameter: bool = False


@dataclass(frozen=True, eq=False)
class ReplacedAttribute:
    """`<parameter>.<attr> = <new module>` (or `<parameter>[i] = ...`) in a function: the
    caller's argument gets the new module's parameters (see
    `FunctionSummary.replaced_attributes`)."""

    stmt: ast.stmt
    target: ast.Attribute | ast.Subscript
    module: ModuleRef  # the new module
    # The submodules between the parameter and the object whose attribute was set, when a
    # method of a submodule set it (`model.q1.reset_scale()` in `def init(model)`: `("q1",)`).
    via: tuple[str, ...] = ()


@dataclass(frozen=True, eq=False)
class OptimizedParameters:
    """An optimizer built from `<key>.parameters()` of a known module instance; `others`
    are the further modules, by key, whose parameters it was built on too (`Adam(list(E.
    parameters()) + list(G.parameters()))`, `itertools.chain(...)`, `[*E.parameters(),
    *G.parameters()]`). A fact that reasons about the one module an optimizer holds must
    leave an optimizer with `others` alone."""

    call: ast.Call
    stmt: ast.stmt
    key: str
    module: ModuleRef
    stale: Replacement | None = None
    others: tuple[tuple[str, ModuleRef], ...] = ()

    def holds(self, key: str, module: ModuleRef) -> bool:
        """Whether the optimizer was built on the parameters of `module` held at `key`."""
        return (key == self.key and module == self.module) or (key, module) in self.others

    def holds_layer(self, key: str, layer: ModuleRef) -> bool:
        """Whether the optimizer was built on the parameters of the module held at `key`
        (`self.model.trunk`), a module of the same class as `layer`: the layer a module
        class of the file keeps, as two reads of the class may know it (one with the sizes
        its constructor learnt, one without)."""
        return any(
            held_key == key
            and held.qualified == layer.qualified
            and (held.local.node if held.local else None)
            is (layer.local.node if layer.local else None)
            for held_key, held in ((self.key, self.module), *self.others)
        )


# Text that may make a parameter require grad again, or add one, anywhere in the file:
# `x.requires_grad = <not False>`, `requires_grad=<not False>` keywords, `requires_grad_()`
# with anything but False, `Parameter`, and the ways to register modules or parameters by name.
_MAY_UNFREEZE = re.compile(
    r"requires_grad\s*=(?!=)(?!\s*False\b)"
    r"|requires_grad_\(\s*(?!False\b|requires_grad\s*=\s*False\b)"
    # `\bName\b` spelt `Name\b(?<!\wName)`: a pattern whose branches all start with a literal
    # is searched for at C speed, one starting with `\b` is tried at every offset.
    r"|Parameter\b(?<!\wParameter)|add_module\b(?<!\wadd_module)"
    r"|register_module\b(?<!\wregister_module)|register_parameter\b(?<!\wregister_parameter)"
    r"|setattr\b(?<!\wsetattr)|Lazy(?<!\wLazy)"
    r"|register_forward_hook\b(?<!\wregister_forward_hook)|__dict__\b(?<!\w__dict__)"
)


def may_unfreeze(text: str, tree: ast.Module | None = None) -> bool:
    """True when the file has text that may unfreeze or add a parameter somewhere: then no
    module is ever known to be frozen (the unfreezing may happen in code the analysis does
    not follow, such as a helper reached through an alias). With the file's `tree` (parsed
    from `text`), only code counts: a docstring or comment saying `requires_grad=True`
    unfreezes nothing, and neither does a parameter a constructor gives the object it builds
    (`self.lora_a = nn.Parameter(...)` in `__init__`, see `_constructor_parameters`)."""
    found = _MAY_UNFREEZE.finditer(text)
    if tree is None:
        return next(found, None) is not None
    prose: _Prose | None = None
    built: frozenset[tuple[int, int]] | None = None
    for match in found:
        prose = prose or _Prose(text, tree)
        if prose.holds(match.start()) or prose.excused(match.start()):
            continue
        if match.group().startswith("Parameter"):
            built = _constructor_parameters(tree) if built is None else built
            if prose.position(match.start()) in built:
                continue
        return True
    return False


# Sorts after every span starting at the same place.
_LAST = (1 << 62, 0)


def _constructor_parameters(tree: ast.Module) -> frozenset[tuple[int, int]]:
    """Where (line, column) the `Parameter` of `<self>.<attr> = nn.Parameter(...)` is
    written, a statement of the own code of a `def __init__(self, ...)`: the parameter
    belongs to the object under construction, which no freeze made before could reach (its
    modules are fresh; a module frozen earlier gets it only when the new object is stored
    into it, a binding the analysis sees). Judged from the `def` alone, as an edit of it
    is (`syntax_parts.unfreezes`)."""
    found: set[tuple[int, int]] = set()
    for function in module_nodes_of(tree, ast.FunctionDef):
        positional = [*function.args.posonlyargs, *function.args.args]
        if function.name != "__init__" or not positional:
            continue
        me = positional[0].arg
        for node in own_nodes(function.body):
            if not (isinstance(node, ast.Assign) and len(node.targets) == 1):
                continue
            target, value = node.targets[0], node.value
            if not (
                isinstance(target, ast.Attribute)
                and isinstance(target.value, ast.Name)
                and target.value.id == me
                and isinstance(value, ast.Call)
            ):
                continue
            func = value.func
            named = (isinstance(func, ast.Attribute) and func.attr == "Parameter") or (
                isinstance(func, ast.Name) and func.id == "Parameter"
            )
            if named and func.end_lineno is not None and func.end_col_offset is not None:
                found.add((func.end_lineno, func.end_col_offset - len("Parameter")))
    return frozenset(found)


class _Prose:
    """Where the strings and comments of a file lie (one line of text, ASCII up to the
    offset asked: other lines count as code, positions of the tree being UTF-8 bytes)."""

    def __init__(self, text: str, tree: ast.Module) -> None:
        self.text = text
        self.tree = tree
        self.excused_spans: list[unfreeze_loops.Span] | None = None
        self.starts, self.ends = _string_spans(tree)

    def position(self, offset: int) -> tuple[int, int] | None:
        """The (line, column) of the character at `offset`, as the tree counts them; None
        when a non-ASCII character precedes it on its line (the tree counts UTF-8 bytes)."""
        line_start = self.text.rfind("\n", 0, offset) + 1
        before = self.text[line_start:offset]
        if not before.isascii():
            return None
        return self.text.count("\n", 0, offset) + 1, len(before)

    def holds(self, offset: int) -> bool:
        """True when the character at `offset` lies in a string or a comment."""
        line_start = self.text.rfind("\n", 0, offset) + 1
        before = self.text[line_start:offset]
        if not before.isascii():
            return False
        line = self.text.count("\n", 0, offset) + 1
        if self._in_string((line, len(before))):
            return True
        return any(
            char == "#" and not self._in_string((line, column))
            for column, char in enumerate(before)
        )

    def _in_string(self, position: tuple[int, int]) -> bool:
        index = bisect_right(self.starts, position) - 1
        return index >= 0 and position < self.ends[index]

    def excused(self, offset: int) -> bool:
        """True when the character at `offset` lies in an unfreeze the dataflow pass checks
        (`unfreeze_loops`: `p.requires_grad = True` in a `named_parameters()` loop)."""
        if self.excused_spans is None:
            self.excused_spans = unfreeze_loops.excused_spans(self.tree)
        position = self.position(offset)
        if position is None:
            return False
        index = bisect_right(self.excused_spans, (position, _LAST)) - 1
        return index >= 0 and position < self.excused_spans[index][1]


# A place in the text: 1-based line and `ast` column.
Place = tuple[int, int]


@cached_by_node
def _string_spans(tree: ast.Module) -> tuple[list[Place], list[Place]]:
    """Where the string literals of the tree start and end ((line, column), sorted by start):
    the tree's part of `_Prose`, the same for every text of the tree (an edit of comments
    only keeps it)."""
    in_fstrings = {
        id(part) for joined in module_nodes_of(tree, ast.JoinedStr) for part in joined.values
    }
    spans = sorted(
        ((n.lineno, n.col_offset), (n.end_lineno or n.lineno, n.end_col_offset or 0))
        for n in module_nodes_of(tree, ast.Constant)
        if isinstance(n.value, str) and id(n) not in in_fstrings
    )
    return [start for start, _ in spans], [end for _, end in spans]


def is_false(expr: ast.expr) -> bool:
    """The literal `False`."""
    return isinstance(expr, ast.Constant) and expr.value is False


def is_true(expr: ast.expr) -> bool:
    """The literal `True`."""
    return isinstance(expr, ast.Constant) and expr.value is True


def freezes_argument(call: ast.Call) -> bool:
    """`x.requires_grad_(False)` or `x.requires_grad_(requires_grad=False)`."""
    if len(call.args) == 1 and not call.keywords:
        return is_false(call.args[0])
    if not call.args and len(call.keywords) == 1:
        return call.keywords[0].arg == "requires_grad" and is_false(call.keywords[0].value)
    return False


def frozen_whole(stmt: ast.stmt) -> ast.expr | None:
    """The module a statement freezes whole: the owner of a freeze loop
    (`freeze_loop_owner`) or the receiver of `m.requires_grad_(False)` written as a
    statement; None for any other statement."""
    if isinstance(stmt, ast.For | ast.AsyncFor):
        return freeze_loop_owner(stmt)
    if (
        isinstance(stmt, ast.Expr)
        and isinstance(stmt.value, ast.Call)
        and isinstance(stmt.value.func, ast.Attribute)
        and stmt.value.func.attr == "requires_grad_"
        and freezes_argument(stmt.value)
    ):
        return stmt.value.func.value
    return None


def freeze_loop_owner(loop: ast.For | ast.AsyncFor) -> ast.expr | None:
    """The module expression of `for p in <module>.parameters(): p.requires_grad = False`
    (also `p.requires_grad_(False)`, `p.detach_()`, `for name, p in
    <module>.named_parameters()`), when the
    loop freezes every parameter it visits: the freeze is a statement of the loop body itself
    (under no `if`), and the body has no other control flow that could skip it."""
    iterable = loop.iter
    if not (
        isinstance(iterable, ast.Call)
        and isinstance(iterable.func, ast.Attribute)
        and iterable.func.attr in ("parameters", "named_parameters")
        and not iterable.args
        and not iterable.keywords
        and not loop.orelse
    ):
        return None
    target = loop.target
    if iterable.func.attr == "named_parameters":
        if not (isinstance(target, ast.Tuple) and len(target.elts) == 2):
            return None
        target = target.elts[1]
    if not isinstance(target, ast.Name):
        return None
    freezes = False
    for stmt in loop.body:
        if not isinstance(stmt, ast.Expr | ast.Assign | ast.Pass):
            return None  # `if`, `continue`, nested loops...: maybe not every parameter
        if _freezes_name(stmt, target.id):
            freezes = True
    return iterable.func.value if freezes else None


def _freezes_name(stmt: ast.stmt, name: str) -> bool:
    if isinstance(stmt, ast.Assign):
        return (
            len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Attribute)
            and stmt.targets[0].attr == "requires_grad"
            and isinstance(stmt.targets[0].value, ast.Name)
            and stmt.targets[0].value.id == name
            and is_false(stmt.value)
        )
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        call = stmt.value
        func = call.func
        if not (
            isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Name)
            and func.value.id == name
        ):
            return False
        if func.attr == "detach_":
            # `p.detach_()` on a parameter turns its `requires_grad` off (EMA copies).
            return not call.args and not call.keywords
        return func.attr == "requires_grad_" and freezes_argument(call)
    return False


@cached_by_node
def steps_only(function: ast.FunctionDef | ast.AsyncFunctionDef) -> frozenset[str]:
    """Parameters the function only steps or clears, as an optimizer is in `def
    train(model, loader, optimizer)`: every read of the name, nested code included, is the
    receiver of `.step(...)` or `.zero_grad(...)`, or the first argument of a class of an
    `lr_scheduler` module or of a scaler's `step`/`unscale_`; never rebound. None of these
    can give an optimizer other parameters, so what it holds is the same after the call."""
    names = kept_parameters(function)
    if not names:
        return frozenset()
    parents: dict[int, ast.AST] = {}
    loads: dict[str, list[ast.Name]] = {}
    for node in ast.walk(function):
        for child in ast.iter_child_nodes(node):
            parents[id(child)] = node
        if isinstance(node, ast.Name) and node.id in names and isinstance(node.ctx, ast.Load):
            loads.setdefault(node.id, []).append(node)
    return frozenset(
        name
        for name, reads in loads.items()
        if all(_steps_or_clears(read, parents) for read in reads)
    )


def _steps_or_clears(name: ast.Name, parents: dict[int, ast.AST]) -> bool:
    """`opt.step()`, `opt.zero_grad(...)`, `lr_scheduler.X(opt, ...)`, `scaler.step(opt)`:
    the class of a scheduler module and a scaler's own methods, by name (a helper of the
    file whose name merely mentions a scheduler may extend the optimizer)."""
    parent = parents.get(id(name))
    if isinstance(parent, ast.Attribute) and parent.attr in ("step", "zero_grad"):
        call = parents.get(id(parent))
        return isinstance(call, ast.Call) and call.func is parent
    if isinstance(parent, ast.Call) and parent.args and parent.args[0] is name:
        callee = dotted(parent.func)
        parts = callee.split(".") if callee is not None else []
        if len(parts) < 2:
            return False
        if parts[-2] == "lr_scheduler" and parts[-1][:1].isupper():
            return True  # `torch.optim.lr_scheduler.StepLR(opt, ...)`
        # `scaler.step(opt)`, `self.scaler.unscale_(opt)`: a GradScaler's
        return (
            parts[-1] in ("step", "unscale_")
            and "scaler" in parts[-2].lower()
            and len(parent.args) == 1
            and not parent.keywords
        )
    return False


def detaches_parameters(loop: ast.For | ast.AsyncFor) -> bool:
    """`for p in model.parameters(): ... p.detach_()`: some parameters may be detached in
    place, which turns their `requires_grad` off as a freeze does."""
    iterable = loop.iter
    if not (
        isinstance(iterable, ast.Call)
        and isinstance(iterable.func, ast.Attribute)
        and iterable.func.attr in ("parameters", "named_parameters")
    ):
        return False
    target = loop.target
    if isinstance(target, ast.Tuple) and target.elts:
        target = target.elts[-1]
    if not isinstance(target, ast.Name):
        return True  # unpacked otherwise: any of them may be detached
    return any(
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "detach_"
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == target.id
        for stmt in loop.body
        for node in ast.walk(stmt)
    )


# Module methods that neither add parameters nor change their `requires_grad`, nor change
# what the module computes.
KEEPS_FROZEN = (
    api.MODULE_SELF_METHODS | api.MODULE_INFO_METHODS | frozenset(["forward", "extra_repr"])
) - frozenset(["requires_grad_", "apply", "register_forward_hook", "register_buffer"])
# Containers whose forward runs every submodule, including ones assigned later.
_RUNS_EVERY_CHILD = api.SEQUENTIAL


def constructed_here(expr: ast.expr) -> bool:
    """True when `expr` is a constructor call, possibly followed by `.to(...)`-style calls
    that return their receiver: `nn.Linear(3, 1).to(device)`, not `model.to(device)`."""
    return isinstance(api.uncast(expr), ast.Call)


@cached_by_node
def stored_whole(init: ast.FunctionDef | ast.AsyncFunctionDef) -> frozenset[str]:
    """Parameters of `__init__` it only stores whole on `self`, as statements of its own
    body (`self.encoder = encoder`): a module given so is a registered submodule, whose
    parameters are the instance's own (`instance.parameters()` lists them)."""
    names = set(parameter_names(init)[1:])
    stored: dict[str, int] = {}
    for stmt in init.body:
        if (
            isinstance(stmt, ast.Assign)
            and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Attribute)
            and isinstance(stmt.targets[0].value, ast.Name)
            and stmt.targets[0].value.id == "self"
            and isinstance(stmt.value, ast.Name)
        ):
            stored[stmt.value.id] = stored.get(stmt.value.id, 0) + 1
    for node in ast.walk(init):
        if isinstance(node, ast.Name) and node.id in names:
            if isinstance(node.ctx, ast.Load):
                stored[node.id] = stored.get(node.id, 0) - 1
            else:
                names.discard(node.id)
    return frozenset(n for n in names if n in stored and stored[n] == 0)


def owns_parameters(ref: ModuleRef, seen: frozenset[int] = frozenset()) -> bool:
    """True when a module certainly has parameters of its own (so freezing or replacing it
    matters): a torch.nn layer with weights, a Sequential holding one, or a local class whose
    `__init__` builds one, or keeps a module that owns parameters (`self.llm = TinyLM(...)`,
    a class of the file; `seen`: the classes asked about already, against cycles)."""
    if ref.kind is not None:
        return ref.kind.has_parameters
    if ref.qualified is not None:
        kind = api.nn_module_kind(ref.qualified)
        return kind is not None and kind.has_parameters
    if ref.local is None or id(ref.local.node) in seen:
        return False
    init = _method(ref.local.node, "__init__")
    if init is None:
        return False
    seen = seen | {id(ref.local.node)}
    return _builds_parameters(init) or any(
        kept.module is not None and owns_parameters(kept.module, seen)
        for kept in ref.local.attributes.values()
    )


@cached_by_node
def _builds_parameters(init: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """`__init__` builds a torch.nn layer with weights somewhere in its code (a cached answer
    per node, so an analysis across edits sees that a step read this method's code)."""
    for node in ast.walk(init):
        if isinstance(node, ast.Call):
            name = callee_name(node.func)
            kind = api.NN_MODULES.get(name) if name else None
            if kind is not None and kind.has_parameters:
                return True
    return False


# `class Loss(nn.Module)` spelled so: the one base a parameter-free class may have.
_PLAIN_MODULE_BASES = frozenset({"nn.Module", "torch.nn.Module", "Module"})
# Calls that give a module parameters or submodules other than by `self.<attr> = ...`.
_REGISTERING = frozenset(
    "setattr register_parameter register_module add_module register_buffer".split()
)


def holds_no_parameters(ref: ModuleRef) -> bool:
    """True when a module class of the file certainly has no parameter and no submodule: a
    direct `nn.Module` subclass (already known to be a module class) whose body holds only
    methods, whose `__init__` (if any) only calls the base's, and whose methods never store
    an attribute of `self` or register anything (`class MaskedMSE(nn.Module)` with only a
    `forward`). Its mode (`eval()`) changes nothing and freezing it freezes nothing."""
    info = ref.local
    if info is None or not info.is_module or ref.kind is not None:
        return False
    node = info.node
    if len(node.bases) != 1 or node.keywords or dotted(node.bases[0]) not in _PLAIN_MODULE_BASES:
        return False
    return _parameter_free(node)


@cached_by_node
def _parameter_free(node: ast.ClassDef) -> bool:
    for stmt in node.body:
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
            if stmt.name == "__init__" and not all(_base_init(s) for s in stmt.body):
                return False
            if stmt.decorator_list or not _stores_nothing_on_self(stmt):
                return False
        elif not _docstring_or_pass(stmt):
            return False
    return True


def _stores_nothing_on_self(method: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    for inner in ast.walk(method):
        if isinstance(inner, ast.Attribute | ast.Subscript) and isinstance(inner.ctx, ast.Store):
            return False
        if isinstance(inner, ast.Call) and callee_name(inner.func) in _REGISTERING:
            return False
        if isinstance(inner, ast.Global | ast.Nonlocal):
            return False
    return True


def _base_init(stmt: ast.stmt) -> bool:
    """`super().__init__()`, `super(Loss, self).__init__()`, `nn.Module.__init__(self)`, a
    docstring or `pass`."""
    if _docstring_or_pass(stmt):
        return True
    if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)):
        return False
    call = stmt.value
    func = call.func
    if not (isinstance(func, ast.Attribute) and func.attr == "__init__") or call.keywords:
        return False
    owner = func.value
    if isinstance(owner, ast.Call) and isinstance(owner.func, ast.Name):
        return owner.func.id == "super" and not call.args
    return dotted(owner) in _PLAIN_MODULE_BASES and len(call.args) == 1


def _docstring_or_pass(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Pass) or (
        isinstance(stmt, ast.Expr)
        and isinstance(stmt.value, ast.Constant)
        and isinstance(stmt.value.value, str)
    )


def runs_attribute(ref: ModuleRef, attr: str) -> bool:
    """True when the module's forward certainly involves submodule `attr` once assigned:
    any child of an nn.Sequential, the head of a torchvision classifier, or `self.<attr>`
    read in a local class's `forward`."""
    if ref.qualified in _RUNS_EVERY_CHILD:
        return True
    if ref.qualified is not None and libraries.runs_head(ref.qualified, attr):
        return True
    if ref.local is None:
        return False
    forward = _method(ref.local.node, "forward")
    return forward is not None and attr in _self_attributes_read(forward)


@cached_by_node
def _self_attributes_read(forward: ast.FunctionDef | ast.AsyncFunctionDef) -> frozenset[str]:
    """The `self.<attr>` a method reads (a cached answer per node, so an analysis across
    edits sees that a step read this method's code)."""
    return frozenset(
        node.attr
        for node in ast.walk(forward)
        if isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "self"
        and isinstance(node.ctx, ast.Load)
    )


def _method(node: ast.ClassDef, name: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    for stmt in node.body:
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef) and stmt.name == name:
            return stmt
    return None


_BUILTINS = frozenset(dir(builtins))
_CONTAINERS = frozenset(["Sequential", "ModuleList", "ModuleDict"])


class ClassCheck:
    """Decides whether a local nn.Module class owns every parameter its outputs depend on.

    Such a class, built from plain arguments, computes its outputs only from its inputs and
    its registered parameters: freezing all of `model.parameters()` then leaves nothing in
    its forward that requires grad. Anything the check cannot see through (global tensors,
    helper functions, modules kept in plain lists, modules built outside `__init__`, local
    base classes) makes the class not qualify.
    """

    def __init__(
        self,
        module_names: Callable[[str], str],
        resolve: Callable[[ast.ClassDef, ast.expr], str | None],
        local_class: Callable[[str], ast.ClassDef | None],
    ) -> None:
        # module_names(name) -> "import" | "constant" | "class" | "" for a module-level name.
        self._module_names = module_names
        self._resolve = resolve
        self._local_class = local_class
        self._verdicts: dict[int, bool] = {}

    def self_contained(self, info: ClassInfo) -> bool:
        """True when every parameter the class's outputs depend on is registered on it."""
        key = id(info.node)
        if key not in self._verdicts:
            self._verdicts[key] = False  # recursion guard: a cycle does not qualify
            self._verdicts[key] = self._check(info.node)
        return self._verdicts[key]

    def _check_class_name(self, name: str) -> bool:
        node = self._local_class(name)
        if node is None:
            return False
        from gradguard.analysis.values import ClassInfo

        return self.self_contained(ClassInfo(node=node, is_module=True))

    def _check(self, node: ast.ClassDef) -> bool:
        if node.keywords or node.decorator_list or len(node.bases) != 1:
            return False
        if self._resolve(node, node.bases[0]) not in api.MODULE_BASES:
            return False
        registered: set[int] = set()
        for stmt in node.body:
            if isinstance(stmt, ast.FunctionDef):
                if stmt.decorator_list or not self._reads_only_known_names(stmt, node.name):
                    return False
                if stmt.name == "__init__":
                    registered |= self._registered_constructions(node, stmt)
            elif isinstance(stmt, ast.Pass) or (
                isinstance(stmt, ast.Expr | ast.Assign) and isinstance(stmt.value, ast.Constant)
            ):
                continue
            else:
                return False
        # Every module built anywhere in the class must be registered by `__init__`: a layer
        # built in `forward`, or kept in a plain list, has parameters nobody froze.
        for call in _calls(node):
            if self._is_module_construction(node, call) and id(call) not in registered:
                return False
        return True

    def _is_module_construction(self, owner: ast.ClassDef, call: ast.Call) -> bool:
        qualified = self._resolve(owner, call.func)
        if qualified is not None:
            last = qualified.rsplit(".", 1)[-1]
            return qualified.startswith("torch.nn.") and last[:1].isupper()
        return isinstance(call.func, ast.Name) and self._local_class(call.func.id) is not None

    def _registered_constructions(self, owner: ast.ClassDef, init: ast.FunctionDef) -> set[int]:
        """Module constructions assigned straight to `self.<attr>` in `__init__` (or nested
        in containers so assigned), that themselves own what they compute with. An
        assignment under an `if` registers its module on the way that runs it
        (`if stride != 1: self.downsample = nn.Sequential(...)`)."""
        found: set[int] = set()
        for stmt in _branch_statements(init.body):
            if not (
                isinstance(stmt, ast.Assign)
                and len(stmt.targets) == 1
                and isinstance(stmt.targets[0], ast.Attribute)
                and isinstance(stmt.targets[0].value, ast.Name)
                and stmt.targets[0].value.id == "self"
            ):
                continue
            found |= self._registered_tree(owner, stmt.value, init)
        return found

    def _registered_tree(
        self, owner: ast.ClassDef, expr: ast.expr, init: ast.FunctionDef | None = None
    ) -> set[int]:
        if isinstance(expr, ast.IfExp):
            # `nn.ELU() if act else nn.Identity()`: whichever runs is built and registered here.
            return self._registered_tree(owner, expr.body, init) | self._registered_tree(
                owner, expr.orelse, init
            )
        if not isinstance(expr, ast.Call) or not self._is_module_construction(owner, expr):
            return set()
        qualified = self._resolve(owner, expr.func)
        if qualified is None:
            assert isinstance(expr.func, ast.Name)
            return {id(expr)} if self._check_class_name(expr.func.id) else set()
        last = qualified.rsplit(".", 1)[-1]
        found = {id(expr)}
        if last in _CONTAINERS:
            # `nn.Sequential(*layers)` of a list literal only unpacked there: its elements.
            listed = layer_lists.literal_elements(init, expr) if init is not None else None
            for arg in listed or [*expr.args, *(kw.value for kw in expr.keywords)]:
                for element in _container_elements(arg):
                    found |= self._registered_tree(owner, _handed_module(init, element), init)
            return found
        kind = api.NN_MODULES.get(last)
        # Only layers whose arguments cannot carry parameters in.
        if kind is None or kind.output is None:
            return set()
        for arg in [*expr.args, *(kw.value for kw in expr.keywords)]:
            # A layer handed to it (`nn.TransformerEncoder(layer, 2)`, `layer` built in
            # `__init__`): a torch.nn module registers what it is given, or copies it
            # (TransformerEncoder's clones): either way the parameters are this one's.
            found |= self._registered_tree(owner, _handed_module(init, arg), init)
        return found

    def _reads_only_known_names(self, method: ast.FunctionDef, owner: str) -> bool:
        """The method reads only its own locals, builtins, imports, module-level constants,
        its own class (`super(Net, self).__init__()`) and qualifying local classes: nothing
        that could bring a tensor requiring grad."""
        local = _bound_names(method)
        for node in ast.walk(method):
            if not (isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)):
                continue
            name = node.id
            if name in local or (name == owner and self._module_names(name) == "class"):
                continue
            kind = self._module_names(name)
            if kind in ("import", "constant"):
                continue
            if kind == "class" and self._check_class_name(name):
                continue
            if kind == "" and name in _BUILTINS:
                continue
            return False
        return True


def _handed_module(init: ast.FunctionDef | None, expr: ast.expr) -> ast.expr:
    """What `expr`, handed to a module's constructor in `__init__`, is: for a local of
    `__init__` bound once, by a plain assignment run at most once (not in a loop), and read
    only there, the value bound (`layer = nn.TransformerEncoderLayer(...)`); else `expr`
    itself (a layer also kept elsewhere may be what `forward` runs: a copy's original)."""
    if init is None or not isinstance(expr, ast.Name):
        return expr
    if local_binding_counts(init).get(expr.id) != 1 or _loads(init, expr.id) != 1:
        return expr
    for stmt in _branch_statements(init.body):
        if (
            isinstance(stmt, ast.Assign)
            and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name)
            and stmt.targets[0].id == expr.id
        ):
            return stmt.value
    return expr


def _loads(function: ast.FunctionDef, name: str) -> int:
    """How often `function` reads `name` (nested code included)."""
    return sum(
        1
        for node in ast.walk(function)
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load)
    )


def _container_elements(expr: ast.expr) -> Iterator[ast.expr]:
    if isinstance(expr, ast.List | ast.Tuple):
        yield from expr.elts
    elif isinstance(expr, ast.ListComp):
        yield expr.elt
    elif isinstance(expr, ast.Dict):
        yield from expr.values
    else:
        yield expr


def _calls(node: ast.AST) -> Iterator[ast.Call]:
    for child in ast.walk(node):
        if isinstance(child, ast.Call):
            yield child


def _bound_names(method: ast.FunctionDef) -> set[str]:
    """Names a method binds: parameters, assignment and loop targets, comprehension and
    lambda variables, local imports."""
    names: set[str] = set()
    for node in ast.walk(method):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
            names.add(node.id)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.alias):
            names.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
    return names


def _branch_statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements of a block and of the `if`/`else` blocks in it, nested: each runs
    at most once per run of the block (not those of loops, `with` or `try`)."""
    for stmt in body:
        yield stmt
        if isinstance(stmt, ast.If):
            yield from _branch_statements(stmt.body)
            yield from _branch_statements(stmt.orelse)
