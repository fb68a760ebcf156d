"""One-shot iterators of a model's parameters, bound to a name and iterated twice.

`model.parameters()` (and `named_parameters()`, `buffers()`, `children()`, `modules()` and
their `named_` forms) returns a generator; so do `filter(...)`, `map(...)`, `iter(...)`,
`zip(...)`, `enumerate(...)`, `itertools.chain(...)` and generator expressions. Iterated to
its end once, a generator yields nothing more: the second loop over it runs zero times, an
optimizer built from it raises "optimizer got an empty parameter list", `clip_grad_norm_`
clips nothing.

The fact is certain only when all of this holds (anything else: silence):

* the name is bound by `name = <one-shot>` in a function or module body, or is a parameter
  that every call binds to one (see below), where the value is
  `M.parameters()` (or another generator method of torch.nn.Module) on a module the file
  certainly built (`self` of a module class of the file, a name bound only to constructions
  of torch.nn layers, local module classes or library models, a name the dataflow pass saw
  called as a known module, or a parameter holding exactly such a name's value: the only
  call of its function passes that name, `NameFlow.forwarded`; or an attribute
  `self.<a>` / `obj.<a>`, `obj` bound only to instances of a class of the file, when every
  store of `<a>` in the file is `self.<a> = <such a construction>` in a plain method of that
  class, or `self.<a> = <parameter>` in its `__init__` when every construction of the class
  in the file passes such a construction or such a name there (`constructor_arguments`:
  the class is never subclassed nor passed around), no class body of the file defines
  `<a>`, the class and its bases are of the file,
  `object` or torch.nn.Module and redefine no attribute access, and the file never names
  `setattr`, `delattr`, `vars`, `__dict__` or `__setattr__`), or one of the one-shot
  wrappers above around an expression that calls such a method (whatever its receiver: the
  wrapper itself is one-shot);
* a later read iterates it to its end for certain: a `for` loop over it without `break`,
  a list/set/dict comprehension, `list()`/`tuple()`/`set()`/`sorted()`/`sum()`/`dict()`
  (builtins not shadowed), a torch.optim optimizer, `clip_grad_norm_`/`clip_grad_value_`
  (torch's or an `accelerate.Accelerator`'s), `parameters_to_vector`, `*name` unpacking;
  generator expressions over it count when such a consumer takes them;
* the first consumption runs whenever the second does: it is a statement of the binding's
  own block (or of a `with` body in it), not under `if`, `try` or a loop, nor in a
  conditional expression; the second comes later (anywhere, even under `if`); or there is
  no first one and the consumption sits in the body of a loop started after the binding,
  which runs again: no unconditional `break`/`return`/`raise` in the loop body, not a loop
  over a literal of one element, and only configuration tests (`if args.clip:`,
  `if x is not None:`, `if max_norm > 0:`) between the loop and the consumption;
* nothing re-binds or deletes the name (or an alias, `a = name`) in between, no function
  declares it `global`/`nonlocal`, and no nested function or lambda reads it (it may run
  at any time).

A parameter counts as bound to a one-shot iterator at the top of its function's body
(D2L's `grad_clipping(params, theta)` called as `grad_clipping(model.parameters(), 1)`)
when the function is a plain `def` of the module, defined once, not decorated, never
re-bound, and never read but as the callee of a call (not passed around, stored or given
as a callback: then some call is not seen), called at least once, no call unpacking `*`
or `**` arguments, and every call passes a one-shot value (as above) at that parameter's
position or keyword. Its body is then scanned as if the name were bound at its top.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from gradguard.analysis import libraries
from gradguard.analysis import torch_api as api
from gradguard.analysis.constructor_arguments import constructor_arguments
from gradguard.analysis.events import ModuleCall, OptimizerCall
from gradguard.analysis.held_iterators import held_iterators
from gradguard.analysis.model import LoopNode, ModuleAnalysis
from gradguard.analysis.name_flow import Key, NameFlow
from gradguard.analysis.names import class_body_names
from gradguard.analysis.walk import module_nodes_of, own_nodes

# Builtins returning a one-shot iterator whatever they are given.
_ONE_SHOT_BUILTINS = frozenset("filter map iter zip enumerate reversed".split())
_ONE_SHOT_FUNCTIONS = frozenset(["itertools.chain", "itertools.chain.from_iterable"])
# Their last names, as any spelling of them ends (`chain`, `itertools.chain.from_iterable`).
_ONE_SHOT_NAMES = frozenset(name.rsplit(".", 1)[-1] for name in _ONE_SHOT_FUNCTIONS)
# Builtins that iterate their only argument to its end, and what they make of nothing.
_COLLECTING_BUILTINS = {
    "list": "returns an empty list",
    "tuple": "returns an empty tuple",
    "set": "returns an empty set",
    "frozenset": "returns an empty set",
    "sorted": "returns an empty list",
    "dict": "returns an empty dict",
    "sum": "returns 0",
}
_COMPREHENSIONS = {
    ast.ListComp: "builds an empty list",
    ast.SetComp: "builds an empty set",
    ast.DictComp: "builds an empty dict",
}
_ACCELERATORS = frozenset(["accelerate.Accelerator", "accelerate.accelerator.Accelerator"])
_ACCELERATOR_CLIPS = frozenset(["clip_grad_norm_", "clip_grad_value_"])
_NESTED_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_LOOPS = (ast.For, ast.AsyncFor, ast.While)
# Names through which the file may set or read attributes by computed names.
_DYNAMIC_NAMES = frozenset(["setattr", "delattr", "vars", "__dict__", "__setattr__"])
# Methods of a class that change what reading or setting an attribute does.
_ATTRIBUTE_ACCESS = frozenset(["__getattr__", "__getattribute__", "__setattr__", "__slots__"])
_EXITS = (ast.Break, ast.Return, ast.Raise)
# A read of the generator: a name, or `self.<a>` (see `held_iterators`).
Read = ast.Name | ast.Attribute


@dataclass(frozen=True, eq=False)
class Consumption:
    """A read that iterates the generator to its end.

    `node` is the call, `for` statement or comprehension that iterates, `name` the variable
    as read there. `consumer` names it for a message ("SGD()", "the loop at line 7");
    given an exhausted generator it raises `error`, or (`error` None) it runs and does
    what `silent` says ("clips no gradient", "runs zero times").
    """

    node: ast.AST
    name: Read
    consumer: str
    silent: str
    error: str | None

    @property
    def label(self) -> str:
        """The read as written: `params`, `self.params`."""
        return ast.unparse(self.name)


@dataclass(frozen=True, eq=False)
class ReusedIterator:
    """A one-shot iterator bound to a name whose `second` consumption certainly sees it
    exhausted: by `first`, or (`first` None) by the same consumption on an earlier iteration
    of `loop`. `adjacent` is True when the statement right after the binding is where the
    generator is first iterated (so iterating it eagerly at the binding changes nothing).

    For a parameter (`binding` an `ast.arg`), `source` is the first call's argument and
    `arguments` every call's one-shot argument for it, in the order of the file."""

    binding: ast.Assign | ast.arg
    name: str
    source: ast.expr
    second: Consumption
    first: Consumption | None
    loop: LoopNode | None
    adjacent: bool
    arguments: tuple[ast.expr, ...] = ()


