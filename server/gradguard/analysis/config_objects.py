"""Settings kept in a dataclass instance, or a `types.SimpleNamespace`, nothing in the file
may change.

Training scripts keep their settings in a dataclass: `@dataclass class Config: hidden: int =
32; beta: float = 1.0`, then `cfg = Config()` (or `Config(epochs=5)`) and `nn.Linear(4,
cfg.hidden)`, `loss = recon + cfg.beta * kld`. The `__init__` that `@dataclass` writes binds
each field to the keyword given for it, else to the field's default; so where nothing may
change the instance afterwards, `cfg.hidden` is the literal `32`: a number, never a tensor.

Known only when all of this holds (anything else: the instance is as unknown as before):

* the class is defined once at module level, decorated by `dataclass` alone (imported from
  `dataclasses`; `@dataclass(...)` with literal keywords, not `init=False`), has no base
  class, and its body holds only annotated fields, methods other than those that take over
  construction or attribute access (`__init__`, `__post_init__`, `__new__`, `__setattr__`,
  `__getattr__`, `__getattribute__`, `__delattr__`), and a docstring;
* a field's default is a number, string, flag or None literal (not `field(...)`, not a
  `ClassVar` or `InitVar`), bound once in the class body;
* the instance is built by `Name(...)` with keywords only (a keyword's literal overrides
  that field; any other keyword leaves it unknown);
* no code of the file stores into or deletes an attribute of that name, whatever the object
  (`x.hidden = ...`), but for a method of another class storing into its own instance
  (`self.hidden = cfg.hidden`, see `instance_stores`), and the file never names the builtin
  `setattr`, `delattr` or `vars` (a parameter `vars` is not it), nor `__dict__` or
  `__setattr__` (each can set any attribute);
* the instance cannot reach code that could change it: unless the dataclass is
  `frozen=True` (whose instances refuse attribute stores), the call is the value of a
  `name = Config(...)` bound once, and that object is followed into every name, parameter of
  the file's functions and constructors and `self` attribute it reaches, exactly as a
  settings dict is (`gradguard.analysis.constant_dicts`): handed to code outside the file,
  put in a container, returned or stored on another object, it stays unknown.

`SimpleNamespace(hidden=32, beta=1.0)` (`from types import SimpleNamespace`, or
`types.SimpleNamespace`, the import the file's only binding of that name) is read the same
way: its attributes are exactly its keywords (it takes no positional argument), so it is an
instance of a dataclass without defaults, never frozen, whose fields are the keywords given.
"""

from __future__ import annotations

import ast

from gradguard.analysis.constant_dicts import (
    Aliases,
    methods_taking_self,
    never_changed,
    parameters_given,
)
from gradguard.analysis.instance_stores import outside_instances, own_instance_stores
from gradguard.analysis.name_flow import Key, NameFlow
from gradguard.analysis.names import binding_counts, dotted, may_read_builtin
from gradguard.analysis.values import UNKNOWN, Kind, Value, evolve, literal
from gradguard.analysis.walk import module_nodes, module_nodes_of

# `@dataclass(...)` keywords that leave `__init__` and the attributes as described above.
_PLAIN_OPTIONS = frozenset(
    "repr eq order unsafe_hash frozen match_args kw_only slots weakref_slot".split()
)
# Methods that take over construction or attribute access.
_OWN_ACCESS = frozenset(
    "__init__ __post_init__ __new__ __setattr__ __getattr__ __getattribute__ __delattr__".split()
)
# Names through which code may set any attribute of any object.
_DYNAMIC = frozenset({"setattr", "delattr", "vars", "__dict__", "__setattr__"})


class _Dataclass:
    """One candidate class: its fields in order, each with its literal default (None: a
    field whose default is not known), and whether its instances are frozen. A
    `SimpleNamespace` (`namespace`) has the fields each call gives it."""

    def __init__(
        self, fields: dict[str, Value | None], frozen: bool, *, namespace: bool = False
    ) -> None:
        self.fields = fields
        self.frozen = frozen
        self.namespace = namespace


