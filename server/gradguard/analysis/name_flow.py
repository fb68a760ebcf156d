"""Which names' values may be computed from which: a flow-insensitive over-approximation.

Every name of the file is resolved to its scope (Python's rules: locals, enclosing functions,
the module; class bodies are not visible from their methods; comprehensions are scopes of
their own), giving a `Key`. An edge `a <- b` says that some value bound to `a` may have been
computed from, or may hold, a value bound to `b`. Edges come from

* bindings: `a = f(b)`, `a += b`, `for a in b`, `with b as a`, `a := b`, `def a(...)` (the
  function's free names, default values, and what it returns or yields, so that `a = f()`
  may hold a local of `f`), `class a(...)` (likewise);
* stores and mutations: `a.x = b` and `a[i] = b` (`a <- b`), `a.append(b)` and `a(b)` (the
  callee's root name gets what it is given), `f(b, out=a)`, in-place functions
  (`fill_(a, b)`) and `setattr(a, "x", b)`;
* calls of a function of the file: its parameters get what every call passes; a function
  used other than by being called (a callback), a method, a lambda: its parameters may be
  anything (`UNKNOWN`).

Attributes get keys of their own, one per attribute name for the whole file whatever the
object (`attribute_key`): `self.outputs.append(out)`, `trainer.outputs = []` and a read of
`x.outputs` anywhere all meet at the key of `outputs`. That over-approximates as names do,
unless the file reaches attributes by computed names (`setattr`, `getattr(x, name)`,
`__dict__`, `vars()`): `attribute_key` is then None.

Order is ignored and every binding of a name counts everywhere, so `reaches` can only say too
much: a name missing from it certainly cannot hold anything computed from that name. Some
expressions certainly drop what they read: a deep copy (`copy.deepcopy(m)` shares nothing
with `m`), `x.detach()`, `x.item()`, `m.state_dict()` (detached tensors)...; no edge goes
through them. Two residual assumptions: code outside the file does not stash one argument of
a call into another (or into its own global state) except through the in-place forms above,
and exceptions carry no tensors the file computed.
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from gradguard.analysis.names import arguments_by_parameter, kept_parameters, paired, root_name
from gradguard.analysis.walk import module_nodes, module_parents

Key = tuple[int, str]  # (id of the scope node, name)
UNKNOWN_KEY: Key = (0, "%unknown")

_SCOPES = (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
# Methods whose result holds nothing the receiver's autograd graph or parameters reach:
# detached copies, Python numbers, sizes. `state_dict()` holds detached tensors.
_DETACHING_METHODS = frozenset(
    "detach item tolist numpy size dim numel state_dict data_ptr element_size".split()
)
# Attributes that read no tensor with history.
_DETACHING_ATTRIBUTES = frozenset("data shape dtype device ndim is_cuda requires_grad".split())
# Builtins whose result holds no tensor (a number, a bool, a string).
_SCALAR_BUILTINS = frozenset("len float int bool str repr isinstance type id round".split())
_BUILTINS = frozenset(dir(builtins))
# Builtins that may run code or store into namespaces: a call of one may keep anything.
_OPAQUE_BUILTINS = frozenset(
    "exec eval compile __import__ globals locals vars setattr delattr __build_class__".split()
)
# How many calls deep a parameter holding exactly its caller's name is followed.
_FORWARDING_DEPTH = 4
_DEEPCOPY = "copy.deepcopy"
# nn.Module methods returning the module itself (checked against torch 2.13.0).
_MODULE_CASTS = frozenset("to cuda cpu float double half bfloat16 train eval".split())
# Calls that may store their arguments into their receiver.
_MUTATING = frozenset(
    "append extend insert update setdefault add setattr register_buffer register_parameter "
    "add_module register_module __setattr__".split()
)


@dataclass(frozen=True)
class NameBinding:
    """One place that binds a name: the statement (or argument, alias, loop...) and, for a
    plain `name = value`, the value."""

    key: Key
    node: ast.AST
    value: ast.expr | None


class _Scope:
    """The names bound directly in one scope node."""

    def __init__(self, node: ast.AST, parent: _Scope | None) -> None:
        self.node = node
        self.parent = parent
        self.is_class = isinstance(node, ast.ClassDef)
        self.locals: set[str] = set()
        self.globals: set[str] = set()
        self.nonlocals: set[str] = set()

    def key(self, name: str) -> Key:
        return (id(self.node), name)


class NameFlow:
    """The name-level dependency graph of one module (see the module docstring)."""

    def __init__(self, tree: ast.Module) -> None:
        self.tree = tree
        self._keys: dict[int, Key] = {}  # id(ast.Name) -> its key
        self.loads: dict[Key, list[ast.Name]] = {}
        self.bindings: dict[Key, list[NameBinding]] = {}
        self.imports: dict[Key, str] = {}  # key -> "copy", "copy.deepcopy", "torch.optim"
        self._edges: dict[Key, set[Key]] = {}
        # Keys with edges other than their bindings' (see `only_bound`).
        self._changed: set[Key] = set()
        self._module_scope = _Scope(tree, None)
        self._scopes: dict[int, _Scope] = {}
        self._defs: dict[Key, ast.FunctionDef | ast.AsyncFunctionDef] = {}
        self._classes: dict[Key, ast.ClassDef] = {}
        self._free: dict[int, set[Key]] = {}  # id(scope node) -> names read, bound outside
        self._counting = False
        self._dynamic_attributes = False  # attributes reached by computed names
        self._forwarding: dict[int, Key] | None = None
        # What the only call of a plain function passes for a parameter, when not a name.
        self._handed: dict[Key, ast.expr] = {}
        self._sources: dict[Key, Key] | None = None
        # The shared walk and parents of the module (same nodes and order as ast.walk).
        self._nodes = list(module_nodes(tree))
        self.parents: dict[int, ast.AST] = module_parents(tree)  # shared: read only
        self._collect_scopes(tree, None)
        self._resolve_names()
        self._collect_edges()

    # -- queries ---------------------------------------------------------------------------

    def key_of(self, name: ast.Name) -> Key | None:
        """The scope-resolved key of a name occurrence of this file."""
        return self._keys.get(id(name))

    def attribute_key(self, attribute: ast.Attribute) -> Key | None:
        """The key of the attribute's name (every object's `.outputs` shares one), or None
        when the file may reach attributes by computed names."""
        return None if self._dynamic_attributes else _attribute_key(attribute.attr)

    def reads(self, expr: ast.AST, given_only: frozenset[int] = frozenset()) -> set[Key]:
        """Keys of the names `expr` reads, except inside expressions that drop them; of the
        calls in `given_only` (by id), only what they are given (their callee's result is
        known to hold nothing of the callee)."""
        found: set[Key] = set()
        if self._counting:
            return found
        stack: list[ast.AST] = [expr]
        while stack:
            node = stack.pop()
            if self.detaches(node):
                continue
            if id(node) in given_only and isinstance(node, ast.Call):
                stack.extend([*node.args, *node.keywords])
                continue
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                key = self._keys.get(id(node))
                if key is not None:
                    found.add(key)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
                found.add(_attribute_key(node.attr))
            stack.extend(ast.iter_child_nodes(node))
        return found

    def reaches(self, keys: Iterable[Key], ends: frozenset[Key] = frozenset()) -> frozenset[Key]:
        """Every key whose values the given keys' values may be computed from (themselves
        included); what keys in `ends` are computed from is not followed (names holding
        values that carry nothing of what they were computed from: see
        `gradguard.analysis.historyless_names`)."""
        seen: set[Key] = set(keys)
        stack = [key for key in seen if key not in ends]
        while stack:
            for source in self._edges.get(stack.pop(), ()):
                if source in ends:
                    seen.add(source)
                    continue
                if source not in seen:
                    seen.add(source)
                    stack.append(source)
        return frozenset(seen)

    def detaches(self, node: ast.AST) -> bool:
        """True for an expression whose value shares no autograd history and no parameter
        with what it reads: `copy.deepcopy(m)`, `x.detach()`, `x.item()`, `m.state_dict()`,
        `x.data`, `len(x)`..."""
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
            return node.attr in _DETACHING_ATTRIBUTES
        if not isinstance(node, ast.Call):
            return False
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in _DETACHING_METHODS:
            return not (func.attr == "state_dict" and (node.args or node.keywords))
        if self.is_deepcopy(func):
            return True
        return (
            isinstance(func, ast.Name)
            and func.id in _SCALAR_BUILTINS
            and self._keys.get(id(func)) == self._module_scope.key(func.id)
            and func.id not in self._module_scope.locals
        )

    def only_bound(self, key: Key) -> bool:
        """True when `key` gets values only from its own bindings: not a parameter, and
        never stored into, handed to a call that may change it (`x.add_(y)`, `f(y, out=x)`,
        `x.append(y)`) or given an item or attribute (`x[i] = y`)."""
        return key not in self._changed and key in self.bindings

    def bound_in_module(self, name: str) -> bool:
        """True when the file binds `name` at module level (it shadows a builtin)."""
        return name in self._module_scope.locals

    def is_deepcopy(self, func: ast.expr) -> bool:
        """`copy.deepcopy` or `deepcopy` imported from `copy`, through the file's imports."""
        if isinstance(func, ast.Name):
            key = self._keys.get(id(func))
            return key is not None and self._imported_once(key) == _DEEPCOPY
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            key = self._keys.get(id(func.value))
            return (
                func.attr == "deepcopy" and key is not None and self._imported_once(key) == "copy"
            )
        return False

    def _imported_once(self, key: Key) -> str | None:
        if len(self.bindings.get(key, ())) != 1:
            return None
        return self.imports.get(key)

    # -- scopes ----------------------------------------------------------------------------

    def _collect_scopes(self, node: ast.AST, scope: _Scope | None) -> None:
        if isinstance(node, (*_SCOPES, *_COMPREHENSIONS)):
            scope = _Scope(node, scope) if scope is not None else self._module_scope
            self._scopes[id(node)] = scope
            self._declare_arguments(node, scope)
        assert scope is not None
        for child in ast.iter_child_nodes(node):
            owner = self._binding_scope(scope, node, child)
            self._declare(child, owner)
            self._collect_scopes(child, scope)

    def _binding_scope(self, scope: _Scope, parent: ast.AST, child: ast.AST) -> _Scope:
        """The scope a name bound by `child` belongs to: a walrus in a comprehension binds
        in the enclosing function."""
        if isinstance(parent, ast.NamedExpr) and child is parent.target:
            while isinstance(scope.node, _COMPREHENSIONS) and scope.parent is not None:
                scope = scope.parent
        return scope

    def _declare_arguments(self, node: ast.AST, scope: _Scope) -> None:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            scope.locals.update(a.arg for a in _arguments(node.args))
        elif isinstance(node, _COMPREHENSIONS):
            for generator in node.generators:
                scope.locals.update(_target_names(generator.target))

    def _declare(self, node: ast.AST, scope: _Scope) -> None:
        """Record a name `node` binds directly in `scope`."""
        if isinstance(node, ast.Global):
            scope.globals.update(node.names)
        elif isinstance(node, ast.Nonlocal):
            scope.nonlocals.update(node.names)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            scope.locals.add(node.name)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            for alias in node.names:
                if alias.name != "*":
                    scope.locals.add(alias.asname or alias.name.split(".")[0])
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
            scope.locals.add(node.id)
        elif isinstance(node, ast.ExceptHandler | ast.MatchAs | ast.MatchStar) and node.name:
            scope.locals.add(node.name)
        elif isinstance(node, ast.MatchMapping) and node.rest:
            scope.locals.add(node.rest)

    def _scope_of_node(self, node: ast.AST) -> _Scope:
        """The innermost scope whose body holds `node` (a scope node's own name, decorators,
        defaults and bases belong to the enclosing one)."""
        child = node
        parent = self.parents.get(id(child))
        while parent is not None:
            owner = self.parents.get(id(parent))
            if (
                isinstance(parent, ast.comprehension)
                and parent.iter is child
                and isinstance(owner, _COMPREHENSIONS)
                and owner.generators[0] is parent
            ):
                # The first iterable is evaluated in the enclosing scope.
                child, parent = owner, self.parents.get(id(owner))
                continue
            scope = self._scopes.get(id(parent))
            if scope is not None and _inside_body(parent, child):
                return scope
            child, parent = parent, self.parents.get(id(parent))
        return self._module_scope

    def resolve(self, scope: _Scope, name: str) -> Key:
        """Python's name resolution from `scope`."""
        if name in scope.globals:
            return self._module_scope.key(name)
        if name in scope.locals and name not in scope.nonlocals:
            return scope.key(name)
        outer = scope.parent
        while outer is not None:
            if outer.is_class:
                outer = outer.parent
                continue
            if name in outer.globals:
                return self._module_scope.key(name)
            if name in outer.locals and name not in outer.nonlocals:
                return outer.key(name)
            outer = outer.parent
        return self._module_scope.key(name)

    def _resolve_names(self) -> None:
        for node in self._nodes:
            if isinstance(node, ast.Name):
                scope = self._scope_of_node(node)
                key = self.resolve(scope, node.id)
                self._keys[id(node)] = key
                if isinstance(node.ctx, ast.Load):
                    self.loads.setdefault(key, []).append(node)
                    self._note_free(scope, key)

    def _note_free(self, scope: _Scope | None, key: Key) -> None:
        """`key` is read inside `scope`: it is a free name of every scope between there and
        the one that binds it (what a `def`'s or `class`'s name gets, see
        `_bind_definition`). Reads inside `.detach()` and the like count too: more edges
        only ever mean less certainty."""
        while scope is not None and id(scope.node) != key[0]:
            self._free.setdefault(id(scope.node), set()).add(key)
            scope = scope.parent

    # -- edges -----------------------------------------------------------------------------

    def _edge(self, target: Key, sources: Iterable[Key], *, bound: bool = False) -> None:
        self._edges.setdefault(target, set()).update(sources)
        if not bound:
            self._changed.add(target)

    def _bind(self, key: Key, node: ast.AST, value: ast.expr | None, sources: set[Key]) -> None:
        self.bindings.setdefault(key, []).append(NameBinding(key, node, value))
        self._edge(key, sources, bound=True)

    def _collect_edges(self) -> None:
        # A first pass only learns which names are bound where (what `detaches` and
        # `_torch_layer` ask); the second computes the edges.
        self._counting = True
        for node in self._nodes:
            self._bindings_of(node)
        self._counting = False
        self.bindings.clear()
        self._edges.clear()
        self._changed.clear()
        for node in self._nodes:
            self._bindings_of(node)
        referenced: set[Key] = set()  # functions read other than as a callee
        for node in self._nodes:
            if isinstance(node, ast.Call):
                self._call_edges(node)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                parent = self.parents.get(id(node))
                if not (isinstance(parent, ast.Call) and parent.func is node):
                    referenced.add(self._keys[id(node)])
            elif isinstance(node, ast.Attribute) and node.attr == "__dict__":
                self._dynamic_attributes = True
        for key, function in self._defs.items():
            if key in referenced or self._is_method(function) or function.decorator_list:
                for arg in _arguments(function.args):
                    self._edge(self._scopes[id(function)].key(arg.arg), [UNKNOWN_KEY])

    def qualified(self, expr: ast.expr) -> str | None:
        """The import path of a dotted name through the file's imports: `nn.Linear` is
        `torch.nn.Linear` after `from torch import nn`."""
        if isinstance(expr, ast.Attribute):
            base = self.qualified(expr.value)
            return f"{base}.{expr.attr}" if base is not None else None
        if isinstance(expr, ast.Name):
            key = self._keys.get(id(expr))
            return self._imported_once(key) if key is not None else None
        return None

    def _plain_builtin(self, func: ast.expr) -> bool:
        """`range(n)`, `len(x)`, `zip(a, b)`...: a builtin the file does not rebind, which
        keeps nothing of its arguments in itself (what it returns is the call's business)."""
        return (
            isinstance(func, ast.Name)
            and func.id in _BUILTINS
            and func.id not in _OPAQUE_BUILTINS
            and func.id not in self._module_scope.locals
            and self._keys.get(id(func)) == self._module_scope.key(func.id)
        )

    def _torch_layer(self, key: Key) -> bool:
        """True when every binding of `key` is `name = M(...)` (maybe `.to(...)`-chained) for
        a torch.nn module or a module class of the file that keeps nothing of its inputs:
        calling it stores none of its arguments. A parameter holding exactly such a name's
        value (`train(D, ...)` called once, see `forwarded`), or such a construction the
        only call passes (`train(D, nn.BCELoss())`), is such a module too."""
        for _ in range(_FORWARDING_DEPTH):
            found = self.bindings.get(key, [])
            if found:
                return all(self._builds_stateless(b.value) for b in found)
            source = self.forwarded_from(key)
            if source is None:
                return self._builds_stateless(self._handed_value(key))
            key = source
        return False

    def _builds_stateless(self, value: ast.expr | None) -> bool:
        while (
            isinstance(value, ast.Call)
            and isinstance(value.func, ast.Attribute)
            and value.func.attr in _MODULE_CASTS
        ):
            value = value.func.value
        if not isinstance(value, ast.Call):
            return False
        path = self.qualified(value.func)
        if path is not None:
            return path.startswith("torch.nn.") and path.rsplit(".", 1)[-1][:1].isupper()
        if not isinstance(value.func, ast.Name):
            return False
        key = self._keys.get(id(value.func))
        node = self._classes.get(key) if key is not None else None
        return node is not None and self._keeps_nothing(node)

    def _keeps_nothing(self, node: ast.ClassDef) -> bool:
        """A module class of the file whose methods (other than `__init__`) store nothing:
        no attribute or item assignment, no `global`, no mutating call (`append`, in-place
        `x.add_()`, `setattr`, `register_buffer`...), no call of a function of the file."""
        if len(node.bases) != 1 or node.keywords:
            return False
        base = self.qualified(node.bases[0])
        if base not in ("torch.nn.Module", "torch.nn.modules.module.Module"):
            return False
        for method in node.body:
            if isinstance(method, ast.FunctionDef) and method.name == "__init__":
                continue
            for inner in ast.walk(method):
                if not self._stores_nothing(inner):
                    return False
        return True

    def _stores_nothing(self, node: ast.AST) -> bool:
        if isinstance(node, ast.Global | ast.Nonlocal):
            return False
        if isinstance(node, ast.Attribute | ast.Subscript) and isinstance(node.ctx, ast.Store):
            return False
        if isinstance(node, ast.Call):
            name = _callee_name(node.func)
            if name is None or name in _MUTATING or (name.endswith("_") and name[:1] != "_"):
                return False
            if isinstance(node.func, ast.Name):
                key = self._keys.get(id(node.func))
                return key not in self._defs and key not in self._classes
        return True

    def _is_method(self, function: ast.AST) -> bool:
        return isinstance(self.parents.get(id(function)), ast.ClassDef)

    def _bindings_of(self, node: ast.AST) -> None:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                self._bind_target(target, node, node.value)
        elif isinstance(node, ast.AugAssign | ast.AnnAssign) and node.value is not None:
            self._bind_target(node.target, node, None, self.reads(node.value))
        elif isinstance(node, ast.For | ast.AsyncFor | ast.comprehension):
            self._bind_target(node.target, node, None, self.reads(node.iter))
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            self._bind_target(node.optional_vars, node, None, self.reads(node.context_expr))
        elif isinstance(node, ast.NamedExpr):
            self._bind_target(node.target, node, None, self.reads(node.value))
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            self._bind_definition(node)
        elif isinstance(node, ast.Lambda):
            for arg in _arguments(node.args):
                self._bind(self._scopes[id(node)].key(arg.arg), node, None, {UNKNOWN_KEY})
        elif isinstance(node, ast.Import | ast.ImportFrom):
            self._bind_import(node)
        elif isinstance(node, ast.ExceptHandler | ast.MatchAs | ast.MatchStar) and node.name:
            key = self.resolve(self._scope_of_node(node), node.name)
            self._bind(key, node, None, {UNKNOWN_KEY})

    def _bind_target(
        self,
        target: ast.expr,
        node: ast.AST,
        value: ast.expr | None,
        sources: set[Key] | None = None,
    ) -> None:
        pairs = paired(target, value) if value is not None else []
        if isinstance(target, ast.Tuple | ast.List) and pairs:
            # `G, D = Generator(), Discriminator()`: each name gets its own value.
            for element, part in pairs:
                self._bind_target(element, node, part)
            return
        if sources is None:
            assert value is not None
            sources = self.reads(value)
        if isinstance(target, ast.Name):
            self._bind(self._keys[id(target)], node, value, sources)
        elif isinstance(target, ast.Tuple | ast.List):
            for element in target.elts:
                self._bind_target(element, node, None, sources)
        elif isinstance(target, ast.Starred):
            self._bind_target(target.value, node, None, sources)
        elif isinstance(target, ast.Attribute | ast.Subscript):
            root = root_name(target)
            if root is not None:
                self._edge(self._keys[id(root)], sources | self.reads(target))
            held = _holding_attribute(target)
            if held is not None:  # `x.outputs = v`, `x.outputs[i] = v`
                self._edge(_attribute_key(held.attr), sources | self.reads(target))

    def _bind_definition(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> None:
        """`def f` / `class C`: the name gets the free names read inside, and the values of
        its decorators, defaults and bases (read in the enclosing scope)."""
        scope = self._scopes[id(node)]
        sources = set(self._free.get(id(node), ()))
        for outer in [*node.decorator_list, *getattr(node, "bases", []), *node_keywords(node)]:
            sources |= self.reads(outer)
        if not isinstance(node, ast.ClassDef):
            sources |= self._returned(node)
        key = self.resolve(self._scope_of_node(node), node.name)
        self._bind(key, node, None, sources)
        if isinstance(node, ast.ClassDef):
            self._classes[key] = node
        else:
            self._defs[key] = node
            defaults = set()
            for default in [*node.args.defaults, *node.args.kw_defaults]:
                if default is not None:
                    defaults |= self.reads(default)
            for arg in _arguments(node.args):
                self._edge(scope.key(arg.arg), defaults)

    def _returned(self, function: ast.FunctionDef | ast.AsyncFunctionDef) -> set[Key]:
        """Keys of what the function returns or yields: a call's result may hold them."""
        found: set[Key] = set()
        for node in ast.walk(function):
            if (
                isinstance(node, ast.Return | ast.Yield | ast.YieldFrom)
                and node.value is not None
                and self._scope_of_node(node).node is function
            ):
                found |= self.reads(node.value)
        return found

    def _bind_import(self, node: ast.Import | ast.ImportFrom) -> None:
        scope = self._scope_of_node(node)
        for alias in node.names:
            if alias.name == "*":
                continue
            local = alias.asname or alias.name.split(".")[0]
            key = self.resolve(scope, local)
            self._bind(key, node, None, set())
            if isinstance(node, ast.Import):
                self.imports[key] = alias.name if alias.asname else local
            elif node.level == 0 and node.module:
                self.imports[key] = f"{node.module}.{alias.name}"

    def _call_edges(self, call: ast.Call) -> None:
        """What a call may store: the callee's receiver gets the arguments; `out=`,
        in-place functions and `setattr` store into an argument; a function of the file
        binds its parameters to them."""
        arguments = [*call.args, *(kw.value for kw in call.keywords)]
        given: set[Key] = set()
        for argument in arguments:
            given |= self.reads(argument)
        root = root_name(call.func)
        root_key = self._keys.get(id(root)) if root is not None else None
        if (
            root_key is not None
            and root_key not in self.imports
            and given
            and not self._torch_layer(root_key)
            and not self._plain_builtin(call.func)
        ):
            self._edge(root_key, given)
            receiver = call.func.value if isinstance(call.func, ast.Attribute) else None
            held = _holding_attribute(receiver) if receiver is not None else None
            if held is not None:  # `self.outputs.append(out)`
                self._edge(_attribute_key(held.attr), given)
        if _computed_attribute(call):
            self._dynamic_attributes = True
        stored: list[ast.expr] = [kw.value for kw in call.keywords if kw.arg == "out"]
        name = _callee_name(call.func)
        if name is not None and (name == "setattr" or (name.endswith("_") and name[:1] != "_")):
            stored.extend(call.args[:1])
        for target in stored:
            base = root_name(target)
            if base is not None and given:
                self._edge(self._keys[id(base)], given)
        if isinstance(call.func, ast.Name) and root_key in self._defs:
            function = self._defs[root_key]
            scope = self._scopes[id(function)]
            passed = self._passed(function, call) if len(self.bindings[root_key]) == 1 else None
            for arg in _arguments(function.args):
                if passed is None:
                    self._edge(scope.key(arg.arg), given or set())
                elif arg.arg in passed:
                    self._edge(scope.key(arg.arg), self.reads(passed[arg.arg]))

    def _passed(
        self, function: ast.FunctionDef | ast.AsyncFunctionDef, call: ast.Call
    ) -> dict[str, ast.expr] | None:
        """The argument each parameter of the function gets at `call` (the one definition
        its name is bound to), by name; None when unpacking hides it or the function takes
        `*args`/`**kwargs` (which may get anything)."""
        spec = function.args
        if spec.vararg is not None or spec.kwarg is not None:
            return None
        if any(kw.arg is None for kw in call.keywords):
            return None
        return arguments_by_parameter(function, call)

    def forwarded(self, argument: ast.Name) -> Key | None:
        """The parameter that holds exactly `argument`'s value wherever its function reads
        it: `argument` is passed to it by the only call of a plain function of the file
        (module-level `def`, bound once, undecorated, used only by being called), and the
        function never rebinds the parameter. `train(model, optimizer)` called once from
        `main` makes `train`'s `optimizer` that very optimizer."""
        if self._forwarding is None:
            self._forwarding = self._collect_forwarding()
        return self._forwarding.get(id(argument))

    def forwarded_from(self, parameter: Key) -> Key | None:
        """The name whose value `parameter` holds exactly (see `forwarded`), if any."""
        if self._forwarding is None:
            self._forwarding = self._collect_forwarding()
        if self._sources is None:
            self._sources = {}
            for name_id, key in self._forwarding.items():
                self._sources[key] = self._keys[name_id]
        return self._sources.get(parameter)

    def _handed_value(self, parameter: Key) -> ast.expr | None:
        """The expression the only call of a plain function (see `forwarded`) passes for
        `parameter`, when it is not a plain name (`train(model, nn.MSELoss())`)."""
        if self._forwarding is None:
            self._forwarding = self._collect_forwarding()
        return self._handed.get(parameter)

    def _collect_forwarding(self) -> dict[int, Key]:
        calls: dict[Key, list[ast.Call]] = {}
        for key in self._defs:
            for name in self.loads.get(key, []):
                parent = self.parents.get(id(name))
                if isinstance(parent, ast.Call) and parent.func is name:
                    calls.setdefault(key, []).append(parent)
        found: dict[int, Key] = {}
        for key, function in self._defs.items():
            sites = calls.get(key, [])
            if (
                len(sites) != 1
                or len(self.bindings.get(key, ())) != 1
                or len(self.loads.get(key, ())) != 1
                or function.decorator_list
                or self.parents.get(id(function)) is not self.tree
            ):
                continue
            passed = self._passed(function, sites[0])
            if passed is None:
                continue
            scope = self._scopes[id(function)]
            for param in kept_parameters(function):
                argument = passed.get(param)
                if isinstance(argument, ast.Name) and id(argument) in self._keys:
                    found[id(argument)] = scope.key(param)
                elif argument is not None:
                    self._handed[scope.key(param)] = argument
        return found


def _arguments(args: ast.arguments) -> list[ast.arg]:
    found = [*args.posonlyargs, *args.args, *args.kwonlyargs]
    found.extend(extra for extra in (args.vararg, args.kwarg) if extra is not None)
    return found


def _target_names(target: ast.expr) -> Iterator[str]:
    for node in ast.walk(target):
        if isinstance(node, ast.Name):
            yield node.id


def _inside_body(scope_node: ast.AST, child: ast.AST) -> bool:
    """True when `child` (a direct child of a scope node) is evaluated inside that scope."""
    if isinstance(scope_node, ast.Module):
        return True
    if isinstance(scope_node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return any(child is stmt for stmt in scope_node.body)
    if isinstance(scope_node, ast.Lambda):
        return child is scope_node.body
    return isinstance(scope_node, _COMPREHENSIONS)


def node_keywords(node: ast.AST) -> list[ast.expr]:
    """The keyword values of a class definition (`metaclass=...`); nothing for a def."""
    return [kw.value for kw in getattr(node, "keywords", [])]


def _attribute_key(attr: str) -> Key:
    return (0, "." + attr)


def _holding_attribute(expr: ast.expr) -> ast.Attribute | None:
    """The attribute a store or a mutation through `expr` changes: `x.outputs` of
    `x.outputs`, `x.outputs[i]` and `x.outputs["k"][j]`."""
    while isinstance(expr, ast.Subscript):
        expr = expr.value
    return expr if isinstance(expr, ast.Attribute) else None


def _computed_attribute(call: ast.Call) -> bool:
    """`setattr(...)`, `getattr(x, name)` with a name not written out, `vars(x)`: an
    attribute reached by a computed name."""
    name = _callee_name(call.func)
    if name in ("setattr", "vars", "__setattr__"):
        return True
    if name == "getattr" and len(call.args) >= 2:
        return not (isinstance(call.args[1], ast.Constant) and isinstance(call.args[1].value, str))
    return False


def _callee_name(func: ast.expr) -> str | None:
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    return None