def reused_iterators(
    analysis: ModuleAnalysis, flow: Callable[[], NameFlow]
) -> list[ReusedIterator]:
    """Every one-shot iterator of the file iterated again once exhausted. `flow` gives the
    file's name flow; it costs a pass over the file, taken only when some binding's value
    calls a generator method at all."""
    bindings = [
        node for node in module_nodes_of(analysis.tree, ast.Assign) if _may_be_one_shot(node.value)
    ]
    # Calls of the module's plain functions handing one on: only their parameters may be
    # bound to one at every call (`clip_grad_norm_(model.parameters())` is no such call).
    plain = {
        node.name
        for node in analysis.tree.body
        if isinstance(node, ast.FunctionDef) and not node.decorator_list
    }
    handed = [
        node
        for node in module_nodes_of(analysis.tree, ast.Call)
        if isinstance(node.func, ast.Name)
        and node.func.id in plain
        and any(_may_be_one_shot(a) for a in [*node.args, *(k.value for k in node.keywords)])
    ]
    if not bindings and not handed:
        return []
    finder = _Finder(analysis, flow())
    found = [reuse for node in bindings if (reuse := finder.check(node)) is not None]
    if handed:
        found.extend(finder.check_parameters())
    kept = [b for b in bindings if any(isinstance(t, ast.Attribute) for t in b.targets)]
    return found + held_iterators(finder, kept) if kept else found