def config_instances(tree: ast.Module, stored: dict[str, int]) -> dict[int, Value]:
    """For each `Config(...)` call of a dataclass of the file that builds an instance nothing
    may change (see the module docstring), by id() of the call: a value whose `fields` are
    the dataclass's fields and whose `elements` are what each certainly holds (UNKNOWN when
    not certain). `stored` counts the attribute stores of the file
    (`FileSyntax.attribute_stores`)."""
    classes = _dataclasses(tree)
    namespaces = _namespace_names(tree)
    if not (classes or namespaces) or sets_attributes_dynamically(tree):
        return {}
    # A method's store into its own instance (`self.lr = cfg.lr` in a trainer's
    # `__init__`) changes an instance of its class: a dataclass's own methods' stores count.
    others = own_instance_stores(tree)
    for name in classes:
        others.pop(name, None)
    stored = outside_instances(stored, others)
    bound = binding_counts(module_nodes(tree))
    flow: _Flow | None = None  # built only for an instance that may need following
    found: dict[int, Value] = {}
    for call in module_nodes_of(tree, ast.Call):
        described = _described(call.func, classes, namespaces, bound)
        if described is None:
            continue
        value = _instance(call, described, stored)
        if value is None:
            continue
        if not described.frozen:
            flow = flow if flow is not None else _Flow(tree)
            if not _kept(call, flow):
                continue
        found[id(call)] = value
    return found


def _described(
    func: ast.expr,
    classes: dict[str, _Dataclass],
    namespaces: set[str],
    bound: dict[str, int],
) -> _Dataclass | None:
    """The fields a call of `func` gives its instance: a dataclass of the file's, or a
    `SimpleNamespace` taken as a dataclass whose fields are the call's keywords (filled in
    by `_instance`); None for any other callee, and when the class statement or the import
    is not the file's only binding of the name."""
    name = dotted(func)
    if name is None or bound.get(name.split(".", 1)[0]) != 1:
        return None
    if isinstance(func, ast.Name) and name in classes:
        return classes[name]
    return _Dataclass({}, frozen=False, namespace=True) if name in namespaces else None


def _namespace_names(tree: ast.Module) -> set[str]:
    """How the file's module-level imports name `types.SimpleNamespace`: `SimpleNamespace`
    (or its alias), `types.SimpleNamespace`."""
    return _imported_names(tree, "types", "SimpleNamespace")


def _dataclasses(tree: ast.Module) -> dict[str, _Dataclass]:
    """The module-level dataclasses of the file that qualify, by name."""
    decorators = _dataclass_names(tree)
    if not decorators:
        return {}
    found: dict[str, _Dataclass] = {}
    for stmt in tree.body:
        if not isinstance(stmt, ast.ClassDef) or stmt.bases or stmt.keywords:
            continue
        if len(stmt.decorator_list) != 1:
            continue
        frozen = _options(stmt.decorator_list[0], decorators)
        if frozen is None:
            continue
        fields = _fields(stmt)
        if fields is not None:
            found[stmt.name] = _Dataclass(fields, frozen)
    return found


def _dataclass_names(tree: ast.Module) -> set[str]:
    """How the file's module-level imports name the decorator: `dataclass` (or its alias),
    `dataclasses.dataclass`."""
    return _imported_names(tree, "dataclasses", "dataclass")


def _imported_names(tree: ast.Module, module: str, name: str) -> set[str]:
    """How the file's module-level imports name `module.name`: `from module import name`
    (or its alias), `import module` (or its alias) then `module.name`."""
    names: set[str] = set()
    for stmt in tree.body:
        if isinstance(stmt, ast.ImportFrom) and stmt.module == module and not stmt.level:
            names.update(a.asname or a.name for a in stmt.names if a.name == name)
        elif isinstance(stmt, ast.Import):
            names.update(f"{a.asname or a.name}.{name}" for a in stmt.names if a.name == module)
    return names


def _options(decorator: ast.expr, names: set[str]) -> bool | None:
    """Whether `@dataclass(...)` makes instances frozen; None when the decorator is not the
    plain `dataclass` with literal keywords of `_PLAIN_OPTIONS`."""
    call = decorator if isinstance(decorator, ast.Call) else None
    func = call.func if call is not None else decorator
    if dotted(func) not in names:
        return None
    if call is None:
        return False
    if call.args:
        return None
    frozen = False
    for keyword in call.keywords:
        if keyword.arg not in _PLAIN_OPTIONS or not isinstance(keyword.value, ast.Constant):
            return None
        if keyword.arg == "frozen":
            frozen = keyword.value.value is True
    return frozen


def _fields(node: ast.ClassDef) -> dict[str, Value | None] | None:
    """Each field of a qualifying class body with its literal default (None when not
    known); None when the body holds anything else (see the module docstring)."""
    fields: dict[str, Value | None] = {}
    bound: dict[str, int] = {}
    for index, stmt in enumerate(node.body):
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
            if stmt.name in _OWN_ACCESS:
                return None
            bound[stmt.name] = bound.get(stmt.name, 0) + 1
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            name = stmt.target.id
            bound[name] = bound.get(name, 0) + 1
            if _pseudo_field(stmt.annotation):
                return None  # changes which keywords `__init__` takes: not followed
            fields[name] = constant_value(stmt.value) if stmt.value is not None else None
        elif not (
            index == 0 and isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)
        ):
            return None
    for name, count in bound.items():
        if count > 1 and name in fields:
            fields[name] = None
    return fields


