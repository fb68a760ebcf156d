"""Module-level dicts of literals that no code of the file can change.

Training scripts keep their settings in a dict: `CONFIG = {"hidden": 32, "lr": 1e-3,
"epochs": 3}` (or `dict(hidden=32, lr=1e-3, epochs=3)`, the same dict), then
`Net(CONFIG["hidden"])` or `c = CONFIG; range(c["epochs"])`. When the dict is a literal of
numbers, strings, flags and tuples of them, bound once at module level, and nothing in the
file may change it, every read of a key gives that literal: a number is not a tensor, so a
module built from it owns what it computes with, and a loop over `range(c["epochs"])`
certainly runs.

Its values may also be lists of such literals and dicts of settings in turn (`{"model":
{"hidden": 32}, "loss": {"init": [0, 0]}}`): then its mutable parts are followed as the
dict is (`Aliases` with the display): `cfg["loss"]` and `cfg["loss"]["init"]` hold parts
code could change, `cfg["model"]["hidden"]` a literal. A name bound to a part, or a
parameter given one, holds some part (which one is not followed further); a part handed to
code outside the file leaves the dict unknown, except to functions that only read what they
are given (`torch.tensor(cfg["loss"]["init"])`, `np.array`, `len`, `zip`...).

"Nothing may change it" is decided by following the dict object itself (`Aliases`; an
element read by key is a literal, never the dict): into names it is assigned to, the
parameters of the file's functions and constructors it is handed to, and the attributes of
`self` it is stored in (read then by every method of every class of the file). It stays
unknown when it is handed to code outside the file or to a method, put in a container,
stored on another object or returned, and when a holder is the root of a subscript store or
deletion (`cfg["lr"] = ...`, `self.cfg["lr"] = ...`), the target of an augmented assignment
(`cfg |= {...}`) or the receiver of a mutating method (`update`, `setdefault`, `pop`,
`popitem`, `clear`, `__setitem__`, `__delitem__`, and list methods such as `append`).
Reading keys, `.get()`, `.items()`, `**cfg` and printing are fine. Files importing this one
may still change it, as they may rebind any module-level constant: the analysis trusts
module-level bindings the file makes once.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping

from gradguard.analysis.name_flow import Key, NameFlow
from gradguard.analysis.names import (
    arguments_by_parameter,
    binding_counts,
    paired,
    parameter_names,
)
from gradguard.analysis.walk import module_nodes

# Methods of dicts and of the lists they may hold that change them in place.
_MUTATING_METHODS = frozenset(
    "update setdefault pop popitem clear __setitem__ __delitem__ __ior__ append extend insert "
    "remove sort reverse".split()
)
# Builtins that only read what they are given.
_READING_BUILTINS = frozenset(
    (
        "print len str repr sorted list tuple dict set iter isinstance type bool any all "
        "zip enumerate sum min max float int round"
    ).split()
)
# Functions of torch and numpy, by their usual spelling, that copy a list they are given
# into a new tensor or array (a part of a settings dict handed to them stays unchanged).
_COPYING_FUNCTIONS = frozenset(
    "torch.tensor torch.as_tensor torch.Tensor torch.FloatTensor torch.LongTensor "
    "np.array np.asarray numpy.array numpy.asarray".split()
)
# A part of a settings dict whose key is not known (`cfg[name]`): any mutable part of it.
_ANY_PART = ast.Dict(keys=[], values=[])


def literal_dicts(tree: ast.Module) -> dict[str, ast.Dict]:
    """Module-level `NAME = {...}` statements whose dict holds settings values (see
    `settings_value`) under string keys; `NAME = dict(key=..., ...)` too (as the dict
    display it builds), where no code of the module binds the name `dict`."""
    found: dict[str, ast.Dict] = {}
    shadowed: bool | None = None  # whether the module binds `dict`: walked only if asked
    for stmt in tree.body:
        if not (
            isinstance(stmt, ast.Assign)
            and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name)
        ):
            continue
        value = _keyword_dict(stmt.value)
        if value is not stmt.value:
            if shadowed is None:
                shadowed = "dict" in binding_counts(module_nodes(tree))
            if shadowed:
                value = stmt.value
        if (
            isinstance(value, ast.Dict)
            and all(
                isinstance(key, ast.Constant) and isinstance(key.value, str) for key in value.keys
            )
            and all(settings_value(item) for item in value.values)
        ):
            found[stmt.targets[0].id] = value
    return found


def _keyword_dict(expr: ast.expr) -> ast.expr:
    """`dict(hidden=32, lr=1e-3)` as the display `{"hidden": 32, "lr": 1e-3}` it builds (a
    call of the builtin with keywords only); any other expression as it is."""
    if not (
        isinstance(expr, ast.Call)
        and isinstance(expr.func, ast.Name)
        and expr.func.id == "dict"
        and not expr.args
        and all(kw.arg is not None for kw in expr.keywords)
    ):
        return expr
    keys: list[ast.expr | None] = [ast.Constant(kw.arg) for kw in expr.keywords]
    return ast.Dict(keys=keys, values=[kw.value for kw in expr.keywords])


def unchanged_dicts(tree: ast.Module, dicts: Mapping[str, ast.Dict]) -> frozenset[str]:
    """Which of `dicts` (module-level settings dicts by name, from `literal_dicts`) nothing
    in the file may change (see the module docstring)."""
    if not dicts:
        return frozenset()
    flow = NameFlow(tree)
    nodes = list(module_nodes(tree))
    methods = _methods_by_id(nodes)
    kept: set[str] = set()
    for name, display in dicts.items():
        key = (id(tree), name)
        if len(flow.bindings.get(key, ())) != 1:
            continue
        if never_changed(Aliases(flow, key, methods, display), nodes):
            kept.add(name)
    return frozenset(kept)


def methods_taking_self(node: ast.ClassDef) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    """The methods of a class body that take at least one parameter (`self`)."""
    return [
        m
        for m in node.body
        if isinstance(m, ast.FunctionDef | ast.AsyncFunctionDef) and m.args.args
    ]


class Aliases:
    """The names that may hold the very object bound to one key (a settings dict here, a
    dataclass instance in `config_objects`; not a copy, not an element: `cfg["lr"]` is a
    literal), found by following it whole.

    With `display` (the dict display bound to the key, holding lists or dicts of settings),
    the mutable parts of the dict are followed too: `whole` then also holds for an element
    read that may give one (`cfg["loss"]`), and the names bound to parts are holders of
    parts (`parts`, `part_fields`), whose elements may all be mutable."""

    def __init__(
        self,
        flow: NameFlow,
        key: Key,
        methods: dict[int, ast.ClassDef],
        display: ast.Dict | None = None,
    ) -> None:
        self.flow = flow
        self.keys: set[Key] = {key}
        self.methods = methods  # id() of each method -> its class
        # The attributes of `self` that may hold the dict, by key of each method's `self`.
        self.fields: dict[Key, set[str]] = {}
        # Attribute names that may hold the dict on any object (`trainer.cfg`).
        self.anywhere: set[str] = set()
        self.display = display if display is not None and mutable_parts(display) else None
        self.parts: set[Key] = set()  # names that may hold a mutable part of the dict
        self.part_fields: dict[Key, set[str]] = {}  # and attributes of `self`

    def whole(self, expr: ast.expr) -> bool:
        """`expr` may evaluate to the dict itself: a holder's name, an attribute of `self`
        the dict was stored in (`self.cfg`), or a choice between such values; with a
        display, also to a mutable part of it (see `part`)."""
        if self.display is not None and self.part(expr) is not None:
            return True
        return self._holds_whole(expr)

    def part(self, expr: ast.expr) -> ast.Dict | ast.List | None:
        """The display of the mutable part of the dict `expr` may evaluate to (the dict's
        own display for the dict itself, `_ANY_PART` when not known which), or None."""
        if isinstance(expr, ast.Subscript):
            outer = self.part(expr.value)
            if outer is None or outer is _ANY_PART:
                return outer
            return _element(outer, expr.slice)
        if isinstance(expr, ast.NamedExpr):
            return self.part(expr.value)
        if isinstance(expr, ast.IfExp | ast.BoolOp):
            options = [expr.body, expr.orelse] if isinstance(expr, ast.IfExp) else expr.values
            found = [self.part(option) for option in options]
            return None if all(f is None for f in found) else _ANY_PART
        if self._holds_part(expr):
            return _ANY_PART  # (a name bound to the dict on some path and to a part on others)
        return self.display if self._holds_whole(expr) else None

    def _holds_part(self, expr: ast.expr) -> bool:
        """A name or `self` attribute bound to a part of the dict."""
        if isinstance(expr, ast.IfExp):
            return self._holds_part(expr.body) or self._holds_part(expr.orelse)
        if isinstance(expr, ast.BoolOp):
            return any(self._holds_part(value) for value in expr.values)
        if isinstance(expr, ast.NamedExpr):
            return self._holds_part(expr.value)
        if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name):
            key = self.flow.key_of(expr.value)
            return key is not None and expr.attr in self.part_fields.get(key, ())
        return isinstance(expr, ast.Name) and self.flow.key_of(expr) in self.parts

    def _holds_whole(self, expr: ast.expr) -> bool:
        if isinstance(expr, ast.IfExp):
            return self._holds_whole(expr.body) or self._holds_whole(expr.orelse)
        if isinstance(expr, ast.BoolOp):
            return any(self._holds_whole(value) for value in expr.values)
        if isinstance(expr, ast.NamedExpr):
            return self._holds_whole(expr.value)
        if isinstance(expr, ast.Attribute) and expr.attr in self.anywhere:
            return True
        if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name):
            key = self.flow.key_of(expr.value)
            return key is not None and expr.attr in self.fields.get(key, ())
        return isinstance(expr, ast.Name) and self.flow.key_of(expr) in self.keys

    def grow(self, node: ast.AST) -> bool | None:
        """Add what `node` makes hold the dict; True when something was added, None when the
        dict may reach code or objects whose names are not followed."""
        if isinstance(node, ast.Assign) and (pairs := _pairs(node)):
            # `self.model, self.cfg = model, cfg`: each target gets its own value.
            return self._bind_all([(t, self._whole_or_part(v)) for t, v in pairs if self.whole(v)])
        if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
            if not self.whole(node.value):
                return False
            targets: list[ast.expr] = (
                node.targets if isinstance(node, ast.Assign) else [node.target]
            )
            whole = self._whole_or_part(node.value)
            return self._bind_all([(target, whole) for target in targets])
        if isinstance(node, ast.NamedExpr) and self.whole(node.value):
            # `if (c := cfg["model"]):` binds `c` as an assignment does.
            return self._bind_all([(node.target, self._whole_or_part(node.value))])
        if isinstance(node, ast.Call):
            return self._handed(node)
        if isinstance(node, ast.Return | ast.Yield | ast.YieldFrom | ast.Lambda):
            value = node.body if isinstance(node, ast.Lambda) else node.value
            return None if value is not None and self.whole(value) else False
        if isinstance(node, ast.List | ast.Tuple) and not isinstance(node.ctx, ast.Load):
            return False  # assignment targets (see above)
        if isinstance(node, ast.List | ast.Tuple | ast.Set | ast.Dict):
            parent = self.flow.parents.get(id(node))
            if isinstance(parent, ast.Assign) and parent.value is node and _pairs(parent):
                return False  # unpacked into as many targets (see above)
            # `{**cfg, "lr": 0.1}` copies the dict's items (literals, nothing it could change).
            parts = (
                [v for k, v in zip(node.keys, node.values, strict=True) if k is not None]
                if isinstance(node, ast.Dict)
                else node.elts
            )
            return None if any(self.whole(p) for p in parts) else False
        if isinstance(node, ast.For | ast.AsyncFor | ast.comprehension | ast.withitem):
            return False  # iterating a dict gives its keys; `with` never takes a dict
        return False

    def _whole_or_part(self, expr: ast.expr) -> bool:
        """Whether `expr`, which may hold the dict or a mutable part of it, certainly holds
        the dict itself (not a part, not a choice with a part)."""
        return self.display is None or self.part(expr) is self.display

    def _bind_all(self, targets: list[tuple[ast.expr, bool]]) -> bool | None:
        """Bind each target to the dict (True) or to some mutable part of it (False)."""
        added = False
        for target, whole in targets:
            if isinstance(target, ast.Name):
                key = self.flow.key_of(target)
                if key is None:
                    return None
                added |= self._add({key}) if whole else self._add_part(key)
            elif isinstance(target, ast.Attribute):
                selves = self._instance_keys(target)
                if selves is None:
                    return None
                for key in selves:
                    held = self.fields if whole else self.part_fields
                    fields = held.setdefault(key, set())
                    added |= target.attr not in fields
                    fields.add(target.attr)
            else:
                return None  # into a container, or unpacked: not followed
        return added

    def _add_part(self, key: Key) -> bool:
        if key in self.parts:
            return False
        self.parts.add(key)
        return True

    def _instance_keys(self, target: ast.Attribute) -> set[Key] | None:
        """`self.cfg = ...` in a method: the `self` of every method of every class of the
        file (a subclass's or a base class's method may run on the same object)."""
        root = target.value
        if not isinstance(root, ast.Name):
            return None
        key = self.flow.key_of(root)
        owner = self.methods.get(key[0]) if key is not None else None
        if owner is None:
            return None
        method = next(m for m in methods_taking_self(owner) if key is not None and id(m) == key[0])
        if method.args.args[0].arg != root.id:
            return None  # another parameter of the method
        return {
            (id(m), m.args.args[0].arg)
            for cls in dict.fromkeys(self.methods.values())
            for m in methods_taking_self(cls)
        }

    def _handed(self, call: ast.Call) -> bool | None:
        """A holder handed whole to a call: a function or class of the file gets it in a
        parameter; a builtin that only reads keeps nothing; anything else: not followed."""
        arguments = [*call.args, *(k.value for k in call.keywords if k.arg is not None)]
        given = [
            index
            for index, argument in enumerate(arguments)
            if self.whole(argument.value if isinstance(argument, ast.Starred) else argument)
        ]
        if not given:
            return False
        func = call.func
        key = self.flow.key_of(func) if isinstance(func, ast.Name) else None
        if key is None:
            return False if _dotted(func) in _COPYING_FUNCTIONS else None
        bindings = self.flow.bindings.get(key, ())
        if not bindings:
            return False if isinstance(func, ast.Name) and func.id in _READING_BUILTINS else None
        if len(bindings) != 1:
            return None
        found = parameters_given(bindings[0].node, call)
        if found is None:
            return None
        definition, passed = found
        names = parameter_names(definition)
        keys: set[Key] = set()
        added = False
        for name, argument in passed.items():
            if self.whole(argument):
                if name not in names:
                    return None
                if self._whole_or_part(argument):
                    keys.add((id(definition), name))
                else:
                    added |= self._add_part((id(definition), name))
        return self._add(keys) or added

    def _add(self, keys: set[Key]) -> bool:
        new = keys - self.keys
        self.keys |= new
        return bool(new)


def parameters_given(
    bound: ast.AST, call: ast.Call
) -> tuple[ast.FunctionDef | ast.AsyncFunctionDef, dict[str, ast.expr]] | None:
    """The function `call` runs when its callee's only binding is `bound` (a `def`, or a
    class whose `__init__` runs), and the argument it passes for each parameter; None for
    anything else, and for a function taking `*args` or `**kwargs`."""
    definition: ast.AST | None = bound
    constructor = isinstance(definition, ast.ClassDef)
    if isinstance(definition, ast.ClassDef):
        definition = next(
            (s for s in definition.body if isinstance(s, ast.FunctionDef) and s.name == "__init__"),
            None,
        )
    if not isinstance(definition, ast.FunctionDef | ast.AsyncFunctionDef):
        return None
    if definition.args.vararg is not None or definition.args.kwarg is not None:
        return None
    passed = arguments_by_parameter(definition, call, skip_self=constructor)
    return None if passed is None else (definition, passed)


def _element(display: ast.Dict | ast.List, key: ast.expr) -> ast.Dict | ast.List | None:
    """The mutable part `display[key]` gives: the display of a dict or list value, None for
    a literal (or a slice: a copy), `_ANY_PART` when the key is not known and some value
    is mutable."""
    if isinstance(display, ast.List):
        return None  # lists hold literals only (see `settings_value`)
    if isinstance(key, ast.Constant) and isinstance(key.value, str):
        for name, value in zip(display.keys, display.values, strict=True):
            if isinstance(name, ast.Constant) and name.value == key.value:
                return value if isinstance(value, ast.Dict | ast.List) else None
        return None  # no such key: reading it raises
    return _ANY_PART if mutable_parts(display) else None


def mutable_parts(display: ast.Dict) -> bool:
    """Whether a settings dict display holds lists or dicts (see `settings_value`)."""
    return any(isinstance(value, ast.Dict | ast.List) for value in display.values)


def _dotted(expr: ast.expr) -> str | None:
    """`np.array` as "np.array"; None for anything but names and attributes of names."""
    parts: list[str] = []
    while isinstance(expr, ast.Attribute):
        parts.append(expr.attr)
        expr = expr.value
    if not isinstance(expr, ast.Name):
        return None
    return ".".join([expr.id, *reversed(parts)])


def _pairs(stmt: ast.Assign) -> list[tuple[ast.expr, ast.expr]]:
    """`a, b = x, y`: each target with its value (`names.paired`); empty for any other
    assignment, and when the sides cannot be matched."""
    if len(stmt.targets) != 1 or not isinstance(stmt.targets[0], ast.Tuple | ast.List):
        return []
    return paired(stmt.targets[0], stmt.value)


def _methods_by_id(nodes: list[ast.AST]) -> dict[int, ast.ClassDef]:
    """id() of each method taking `self` of the classes among `nodes` -> its class."""
    return {
        id(method): node
        for node in nodes
        if isinstance(node, ast.ClassDef)
        for method in methods_taking_self(node)
    }


def never_changed(aliases: Aliases, nodes: list[ast.AST]) -> bool:
    """Whether nothing in `nodes` (the module's) may change the object `aliases` follows:
    follow it to a fixed point, then look for a change of any holder."""
    for _ in range(_ROUNDS):
        added = False
        for node in nodes:
            grown = aliases.grow(node)
            if grown is None:
                return False
            added = added or grown
        if not added:
            break
    else:
        return False
    for node in nodes:
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store | ast.Del):
            if aliases.whole(node.value):
                return False
        elif (isinstance(node, ast.AugAssign) and aliases.whole(node.target)) or (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in _MUTATING_METHODS
            and aliases.whole(node.func.value)
        ):
            return False
    return True


# How many passes over the file follow the dict (a holder found late may hand it on).
_ROUNDS = 6


def is_literal(expr: ast.expr) -> bool:
    """A number, string, flag or None, possibly negated, or a tuple of those (not a list:
    code given one element could change it in place)."""
    if isinstance(expr, ast.Constant):
        return isinstance(expr.value, int | float | str | bool) or expr.value is None
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.USub):
        return isinstance(expr.operand, ast.Constant) and isinstance(
            expr.operand.value, int | float
        )
    if isinstance(expr, ast.Tuple):
        return all(is_literal(element) for element in expr.elts)
    return False


def settings_value(expr: ast.expr, depth: int = 3) -> bool:
    """A value a settings dict may hold: a literal (`is_literal`), a list of literals, or a
    dict display of settings values under string keys (nested at most `depth` deep)."""
    if is_literal(expr):
        return True
    if isinstance(expr, ast.List):
        return all(is_literal(element) for element in expr.elts)
    return (
        depth > 0
        and isinstance(expr, ast.Dict)
        and all(isinstance(key, ast.Constant) and isinstance(key.value, str) for key in expr.keys)
        and all(settings_value(value, depth - 1) for value in expr.values)
    )


def kept_setting(
    tree: ast.Module,
    settings: frozenset[str],
    init: ast.FunctionDef | ast.AsyncFunctionDef,
    attr: str,
    expr: ast.expr,
) -> bool:
    """Whether `self.<attr> = expr`, in the `__init__` of a class of the module's body,
    stores a dict of literals that no code of the file may change: `expr` is an unchanged
    module-level dict (`settings`, see `unchanged_dicts`), a dict display of literals, or a
    parameter of `__init__` every construction of the class binds to one of those; and the
    dict, followed from the attribute (on any object: the receiver's type is not known
    everywhere) and from the name or parameter through names, parameters and `self`
    attributes, is never the root of a store nor the receiver of a mutating method
    (see `Aliases`)."""
    flow = NameFlow(tree)
    nodes = list(module_nodes(tree))
    methods = _methods_by_id(nodes)
    if id(init) not in methods:
        return False
    key = flow.key_of(expr) if isinstance(expr, ast.Name) else None
    if _deep_settings(tree, settings):
        return False  # (parts of nested settings are followed from the module's dicts only)
    if key is not None and key in {(id(tree), name) for name in settings}:
        aliases = Aliases(flow, key, methods)
    elif isinstance(expr, ast.Name) and expr.id in parameter_names(init):
        if not _constructions_pass_settings(tree, flow, settings, init, expr.id):
            return False
        aliases = Aliases(flow, (id(init), expr.id), methods)
    elif _literal_display(tree, expr):
        aliases = Aliases(flow, (id(init), ""), methods)
        aliases.keys = set()
    else:
        return False
    # The attribute on any object (`trainer.cfg["lr"] = ...` from outside the class).
    aliases.anywhere.add(attr)
    return never_changed(aliases, nodes)


def _names_setting(flow: NameFlow, expr: ast.expr, constant: set[Key]) -> bool:
    """`expr` is the name of an unchanged module-level dict (`constant`), or a name bound
    once, to such a name (`c = CFG`, then `Trainer(model, c)`: `unchanged_dicts` followed
    the dict into `c` too)."""
    if not isinstance(expr, ast.Name):
        return False
    key = flow.key_of(expr)
    if key in constant:
        return True
    bindings = flow.bindings.get(key, ()) if key is not None else ()
    if len(bindings) != 1 or not isinstance(bindings[0].value, ast.Name):
        return False
    return flow.key_of(bindings[0].value) in constant


def _deep_settings(tree: ast.Module, settings: frozenset[str]) -> bool:
    """Whether one of the module's settings dicts holds lists or dicts."""
    return any(
        mutable_parts(display) for name, display in literal_dicts(tree).items() if name in settings
    )


def _literal_display(tree: ast.Module, expr: ast.expr) -> bool:
    """`{"lr": 1e-3, ...}` (or `dict(lr=1e-3, ...)`, `dict` not rebound) of literals under
    string keys: a fresh dict no other name holds."""
    if isinstance(expr, ast.Call):
        if "dict" in binding_counts(module_nodes(tree)):
            return False
        expr = _keyword_dict(expr)
    return (
        isinstance(expr, ast.Dict)
        and all(isinstance(key, ast.Constant) and isinstance(key.value, str) for key in expr.keys)
        and all(is_literal(item) for item in expr.values)
    )


def _constructions_pass_settings(
    tree: ast.Module,
    flow: NameFlow,
    settings: frozenset[str],
    init: ast.FunctionDef | ast.AsyncFunctionDef,
    parameter: str,
) -> bool:
    """Whether the class whose `__init__` this is, a class of the module's body bound once,
    is only ever called (never otherwise named: no subclass, no alias), and every call
    passes for `parameter` a dict display of literals or an unchanged module-level dict."""
    owner = next(
        (
            stmt
            for stmt in tree.body
            if isinstance(stmt, ast.ClassDef) and any(s is init for s in stmt.body)
        ),
        None,
    )
    if owner is None or len(flow.bindings.get((id(tree), owner.name), ())) != 1:
        return False
    if init.args.vararg is not None or init.args.kwarg is not None:
        return False
    key = (id(tree), owner.name)
    constant = {(id(tree), name) for name in settings}
    calls = 0
    for node in module_nodes(tree):
        if not (isinstance(node, ast.Name) and node.id == owner.name):
            continue
        if flow.key_of(node) != key or isinstance(node.ctx, ast.Store):
            continue
        call = flow.parents.get(id(node))
        if not (isinstance(call, ast.Call) and call.func is node):
            return False
        passed = arguments_by_parameter(init, call, skip_self=True)
        argument = passed.get(parameter) if passed is not None else None
        if argument is None:
            return False
        if not (_names_setting(flow, argument, constant) or _literal_display(tree, argument)):
            return False
        calls += 1
    return calls > 0