class _Finder:
    """Decides each binding (see the module docstring)."""

    def __init__(self, analysis: ModuleAnalysis, flow: NameFlow) -> None:
        self.analysis = analysis
        self.flow = flow
        self._declared: set[str] | None = None
        self._called_modules: set[Key] | None = None
        self._dynamic: bool | None = None

    # -- what `held_iterators` asks ---------------------------------------------------------

    def self_class_of(self, method: ast.FunctionDef | ast.AsyncFunctionDef) -> ast.ClassDef | None:
        """The class of the file of which `method` is a plain method whose first parameter
        (`self`) is never re-bound."""
        positional = [*method.args.posonlyargs, *method.args.args]
        if not positional:
            return None
        receiver = ast.Name(id=positional[0].arg, ctx=ast.Load())
        return self._self_class(receiver, (id(method), positional[0].arg))

    def consumption_of(self, read: ast.Name | ast.Attribute) -> Consumption | None:
        """How the read `read` (a name, or `self.<a>`) iterates a generator to its end, if it
        certainly does."""
        return self.consumption(read)

    def sets_attributes_dynamically(self) -> bool:
        return self._dynamic_attributes()

    def plain_class(self, node: ast.ClassDef) -> bool:
        return self._plain_class(node, set())

    def local_class(self, expr: ast.expr) -> ast.ClassDef | None:
        """The class of the file `expr` names, when that name is bound only to it."""
        return self._local_class(expr)

    @staticmethod
    def class_binds(node: ast.ClassDef, name: str) -> bool:
        """The class body binds `name` (a method, a class attribute)."""
        return name in class_body_names(node)

    # -- the binding -----------------------------------------------------------------------

    def check(self, stmt: ast.Assign) -> ReusedIterator | None:
        if len(stmt.targets) != 1 or not isinstance(stmt.targets[0], ast.Name):
            return None
        target = stmt.targets[0]
        key = self.flow.key_of(target)
        if key is None or not self.one_shot(stmt.value) or not self._plain_scope(key):
            return None
        if target.id in self._globally_declared():
            return None
        keys = self._holders(key)
        return _Scan(self, stmt, key, keys).run() if keys is not None else None

    def check_parameters(self) -> list[ReusedIterator]:
        """Parameters every call binds to a one-shot iterator, iterated again in their
        function (see the module docstring)."""
        found = []
        for function, calls in self._called_only().items():
            for parameter in _plain_parameters(function):
                arguments = [_argument_for(function, parameter, call) for call in calls]
                if not all(a is not None and self.one_shot(a) for a in arguments):
                    continue
                reuse = self._check_parameter(function, parameter, tuple(filter(None, arguments)))
                if reuse is not None:
                    found.append(reuse)
        return found

    def _called_only(self) -> dict[ast.FunctionDef, list[ast.Call]]:
        """Plain functions of the module, defined once and never re-bound, whose every read
        is the callee of a call without unpacked arguments (at least one), with the calls."""
        tree = self.analysis.tree
        found: dict[ast.FunctionDef, list[ast.Call]] = {}
        for function in tree.body:
            if not isinstance(function, ast.FunctionDef) or function.decorator_list:
                continue
            key = (id(tree), function.name)
            if len(self.flow.bindings.get(key, [])) != 1 or (
                function.name in self._globally_declared()
            ):
                continue
            calls = [self.flow.parents.get(id(n)) for n in self.flow.loads.get(key, [])]
            if calls and all(_plain_call_of(c, function.name) for c in calls):
                found[function] = [c for c in calls if isinstance(c, ast.Call)]
        return found

    def _check_parameter(
        self, function: ast.FunctionDef, parameter: ast.arg, arguments: tuple[ast.expr, ...]
    ) -> ReusedIterator | None:
        """The parameter, bound at the top of the body, iterated again once exhausted."""
        key = (id(function), parameter.arg)
        if parameter.arg in self._globally_declared():
            return None
        keys = self._holders(key)
        return _Scan(self, parameter, key, keys, arguments).run() if keys is not None else None

    def _holders(self, key: Key) -> set[Key] | None:
        """`key` and the names of its scope bound only to a copy of it; None when one of
        them is read inside a nested function, lambda or class (which may run any time)."""
        keys = {key, *self._aliases(key)}
        reads = [name for k in keys for name in self.flow.loads.get(k, [])]
        if any(self._read_elsewhere(name, key) for name in reads):
            return None
        return keys

    def _plain_scope(self, key: Key) -> bool:
        """The name belongs to a function or the module (not a class body)."""
        scope = next((n for n in self._scope_nodes() if id(n) == key[0]), None)
        return isinstance(scope, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef)

    def _scope_nodes(self) -> Iterator[ast.AST]:
        yield self.analysis.tree
        yield from module_nodes_of(self.analysis.tree, ast.FunctionDef, ast.AsyncFunctionDef)

    def _globally_declared(self) -> set[str]:
        if self._declared is None:
            self._declared = {
                name
                for node in module_nodes_of(self.analysis.tree, ast.Global, ast.Nonlocal)
                for name in node.names
            }
        return self._declared

    def _aliases(self, key: Key) -> list[Key]:
        """Names of the same scope bound only to a copy of `key` (`params_to_clip = params`)."""
        found = []
        for other, bindings in self.flow.bindings.items():
            if other == key or other[0] != key[0] or not bindings:
                continue
            if all(
                isinstance(b.node, ast.Assign)
                and isinstance(b.value, ast.Name)
                and self.flow.key_of(b.value) == key
                for b in bindings
            ):
                found.append(other)
        return found

    def _read_elsewhere(self, name: ast.Name, key: Key) -> bool:
        """A read inside a nested function, lambda or class: it may run at any time."""
        node: ast.AST = name
        while (parent := self.flow.parents.get(id(node))) is not None:
            if id(parent) == key[0]:
                return False
            if isinstance(parent, _NESTED_SCOPES):
                return True
            node = parent
        return False

    # -- one-shot values -------------------------------------------------------------------

    def one_shot(self, value: ast.expr) -> bool:
        """`M.parameters()` on a certain module, or a one-shot wrapper around a call of a
        generator method (see the module docstring)."""
        if isinstance(value, ast.GeneratorExp):
            return _calls_generator_method(value)
        if not isinstance(value, ast.Call):
            return False
        func = value.func
        if isinstance(func, ast.Attribute) and func.attr in api.MODULE_GENERATOR_METHODS:
            return self.certain_module(func.value)
        if self._builtin(func, _ONE_SHOT_BUILTINS) or (
            self.flow.qualified(func) in _ONE_SHOT_FUNCTIONS
        ):
            return any(_calls_generator_method(a) for a in [*value.args, *value.keywords])
        return False

    def _builtin(self, func: ast.expr, names: frozenset[str] | dict[str, str]) -> bool:
        """`func` is one of the builtins `names`, not shadowed anywhere in the file."""
        return (
            isinstance(func, ast.Name)
            and func.id in names
            and self.flow.key_of(func) == (id(self.flow.tree), func.id)
            and not self.flow.bound_in_module(func.id)
        )

    # -- modules ---------------------------------------------------------------------------

    def certain_module(self, receiver: ast.expr) -> bool:
        """`receiver` certainly holds a torch.nn.Module whose generator methods are torch's."""
        if isinstance(receiver, ast.Attribute):
            return self._module_attribute(receiver)
        if not isinstance(receiver, ast.Name):
            return False
        key = self.flow.key_of(receiver)
        if key is None:
            return False
        if self._self_of_module(receiver, key):
            return True
        return self._certain_module_key(key, frozenset())

    def _certain_module_key(self, key: Key, seen: frozenset[Key]) -> bool:
        """The name `key` certainly holds a torch.nn.Module: bound only to constructions of
        one, bound once and called as a known module, or a parameter that holds exactly the
        value of such a name (`configure(model)` called once as `configure(net)`)."""
        bindings = [b for b in self.flow.bindings.get(key, []) if not self._recast(b.value, key)]
        if bindings and all(self._constructs_module(b.value) for b in bindings):
            return True
        plain = all(isinstance(b.node, ast.Assign) for b in bindings)
        if len(bindings) <= 1 and plain and key in self._modules_called():
            return True
        source = self.flow.forwarded_from(key) if not bindings else None
        return (
            source is not None
            and source not in seen
            and self._certain_module_key(source, seen | {key})
        )

    def _recast(self, value: ast.expr | None, key: Key) -> bool:
        """`m = m.to(device)`: the same module again."""
        return (
            isinstance(value, ast.Call)
            and isinstance(value.func, ast.Attribute)
            and value.func.attr in api.MODULE_SELF_METHODS
            and isinstance(value.func.value, ast.Name)
            and self.flow.key_of(value.func.value) == key
        )

    def _constructs_module(self, value: ast.expr | None) -> bool:
        """`nn.Linear(...)`, `Net(...)` of a module class of the file, a library model,
        maybe followed by `.to(device)` and the like."""
        while (
            isinstance(value, ast.Call)
            and isinstance(value.func, ast.Attribute)
            and value.func.attr in api.MODULE_SELF_METHODS
        ):
            value = value.func.value
        if not isinstance(value, ast.Call):
            return False
        qualified = self.flow.qualified(value.func)
        if qualified is not None:
            return _torch_layer(qualified) or libraries.library_model(qualified, value) is not None
        local = self._local_class(value.func)
        return local is not None and self._module_class(local, set())

    def _local_class(self, expr: ast.expr) -> ast.ClassDef | None:
        """The class of the file `expr` names, when that name is bound only to it."""
        key = self.flow.key_of(expr) if isinstance(expr, ast.Name) else None
        bindings = self.flow.bindings.get(key, []) if key is not None else []
        if len(bindings) == 1 and isinstance(bindings[0].node, ast.ClassDef):
            return bindings[0].node
        return None

    def _module_class(self, node: ast.ClassDef, seen: set[int]) -> bool:
        """A class deriving only from torch.nn.Module (or LightningModule, or a torch.nn
        layer, or such classes of the file) that redefines no generator method."""
        if id(node) in seen or not node.bases or node.keywords:
            return False
        seen.add(id(node))
        for stmt in node.body:
            if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.Assign):
                names = [stmt.name] if not isinstance(stmt, ast.Assign) else _assigned(stmt)
                if any(name in api.MODULE_GENERATOR_METHODS for name in names):
                    return False
        for base in node.bases:
            qualified = self.flow.qualified(base)
            if qualified is not None:
                if not (
                    qualified in api.MODULE_BASES
                    or qualified in libraries.LIGHTNING_MODULES
                    or _torch_layer(qualified)
                ):
                    return False
                continue
            local = self._local_class(base)
            if local is None or not self._module_class(local, seen):
                return False
        return True

    def _self_of_module(self, receiver: ast.Name, key: Key) -> bool:
        """`self` of a plain method of a module class of the file, never re-bound."""
        owner = self._self_class(receiver, key)
        return owner is not None and self._module_class(owner, set())

    def _function_of(self, key: Key) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        """The function of the file whose scope binds `key`."""
        return next(
            (
                n
                for n in module_nodes_of(self.analysis.tree, ast.FunctionDef, ast.AsyncFunctionDef)
                if id(n) == key[0]
            ),
            None,
        )

    def _self_class(self, receiver: ast.Name, key: Key) -> ast.ClassDef | None:
        """The class of the file whose plain method has `receiver` as its first parameter,
        never re-bound (`self`)."""
        method = self._function_of(key)
        if method is None or self.flow.bindings.get(key):
            return None
        owner = self.flow.parents.get(id(method))
        arguments = method.args.posonlyargs + method.args.args
        if (
            isinstance(owner, ast.ClassDef)
            and not method.decorator_list
            and arguments
            and arguments[0].arg == receiver.id
        ):
            return owner
        return None

    # -- modules held in attributes --------------------------------------------------------

    def _module_attribute(self, receiver: ast.Attribute) -> bool:
        """`self.net` (or `agent.net`, `agent` an instance of the class): every store of the
        attribute in the file sets it to a new module in a method of the class."""
        holder = receiver.value
        key = self.flow.key_of(holder) if isinstance(holder, ast.Name) else None
        if key is None or not isinstance(holder, ast.Name):
            return False
        owner = self._self_class(holder, key) or self._instance_class(key)
        return owner is not None and self._holds_modules(owner, receiver.attr)

    def _instance_class(self, key: Key) -> ast.ClassDef | None:
        """The class of the file the name `key` is bound to instances of, by plain
        assignments of `Class(...)` only."""
        owners = [
            self._local_class(b.value.func)
            if isinstance(b.node, ast.Assign) and isinstance(b.value, ast.Call)
            else None
            for b in self.flow.bindings.get(key, [])
        ]
        first = owners[0] if owners else None
        return first if first is not None and all(o is first for o in owners) else None

    def _holds_modules(self, owner: ast.ClassDef, attribute: str) -> bool:
        """Every store of `attribute` in the file is `self.<attribute> = <new module>` in a
        method of `owner`; the file never sets attributes by computed names; no class of
        the file defines `attribute` in its body; `owner` and its bases are classes of the
        file, `object` or torch.nn.Module and redefine no attribute access."""
        if self._dynamic_attributes() or not self._plain_class(owner, set()):
            return False
        classes = module_nodes_of(self.analysis.tree, ast.ClassDef)
        if any(attribute in class_body_names(c) for c in classes):
            return False
        stores = [
            node
            for node in module_nodes_of(self.analysis.tree, ast.Attribute)
            if node.attr == attribute and not isinstance(node.ctx, ast.Load)
        ]
        return bool(stores) and all(self._module_store(node, owner) for node in stores)

    def _module_store(self, target: ast.Attribute, owner: ast.ClassDef) -> bool:
        """`self.<attribute> = <new module>`, alone, in a plain method of `owner`."""
        stmt = self.flow.parents.get(id(target))
        holder = target.value
        if not (
            isinstance(stmt, ast.Assign)
            and stmt.targets == [target]
            and isinstance(holder, ast.Name)
        ):
            return False
        key = self.flow.key_of(holder)
        if key is None or self._self_class(holder, key) is not owner:
            return False
        return self._constructs_module(stmt.value) or self._module_argument(stmt.value, key, owner)

    def _module_argument(self, value: ast.expr, holder: Key, owner: ast.ClassDef) -> bool:
        """`value` is a parameter of `owner.__init__` (whose `self` is `holder`) that every
        construction of the class in the file passes a new module or a name certainly
        holding one: `self.model = model` with `Trainer(Net(), args)`."""
        if not isinstance(value, ast.Name) or self.flow.key_of(value) != (holder[0], value.id):
            return False
        method = self._function_of(holder)
        if not isinstance(method, ast.FunctionDef):
            return False
        arguments = constructor_arguments(self.flow, owner, method, value.id)
        return arguments is not None and all(self._passes_module(a) for a in arguments)

    def _passes_module(self, argument: ast.expr) -> bool:
        """A new module, or a plain name certainly holding one (no attribute: no cycle)."""
        if self._constructs_module(argument):
            return True
        if not isinstance(argument, ast.Name):
            return False
        key = self.flow.key_of(argument)
        return key is not None and self._certain_module_key(key, frozenset())

    def _plain_class(self, node: ast.ClassDef, seen: set[int]) -> bool:
        """A class whose bases are classes of the file (alike), `object` or
        torch.nn.Module, none of them redefining attribute access."""
        if id(node) in seen or node.keywords or node.decorator_list:
            return False
        seen.add(id(node))
        if class_body_names(node) & _ATTRIBUTE_ACCESS:
            return False
        for base in node.bases:
            if self._base_object(base) or self.flow.qualified(base) in api.MODULE_BASES:
                continue
            local = self._local_class(base)
            if local is None or not self._plain_class(local, seen):
                return False
        return True

    def _base_object(self, base: ast.expr) -> bool:
        """`object`, the builtin (not shadowed)."""
        return (
            isinstance(base, ast.Name)
            and base.id == "object"
            and not self.flow.bound_in_module("object")
        )

    def _dynamic_attributes(self) -> bool:
        """The file names `setattr`, `delattr`, `vars`, `__dict__` or `__setattr__`: an
        attribute may be set by a computed name."""
        if self._dynamic is None:
            self._dynamic = any(
                (isinstance(n, ast.Name) and n.id in _DYNAMIC_NAMES)
                or (isinstance(n, ast.Attribute) and n.attr in _DYNAMIC_NAMES)
                for n in module_nodes_of(self.analysis.tree, ast.Name, ast.Attribute)
            )
        return self._dynamic

    def _modules_called(self) -> set[Key]:
        """Keys of names the dataflow pass saw called as a known module (`model(x)`)."""
        if self._called_modules is None:
            self._called_modules = set()
            for call in self.analysis.events.of(ModuleCall):
                if isinstance(call.target, ast.Name) and call.value.module is not None:
                    key = self.flow.key_of(call.target)
                    if key is not None:
                        self._called_modules.add(key)
        return self._called_modules

    # -- consumptions ----------------------------------------------------------------------

    def consumption(self, name: Read) -> Consumption | None:
        """How the read `name` iterates the generator to its end, if it certainly does."""
        parent = self.flow.parents.get(id(name))
        if isinstance(parent, ast.For | ast.AsyncFor) and parent.iter is name:
            if any(isinstance(n, ast.Break) for n in _own_loop_nodes(parent.body)):
                return None
            where = f"the loop at line {parent.lineno}"
            return Consumption(parent, name, where, "runs zero times", None)
        if isinstance(parent, ast.comprehension) and parent.iter is name:
            comprehension = self.flow.parents.get(id(parent))
            if not isinstance(comprehension, _COMPREHENSION_NODES):
                return None
            if comprehension.generators[0] is not parent:
                return None
            effect = _COMPREHENSIONS.get(type(comprehension))
            if effect is not None:
                return Consumption(comprehension, name, "the comprehension", effect, None)
            return self._argument(comprehension, name)
        return self._argument(name, name)

    def _argument(self, expr: ast.expr, name: Read) -> Consumption | None:
        """`expr` (the name, or a generator expression over it) handed to a consumer."""
        parent = self.flow.parents.get(id(expr))
        if isinstance(parent, ast.Starred) and expr is name:
            outer = self.flow.parents.get(id(parent))
            if isinstance(outer, ast.Call | ast.List | ast.Tuple | ast.Set):
                text = f"`*{ast.unparse(name)}`"
                return Consumption(parent, name, text, "unpacks nothing", None)
            return None
        if isinstance(parent, ast.Dict):
            return self._parameter_group(parent, expr, name)
        keyword: str | None = None
        if isinstance(parent, ast.keyword):
            keyword = parent.arg
            parent = self.flow.parents.get(id(parent))
        if not isinstance(parent, ast.Call) or parent.func is expr:
            return None
        position = next((i for i, a in enumerate(parent.args) if a is expr), None)
        if position is None and keyword is None:
            return None
        return self._call(parent, position, keyword, name)

    def _call(
        self, call: ast.Call, position: int | None, keyword: str | None, name: Read
    ) -> Consumption | None:
        func = call.func
        if self._builtin(func, _COLLECTING_BUILTINS) and position == 0 and len(call.args) == 1:
            assert isinstance(func, ast.Name)
            return Consumption(call, name, f"{func.id}()", _COLLECTING_BUILTINS[func.id], None)
        qualified = self.flow.qualified(func)
        if qualified is not None and api.optimizer_class(qualified):
            if position == 0 or keyword == "params":
                return _optimizer_consumption(call, name, qualified)
            return None
        if qualified in api.ITERATING_FUNCTIONS:
            where, word, error = api.ITERATING_FUNCTIONS[qualified]
            if position == where or keyword == word:
                return _function_consumption(call, name, qualified.rsplit(".", 1)[-1], error)
            return None
        helper = self._helper_consumption(call, position, keyword, name)
        if helper is not None:
            return helper
        return self._accelerator_clip(call, position, keyword, name)

    def _helper_consumption(
        self, call: ast.Call, position: int | None, keyword: str | None, name: Read
    ) -> Consumption | None:
        """`describe(params)` where `describe` is a function of the file (defined once at
        module level, never re-bound or decorated) whose every call iterates that parameter
        to its end (see `_iterates_parameter`)."""
        func = call.func
        if not isinstance(func, ast.Name) or self.flow.key_of(func) != (
            id(self.flow.tree),
            func.id,
        ):
            return None
        tree = self.analysis.tree
        defined = [
            node
            for node in tree.body
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == func.id
        ]
        stores = [
            node
            for node in module_nodes_of(tree, ast.Name)
            if node.id == func.id and not isinstance(node.ctx, ast.Load)
        ]
        if len(defined) != 1 or stores or func.id in self._globally_declared():
            return None
        function = defined[0]
        if not isinstance(function, ast.FunctionDef) or function.decorator_list:
            return None
        parameter = _parameter_at(function, position, keyword)
        if parameter is None or not _iterates_parameter(function, parameter):
            return None
        return Consumption(call, name, f"`{func.id}()`", "iterates nothing", None)

    def _accelerator_clip(
        self, call: ast.Call, position: int | None, keyword: str | None, name: Read
    ) -> Consumption | None:
        """`accelerator.clip_grad_norm_(params, ...)` on an `accelerate.Accelerator`."""
        func = call.func
        if not (
            isinstance(func, ast.Attribute)
            and func.attr in _ACCELERATOR_CLIPS
            and isinstance(func.value, ast.Name)
            and (position == 0 or keyword == "parameters")
        ):
            return None
        key = self.flow.key_of(func.value)
        bindings = self.flow.bindings.get(key, []) if key is not None else []
        if not bindings or not all(
            isinstance(b.value, ast.Call) and self.flow.qualified(b.value.func) in _ACCELERATORS
            for b in bindings
        ):
            return None
        # Accelerator's clipping hands the parameters on to torch's.
        error = api.ITERATING_FUNCTIONS[f"torch.nn.utils.{func.attr}"][2]
        return _function_consumption(call, name, func.attr, error)

    def _parameter_group(self, group: ast.Dict, expr: ast.expr, name: Read) -> Consumption | None:
        """`{"params": name}` in the parameter groups of a torch.optim optimizer, or given
        to `optimizer.add_param_group(...)`."""
        if expr is not name or not any(
            value is expr and isinstance(k, ast.Constant) and k.value == "params"
            for k, value in zip(group.keys, group.values, strict=True)
        ):
            return None
        outer = self.flow.parents.get(id(group))
        if isinstance(outer, ast.List | ast.Tuple):
            holder = self.flow.parents.get(id(outer))
            if holder is not None and isinstance(holder, ast.keyword):
                holder = self.flow.parents.get(id(holder))
            if isinstance(holder, ast.Call) and (
                (q := self.flow.qualified(holder.func)) is not None and api.optimizer_class(q)
            ):
                return _group_consumption(holder, name, f"{q.rsplit('.', 1)[-1]}()")
            return None
        if (
            isinstance(outer, ast.Call)
            and outer.args
            and outer.args[0] is group
            and any(
                u.method == "add_param_group" and u.node is outer
                for u in self.analysis.events.of(OptimizerCall)
            )
        ):
            return _group_consumption(outer, name, "add_param_group()")
        return None