def _pseudo_field(annotation: ast.expr) -> bool:
    """`ClassVar[...]`, `InitVar[...]` or `KW_ONLY` (however spelled or quoted)."""
    text = ast.unparse(annotation)
    return any(word in text for word in ("ClassVar", "InitVar", "KW_ONLY"))


def constant_value(expr: ast.expr) -> Value | None:
    """A number, string, flag or None literal (`-1` too) as a value; None for others."""
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.USub):
        operand = expr.operand
        if not (
            isinstance(operand, ast.Constant)
            and isinstance(operand.value, int | float)
            and not isinstance(operand.value, bool)
        ):
            return None
        folded = literal(operand)
        return evolve(folded, const=-operand.value if folded.const is not None else None)
    if isinstance(expr, ast.Constant) and (
        expr.value is None or isinstance(expr.value, bool | int | float | str)
    ):
        return literal(expr)
    return None


def sets_attributes_dynamically(tree: ast.Module) -> bool:
    """The file names the builtin `setattr`, `delattr` or `vars` (not a parameter or local
    of that name: `def forward(self, x, vars=None)`), or an attribute `__dict__` or
    `__setattr__`."""
    return may_read_builtin(tree, _DYNAMIC) or any(
        node.attr in _DYNAMIC for node in module_nodes_of(tree, ast.Attribute)
    )


class _Flow:
    """The file's name flow, its nodes and its methods by id() (what `Aliases` follows)."""

    def __init__(self, tree: ast.Module) -> None:
        self.names = NameFlow(tree)
        self.nodes = list(module_nodes(tree))
        self.methods = {
            id(method): node
            for node in self.nodes
            if isinstance(node, ast.ClassDef)
            for method in methods_taking_self(node)
        }


def _kept(call: ast.Call, flow: _Flow) -> bool:
    """The call is the value of `name = Config(...)` bound once, or an argument of a call of
    a function or class of the file (`Trainer(Config())`: the object is bound to that
    parameter alone), and no holder of that object may hand it to code that could change it
    (`constant_dicts.Aliases`)."""
    parent = flow.names.parents.get(id(call))
    if isinstance(parent, ast.keyword):
        parent = flow.names.parents.get(id(parent))
    if isinstance(parent, ast.Call) and parent.func is not call:
        # A parameter no statement of its function binds again holds that object alone.
        key = _parameter_key(call, parent, flow)
        if key is None or flow.names.bindings.get(key):
            return False
    else:
        if isinstance(parent, ast.Assign) and len(parent.targets) == 1:
            target = parent.targets[0]
        elif isinstance(parent, ast.AnnAssign) and parent.value is call:
            target = parent.target
        else:
            return False
        if not isinstance(target, ast.Name):
            return False
        key = flow.names.key_of(target)
        if key is None or len(flow.names.bindings.get(key, ())) != 1:
            return False
    return never_changed(Aliases(flow.names, key, flow.methods), flow.nodes)


def _parameter_key(argument: ast.Call, call: ast.Call, flow: _Flow) -> Key | None:
    """The parameter that `call`, a call of a function or class of the file, binds to
    `argument`, one of its own arguments."""
    func = call.func
    key = flow.names.key_of(func) if isinstance(func, ast.Name) else None
    bindings = flow.names.bindings.get(key, ()) if key is not None else ()
    found = parameters_given(bindings[0].node, call) if len(bindings) == 1 else None
    if found is None:
        return None
    definition, passed = found
    names = [name for name, given in passed.items() if given is argument]
    return (id(definition), names[0]) if len(names) == 1 else None


def _instance(call: ast.Call, described: _Dataclass, stored: dict[str, int]) -> Value | None:
    """What each field of the instance `call` builds certainly holds; None when the call
    passes anything by position or unpacking."""
    if call.args or any(k.arg is None for k in call.keywords):
        return None
    given = {k.arg: k.value for k in call.keywords if k.arg is not None}
    namespace = described.namespace
    if namespace:
        described = _Dataclass(dict.fromkeys(given), frozen=False)
    if not set(given) <= set(described.fields):
        return None  # a TypeError at run time
    names = tuple(described.fields)
    elements: list[Value] = []
    for name in names:
        value = constant_value(given[name]) if name in given else described.fields[name]
        elements.append(UNKNOWN if value is None or stored.get(name) else value)
    if all(element is UNKNOWN for element in elements):
        return None
    if namespace:
        # The object itself: no class of the file stands behind it.
        return Value(kind=Kind.INSTANCE, elements=tuple(elements), fields=names)
    return Value(elements=tuple(elements), fields=names)