_COMPREHENSION_NODES = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _torch_layer(qualified: str) -> bool:
    """A torch.nn layer or container class the tables know (`torch.nn.Linear`)."""
    return api.nn_module_kind(qualified) is not None or (
        qualified.startswith("torch.nn.") and qualified.rsplit(".", 1)[-1] in api.MODULE_CONTAINERS
    )


def _plain_call_of(node: ast.AST | None, name: str) -> bool:
    """`node` is a call of the name `name` (as its callee) unpacking nothing."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == name
        and not any(isinstance(a, ast.Starred) for a in node.args)
        and all(k.arg is not None for k in node.keywords)
    )


def _plain_parameters(function: ast.FunctionDef) -> list[ast.arg]:
    """The parameters a call binds by position or keyword (not `*args`, `**kwargs`)."""
    arguments = function.args
    return [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]


def _argument_for(function: ast.FunctionDef, parameter: ast.arg, call: ast.Call) -> ast.expr | None:
    """What `call` passes for `parameter` (None: nothing, the default applies)."""
    arguments = function.args
    positional = [*arguments.posonlyargs, *arguments.args]
    index = next((i for i, a in enumerate(positional) if a is parameter), None)
    if index is not None and index < len(call.args):
        return call.args[index]
    if parameter in arguments.posonlyargs:
        return None
    return next((k.value for k in call.keywords if k.arg == parameter.arg), None)


def _parameter_at(
    function: ast.FunctionDef, position: int | None, keyword: str | None
) -> str | None:
    """The plain parameter a call's argument at `position` (or `keyword`) binds."""
    arguments = function.args
    positional = [*arguments.posonlyargs, *arguments.args]
    if position is not None:
        return positional[position].arg if position < len(positional) else None
    names = [a.arg for a in (*arguments.args, *arguments.kwonlyargs)]
    return keyword if keyword in names else None


def _iterates_parameter(function: ast.FunctionDef, parameter: str) -> bool:
    """Every call of `function` iterates `parameter` to its end: a statement of its own
    body that nothing before it can skip (no `return`, `raise`, `yield` or re-binding of
    the parameter earlier) is a `for` loop over it without `break`, or evaluates
    `sum(...)`, `list(...)`, `tuple(...)`, `sorted(...)` of it or of a generator expression
    whose first loop runs over it."""
    for stmt in function.body:
        if isinstance(stmt, ast.For) and _is_name(stmt.iter, parameter):
            # (A `return` or `raise` in its body may stop it early, as a `break` does.)
            return not stmt.orelse and not any(
                isinstance(n, (*_EXITS, ast.Yield, ast.YieldFrom)) for n in own_nodes([stmt])
            )
        if isinstance(stmt, ast.Expr | ast.Assign | ast.AnnAssign | ast.Return) and any(
            _collects(node, parameter) for node in _evaluated(stmt)
        ):
            return True
        for node in own_nodes([stmt]):
            if isinstance(node, (*_EXITS, ast.Yield, ast.YieldFrom)):
                return False
            if _rebinds(node, parameter):
                return False
    return False


def _collects(node: ast.AST, parameter: str) -> bool:
    """`sum(p.numel() for p in params)`, `list(params)`: a collecting builtin of it."""
    if not (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in ("sum", "list", "tuple", "sorted")
        and len(node.args) == 1
        and not node.keywords
    ):
        return False
    arg = node.args[0]
    if isinstance(arg, ast.GeneratorExp | ast.ListComp):
        return _is_name(arg.generators[0].iter, parameter)
    return _is_name(arg, parameter)


def _rebinds(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name and not isinstance(node.ctx, ast.Load)


def _is_name(node: ast.expr, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _evaluated(stmt: ast.stmt) -> Iterator[ast.AST]:
    """The nodes of a simple statement that every execution of it evaluates: not the
    branches of `a if c else b`, not what `and`/`or` may skip, not lambdas or the bodies
    of comprehensions (which may run zero times)."""
    stack: list[ast.AST] = [stmt]
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, ast.IfExp):
            stack.append(node.test)
        elif isinstance(node, ast.BoolOp):
            stack.append(node.values[0])
        elif isinstance(node, ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp):
            stack.append(node.generators[0].iter)
        elif not isinstance(node, _NESTED_SCOPES):
            stack.extend(ast.iter_child_nodes(node))


def _optimizer_consumption(call: ast.Call, name: Read, qualified: str) -> Consumption:
    consumer = f"{qualified.rsplit('.', 1)[-1]}()"
    return Consumption(call, name, consumer, "", api.EMPTY_OPTIMIZER_ERROR)


def _function_consumption(
    call: ast.Call, name: Read, function: str, error: str | None
) -> Consumption:
    silent = "copies nothing"
    if function.startswith("clip_grad"):
        silent = "clips no gradient"
    elif function == "get_total_norm":
        silent = "measures a norm of 0"
    return Consumption(call, name, f"{function}()", silent if error is None else "", error)


def _group_consumption(call: ast.Call, name: Read, consumer: str) -> Consumption:
    return Consumption(call, name, consumer, "gets a parameter group with no parameters", None)


def _may_be_one_shot(value: ast.expr) -> bool:
    """The shapes `_Finder.one_shot` may accept, told from the syntax alone: a generator
    method called on a name or on an attribute of a name, or a generator expression or call
    around such a call."""
    if isinstance(value, ast.GeneratorExp):
        return _calls_generator_method(value)
    if not isinstance(value, ast.Call):
        return False
    func = value.func
    if isinstance(func, ast.Attribute) and func.attr in api.MODULE_GENERATOR_METHODS:
        receiver = func.value
        if isinstance(receiver, ast.Attribute):
            receiver = receiver.value
        return isinstance(receiver, ast.Name)
    named = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
    wrapper = named in _ONE_SHOT_BUILTINS or named in _ONE_SHOT_NAMES
    return wrapper and any(_calls_generator_method(a) for a in [*value.args, *value.keywords])


def _calls_generator_method(node: ast.AST) -> bool:
    """Whether `node` calls `x.parameters()` or another generator method of a module."""
    return any(
        isinstance(n, ast.Call)
        and isinstance(n.func, ast.Attribute)
        and n.func.attr in api.MODULE_GENERATOR_METHODS
        for n in ast.walk(node)
    )


def _assigned(stmt: ast.Assign) -> list[str]:
    return [t.id for t in stmt.targets if isinstance(t, ast.Name)]


def _own_loop_nodes(body: list[ast.stmt]) -> Iterator[ast.AST]:
    """The nodes of a loop body outside nested loops and nested scopes (where a `break`
    belongs to this loop)."""
    stack: list[ast.AST] = list(body)
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, (*_LOOPS, *_NESTED_SCOPES)):
            stack.extend(node.orelse if isinstance(node, _LOOPS) else [])
            continue
        stack.extend(ast.iter_child_nodes(node))


class _Scan:
    """Walks the statements after one binding in run order (see the module docstring)."""

    def __init__(
        self,
        finder: _Finder,
        binding: ast.Assign | ast.arg,
        key: Key,
        keys: set[Key],
        arguments: tuple[ast.expr, ...] = (),
    ) -> None:
        """`arguments`: for a parameter (`binding`), what every call passes for it."""
        self.arguments = arguments
        self.finder = finder
        self.flow = finder.flow
        self.binding = binding
        self.key = key
        self.keys = keys
        self.first: Consumption | None = None
        self.first_unit = 0

    def run(self) -> ReusedIterator | None:
        for index, unit in enumerate(self._units(self.binding)):
            nodes = _unit_nodes(unit)
            if self._rebinds(nodes):
                return None
            for name in self._reads(nodes):
                found = self._visit(unit, name, index)
                if found is not None:
                    return found
        return None

    def _visit(self, unit: ast.stmt, name: ast.Name, index: int) -> ReusedIterator | None:
        use = self.finder.consumption(name)
        if use is None:
            return None
        if self.first is not None:
            return self._found(use, self.first, None)
        loop = self._repeating_loop(use.node, unit)
        if loop is not None:
            self.first_unit = index
            return self._found(use, None, loop)
        if self._certain(use.node, unit):
            self.first = use
            self.first_unit = index
        return None

    def _found(
        self, second: Consumption, first: Consumption | None, loop: LoopNode | None
    ) -> ReusedIterator | None:
        if first is not None and (
            _same_statement(self.flow, first.node, second.node)
            or any(a is first.node for a in _ancestors(self.flow, second.node, self.binding))
        ):
            return None  # one statement, or a read while the first loop still iterates
        binding = self.binding
        if isinstance(binding, ast.arg):
            name, source = binding.arg, self.arguments[0]
        else:
            target = binding.targets[0]
            assert isinstance(target, ast.Name)
            name, source = target.id, binding.value
        return ReusedIterator(
            binding,
            name,
            source,
            second,
            first,
            loop,
            self.first_unit == 0,
            self.arguments,
        )

    def _units(self, stmt: ast.stmt | ast.arg) -> Iterator[ast.stmt]:
        """The statements after `stmt` in run order, `with` bodies flattened (a `with`
        statement stands for its header), continuing after a `with` that holds `stmt`; for
        a parameter, its function's body."""
        if isinstance(stmt, ast.arg):
            function = self.flow.parents.get(id(self.flow.parents.get(id(stmt))))
            assert isinstance(function, ast.FunctionDef)
            for inner in function.body:
                yield from _flattened(inner)
            return
        owner, block = self.finder.analysis.block_of(stmt)
        index = next(i for i, s in enumerate(block) if s is stmt)
        for following in block[index + 1 :]:
            yield from _flattened(following)
        if isinstance(owner, ast.With | ast.AsyncWith) and block is owner.body:
            yield from self._units(owner)

    def _rebinds(self, nodes: list[ast.AST]) -> bool:
        """The unit stores into or deletes the name or an alias of it (other than by a copy
        of the name itself)."""
        for node in nodes:
            if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
                key = self.flow.key_of(node)
                if key == self.key or (key in self.keys and not self._copy(node)):
                    return True
        return False

    def _copy(self, target: ast.Name) -> bool:
        parent = self.flow.parents.get(id(target))
        return isinstance(parent, ast.Assign) and isinstance(parent.value, ast.Name)

    def _reads(self, nodes: list[ast.AST]) -> list[ast.Name]:
        reads = [
            n
            for n in nodes
            if isinstance(n, ast.Name)
            and isinstance(n.ctx, ast.Load)
            and self.flow.key_of(n) in self.keys
        ]
        return sorted(reads, key=lambda n: (n.lineno, n.col_offset))

    def _certain(self, node: ast.AST, unit: ast.stmt) -> bool:
        """The consumption runs whenever the unit completes: the unit is a simple
        statement (or the header of a `for` loop) and no conditional expression holds it."""
        if isinstance(unit, ast.For | ast.AsyncFor):
            return node is unit
        if isinstance(unit, (*_LOOPS, ast.If, ast.Try, ast.Match, ast.With, ast.AsyncWith)):
            return False
        return not any(
            isinstance(a, ast.IfExp | ast.BoolOp) for a in _ancestors(self.flow, node, unit)
        )

    def _repeating_loop(self, node: ast.AST, unit: ast.stmt) -> LoopNode | None:
        """The innermost loop of the unit that holds the consumption in its body and runs
        it again on a later iteration (see the module docstring)."""
        child = node
        for ancestor in [*_ancestors(self.flow, node, unit), unit]:
            if (
                isinstance(ancestor, _LOOPS)
                and _in_body(ancestor, child)
                and _repeats(ancestor)
                and self._reached(node, ancestor)
            ):
                return ancestor
            child = ancestor
        return None

    def _reached(self, node: ast.AST, loop: LoopNode) -> bool:
        """Only configuration tests (and `with`, `try` bodies, inner loops) lie between the
        loop's body and the consumption."""
        stored = _stored_in(loop)
        child = node
        for ancestor in _ancestors(self.flow, node, loop):
            if not _passes(ancestor, child, stored):
                return False
            child = ancestor
        return True


def _passes(ancestor: ast.AST, child: ast.AST, stored: set[str]) -> bool:
    """Whether reaching `child` of `ancestor` takes only a configuration test, a `with` or
    `try` body, an inner loop or a plain expression."""
    if isinstance(ancestor, ast.If) and child is not ancestor.test:
        return _configuration_test(ancestor.test, stored)
    if isinstance(ancestor, ast.Try):
        return _in_list(ancestor.body, child) or _in_list(ancestor.finalbody, child)
    return not isinstance(ancestor, ast.IfExp | ast.BoolOp | ast.Match)


def _flattened(stmt: ast.stmt) -> Iterator[ast.stmt]:
    yield stmt
    if isinstance(stmt, ast.With | ast.AsyncWith):
        for inner in stmt.body:
            yield from _flattened(inner)


def _unit_nodes(unit: ast.stmt) -> list[ast.AST]:
    """The nodes a unit runs (a `with` its items only), outside nested scopes."""
    roots: list[ast.AST] = (
        list(unit.items) if isinstance(unit, ast.With | ast.AsyncWith) else [unit]
    )
    found: list[ast.AST] = []
    stack = roots
    while stack:
        node = stack.pop()
        found.append(node)
        if isinstance(node, _NESTED_SCOPES):
            continue
        stack.extend(ast.iter_child_nodes(node))
    return found


def _ancestors(flow: NameFlow, node: ast.AST, stop: ast.AST) -> list[ast.AST]:
    """The nodes between `node` and `stop` (both excluded), innermost first; none when
    `node` is `stop`."""
    if node is stop:
        return []
    found = []
    current = flow.parents.get(id(node))
    while current is not None and current is not stop:
        found.append(current)
        current = flow.parents.get(id(current))
    return found


def _same_statement(flow: NameFlow, a: ast.AST, b: ast.AST) -> bool:
    """Whether two consumptions are parts of one simple statement."""

    def statement(node: ast.AST) -> ast.AST | None:
        current: ast.AST | None = node
        while current is not None and not isinstance(current, ast.stmt):
            current = flow.parents.get(id(current))
        return current

    return statement(a) is statement(b) and not isinstance(a, ast.stmt | ast.comprehension)


def _in_body(loop: LoopNode, child: ast.AST) -> bool:
    return _in_list(loop.body, child)


def _in_list(block: list[ast.stmt], child: ast.AST) -> bool:
    return any(child is stmt for stmt in block)


def _repeats(loop: LoopNode) -> bool:
    """The loop may run its body more than once: no unconditional exit in its body, and not
    a `for` over a literal of at most one element."""
    if any(isinstance(stmt, _EXITS) for stmt in loop.body):
        return False
    if isinstance(loop, ast.For | ast.AsyncFor):
        iterable = loop.iter
        if isinstance(iterable, ast.List | ast.Tuple | ast.Set) and len(iterable.elts) <= 1:
            return False
        if (
            isinstance(iterable, ast.Call)
            and isinstance(iterable.func, ast.Name)
            and iterable.func.id == "range"
            and len(iterable.args) == 1
            and isinstance(iterable.args[0], ast.Constant)
            and isinstance(iterable.args[0].value, int)
            and iterable.args[0].value <= 1
        ):
            return False
    return True


def _stored_in(loop: LoopNode) -> set[str]:
    """The names and attribute chains the loop assigns (its target included)."""
    found = set()
    for node in ast.walk(loop):
        if isinstance(node, ast.Name | ast.Attribute) and isinstance(node.ctx, ast.Store):
            found.add(ast.unparse(node))
    return found


def _configuration_test(test: ast.expr, stored: set[str]) -> bool:
    """A test that stays the same from one iteration to the next in training code: a flag
    the loop never assigns (`args.clip`, `cfg["clip"]`, `not args.no_clip`), `x is not
    None`, `x > 0`, `x != 0`, and `and`/`or` of those."""
    if isinstance(test, ast.BoolOp):
        return all(_configuration_test(v, stored) for v in test.values)
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _flag(test.operand, stored)
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and _flag(test.left, stored):
        right = test.comparators[0]
        if isinstance(test.ops[0], ast.IsNot):
            return isinstance(right, ast.Constant) and right.value is None
        if isinstance(test.ops[0], ast.Gt | ast.NotEq):
            return isinstance(right, ast.Constant) and right.value in (0, 0.0, None)
        return False
    return _flag(test, stored)


def _flag(expr: ast.expr, stored: set[str]) -> bool:
    if isinstance(expr, ast.Subscript):
        return _flag(expr.value, stored) and isinstance(expr.slice, ast.Constant)
    return isinstance(expr, ast.Name | ast.Attribute) and ast.unparse(expr) not in stored
