"""Which parameters a loop over `named_parameters()` certainly freezes, told by their names.

`for name, p in model.named_parameters(): if not name.startswith("head"): p.requires_grad =
False` freezes the parameters whose names pass the loop's tests. `named_parameters()` names a
parameter by the attributes leading to it from the module: `backbone.conv.weight`. Those
names are known from the module's structure:

* a module class of the file: each module it stores at `self.<attr>` (`submodules.
  local_named_children`, of a class registering nothing by name) gives its names after
  `<attr>.`; an attribute whose module is not known (or which a method stores more than
  once) gives `<attr>.` followed by an unknown rest;
* a torch.nn layer of `LEAF_PARAMETERS` (checked with torch 2.13.0): `weight` and `bias`
  (or `weight` alone), of which the layer has some; a torch.nn layer without parameters:
  none;
* an `nn.Sequential` or `nn.ModuleList` whose modules are known (`ModuleRef.children`) and
  so are the names it holds them under (`ModuleRef.indexing`): each module's names after
  `<i>.`, its position (`nn.Sequential(a, b)`: `0.weight`, `1.weight`), or after a decimal
  index not known (`nn.ModuleList([Block() for _ in range(n)])`: `<digits>.proj.weight`,
  kept as the pieces around the index, `ParameterName.indexed`);
* anything else (a container whose children may be named by the keys of an `OrderedDict`
  or are not known; a layer holding modules; a module built elsewhere): an unknown rest.

The names are a superset of those the loop sees (a `bias=False` layer has no `bias`), so a
conclusion true of every name listed is true of every parameter. A test is decided on a name
only when every name with that start decides it alike (`startswith("backbone")` of
`backbone.` and an unknown rest is True; `"ATS" in name` of it is not known), and, for a name
holding an index not known, every index alike (`"ATS" in name` of `lateral.<digits>.weight`
is False: a string without a digit found nowhere else cannot be found across the index;
`"lateral.1" in name` is not known). The loop
freezes a parameter certainly when, for its name, the body reaches `p.requires_grad = False`
(or `p.requires_grad_(False)`) through `if` tests decided on the name, before any `continue`
or `break`, and no `p.requires_grad = True` (or `p.requires_grad_(True)`, `p.requires_grad_()`)
comes after the freeze on the way. Other statements cannot unfreeze it: frozen facts are kept
only in files where no other code may (`parameters.may_unfreeze`). The same walk tells whether
such a loop may leave a parameter unfrozen (`may_unfreeze`: `unfreeze_loops`).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from gradguard.analysis import submodules
from gradguard.analysis import torch_api as api
from gradguard.analysis.node_cache import cached_by_node
from gradguard.analysis.values import Indexing, Kind, Value
from gradguard.analysis.walk import module_nodes, module_parents, walk

# The parameters each torch.nn layer may hold, by name (listed by `named_parameters()` of
# each layer built with torch 2.13.0, with `affine=True` for the instance norms).
LEAF_PARAMETERS: dict[str, tuple[str, ...]] = {
    **{
        name: ("weight", "bias")
        for name in (
            "Linear Bilinear Conv1d Conv2d Conv3d ConvTranspose1d ConvTranspose2d "
            "ConvTranspose3d BatchNorm1d BatchNorm2d BatchNorm3d LayerNorm GroupNorm "
            "InstanceNorm1d InstanceNorm2d InstanceNorm3d"
        ).split()
    },
    **{name: ("weight",) for name in "Embedding EmbeddingBag PReLU RMSNorm".split()},
}
# How deep a module's structure is followed.
_DEPTH = 6
# torch.nn containers naming the modules they hold by decimal indices (`ModuleRef.indexing`).
_INDEXED_CONTAINERS = frozenset({"Sequential", "ModuleList"})

# What an operand of a test stands for: a string, strings (a list or tuple of them), or
# not known (None).
Strings = str | tuple[str, ...] | None


@dataclass(frozen=True)
class ParameterName:
    """One name `named_parameters()` may give: `text` itself (`exact`), or `text` followed by
    a rest that is not known (the names inside a module whose structure is not known)."""

    text: str
    exact: bool
    # The pieces before `text`, each followed by a decimal index not known (one digit or
    # more): `("lateral.",)` with text `.weight` stands for `lateral.<digits>.weight`.
    indexed: tuple[str, ...] = ()

    @property
    def start(self) -> str:
        """The known text the name starts with (up to its first index not known)."""
        return self.indexed[0] if self.indexed else self.text


def parameter_names(
    module: Value,
    classes: submodules.Classes,
    prefix: str = "",
    depth: int = _DEPTH,
    stored: frozenset[str] = frozenset(),
    *,
    containers: bool = False,
) -> tuple[ParameterName, ...]:
    """The names `module.named_parameters()` may give, each after `prefix` (see the module
    docstring). `stored`: attribute names code outside the classes' own methods may give any
    module a child under (`submodules.foreign_children`): at every module, a child of such a
    name may be there, holding anything (`fc` followed by an unknown rest). `containers`:
    the children of `nn.Sequential` and `nn.ModuleList` are followed (when no code of the
    file may change such a container but through an attribute, which `classes` lists:
    `ModuleInterpreter.containers_change_by_attribute_only`); else their names are not
    known."""
    return _names(module, classes, (), prefix, depth, stored, containers)


def _names(
    module: Value,
    classes: submodules.Classes,
    indexed: tuple[str, ...],
    prefix: str,
    depth: int,
    stored: frozenset[str],
    containers: bool,
) -> tuple[ParameterName, ...]:
    """`parameter_names` after the pieces `indexed` (each followed by an index not known)
    and then `prefix`."""
    unknown = (ParameterName(prefix, False, indexed),)
    ref = module.module
    if depth <= 0 or module.kind is not Kind.MODULE or ref is None:
        return unknown
    added = tuple(ParameterName(prefix + attr, False, indexed) for attr in sorted(stored))
    if ref.local is not None:
        if not ref.local.is_module:
            return unknown
        children = submodules.local_named_children(ref.local, classes, once=True)
        if children is None:
            return unknown
        return added + tuple(
            name
            for attr, child in children
            if attr not in stored
            for name in _names(
                child, classes, indexed, f"{prefix}{attr}.", depth - 1, stored, containers
            )
        )
    if ref.qualified is None or not ref.qualified.startswith("torch.nn."):
        return unknown
    layer = ref.qualified.rsplit(".", 1)[-1]
    if containers and layer in _INDEXED_CONTAINERS and ref.children is not None:
        if ref.indexing is Indexing.BY_POSITION:
            return added + tuple(
                name
                for i, child in enumerate(ref.children)
                for name in _names(
                    child, classes, indexed, f"{prefix}{i}.", depth - 1, stored, True
                )
            )
        if ref.indexing is Indexing.SOME_INDEX:
            inner = (*indexed, prefix)
            return added + tuple(
                name
                for child in dict.fromkeys(ref.children)
                for name in _names(child, classes, inner, ".", depth - 1, stored, True)
            )
        return unknown
    layer = ref.qualified.removeprefix("torch.nn.")
    if layer in LEAF_PARAMETERS:
        own = tuple(ParameterName(prefix + own, True, indexed) for own in LEAF_PARAMETERS[layer])
        return added + own
    kind = ref.kind or api.nn_module_kind(ref.qualified)
    if layer in submodules.LEAF_LAYERS and kind is not None and not kind.has_parameters:
        return added
    return unknown


def certainly_frozen(
    loop: ast.For | ast.AsyncFor, names: tuple[ParameterName, ...], strings: StringsOf
) -> tuple[ParameterName, ...]:
    """The names of `names` whose parameter the loop `for <name>, <p> in
    X.named_parameters(): ...` certainly freezes (the loop's shape is checked here: an empty
    answer for any other)."""
    ends = _ends_by_name(loop, names, strings)
    if ends is None:
        return ()
    return tuple(name for name, found in zip(names, ends, strict=True) if found == {_FROZEN})


def may_unfreeze(
    loop: ast.For | ast.AsyncFor, names: tuple[ParameterName, ...], strings: StringsOf
) -> bool:
    """Whether the loop `for <name>, <p> in X.named_parameters(): ...` may leave the
    parameter of some name of `names` unfrozen by `p.requires_grad = True` (or
    `p.requires_grad_(True)`, `p.requires_grad_()`) with no freeze after it (True when the
    loop has another shape)."""
    ends = _ends_by_name(loop, names, strings)
    return ends is None or any(_UNFROZEN in found for found in ends)


# Evaluates a test operand other than the loop's name (a name, `cfg["key"]`, a literal).
StringsOf = Callable[[ast.expr], Strings]


def _ends_by_name(
    loop: ast.For | ast.AsyncFor, names: tuple[ParameterName, ...], strings: StringsOf
) -> list[set[str]] | None:
    """For each name, how the loop's body may leave its parameter (`_FROZEN`,
    `_UNFROZEN`, or untouched); None for a loop of another shape."""
    target = loop.target
    if not (
        isinstance(target, ast.Tuple)
        and len(target.elts) == 2
        and isinstance(target.elts[0], ast.Name)
        and isinstance(target.elts[1], ast.Name)
        and not loop.orelse
    ):
        return None
    variable, parameter = target.elts[0].id, target.elts[1].id
    if variable == parameter or rebinds(loop.body, {variable, parameter}):
        return None
    found: list[set[str]] = []
    for name in names:
        walk = _Walk(parameter, _Tests(variable, name, strings))
        falls = walk.block(loop.body, {_UNTOUCHED})
        found.append(falls | walk.ends)
    return found


# How a way through a loop's body leaves its parameter: untouched, frozen last, unfrozen
# last. A way that may leave the iteration before anything certain happened ends as it was.
_UNTOUCHED, _FROZEN, _UNFROZEN = "untouched", "frozen", "unfrozen"


class _Walk:
    """Follows the ways through a loop's body for one name: `block` gives the states of
    the ways that go on past a block; `ends` collects those of the ways that leave the
    iteration (`continue`, or a statement whose course is not known)."""

    def __init__(self, parameter: str, tests: _Tests) -> None:
        self.parameter = parameter
        self.tests = tests
        self.ends: set[str] = set()

    def block(self, body: list[ast.stmt], states: set[str]) -> set[str]:
        for stmt in body:
            if not states:
                break
            states = self.statement(stmt, states)
        return states

    def statement(self, stmt: ast.stmt, states: set[str]) -> set[str]:
        if _freezes(stmt, self.parameter):
            return {_FROZEN}
        if unfreezes_parameter(stmt, self.parameter):
            return {_UNFROZEN}
        if isinstance(stmt, ast.If):
            decided = self.tests.decide(stmt.test)
            taken: set[str] = set()
            if decided is not False:
                taken |= self.block(stmt.body, states)
            if decided is not True:
                taken |= self.block(stmt.orelse, states)
            return taken
        simple = isinstance(stmt, ast.Expr | ast.Assign | ast.AugAssign | ast.AnnAssign | ast.Pass)
        if simple and not _mentions(stmt, self.parameter):
            return states  # `print(...)`, `enabled.append(name)`: the parameter untouched
        # `continue`, or another statement (or one handed the parameter), which may leave
        # the iteration or do what is not known: a parameter frozen last stays so (nothing
        # else may unfreeze it where frozen facts are kept), any other way ends here.
        self.ends |= states - {_FROZEN}
        return states & {_FROZEN}


def _mentions(stmt: ast.stmt, name: str) -> bool:
    return any(isinstance(node, ast.Name) and node.id == name for node in ast.walk(stmt))


def _freezes(stmt: ast.stmt, parameter: str) -> bool:
    """`p.requires_grad = False` or `p.requires_grad_(False)`."""
    return _requires_grad_set(stmt, parameter) is False


def unfreezes_parameter(stmt: ast.stmt, parameter: str) -> bool:
    """`<parameter>.requires_grad = True`, `<parameter>.requires_grad_(True)` or
    `<parameter>.requires_grad_()`."""
    return _requires_grad_set(stmt, parameter) is True


def _requires_grad_set(stmt: ast.stmt, parameter: str) -> bool | None:
    """The literal `stmt` sets `<parameter>.requires_grad` to: `p.requires_grad = <bool>`,
    `p.requires_grad_(<bool>)`, or `p.requires_grad_()` (True); None for anything else."""
    if isinstance(stmt, ast.Assign):
        target = stmt.targets[0]
        if (
            len(stmt.targets) == 1
            and isinstance(target, ast.Attribute)
            and target.attr == "requires_grad"
            and isinstance(target.value, ast.Name)
            and target.value.id == parameter
            and isinstance(stmt.value, ast.Constant)
            and isinstance(stmt.value.value, bool)
        ):
            return stmt.value.value
        return None
    if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)):
        return None
    call = stmt.value
    if not (
        isinstance(call.func, ast.Attribute)
        and call.func.attr == "requires_grad_"
        and isinstance(call.func.value, ast.Name)
        and call.func.value.id == parameter
        and not call.keywords
    ):
        return None
    if not call.args:
        return True
    if len(call.args) == 1 and isinstance(call.args[0], ast.Constant):
        value = call.args[0].value
        return value if isinstance(value, bool) else None
    return None


def rebinds(body: list[ast.stmt], names: set[str]) -> bool:
    """Code of the body binds one of `names` (then a test may not read the loop's own)."""
    for stmt in body:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
                if node.id in names:
                    return True
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                return True
    return False


class _Tests:
    """Decides tests on one name of the loop (None: not known)."""

    def __init__(self, variable: str, name: ParameterName, strings: StringsOf) -> None:
        self.variable = variable
        self.name = name
        self.strings = strings
        self.bound: dict[str, str] = {}  # a generator's variable, bound to one string

    def decide(self, test: ast.expr) -> bool | None:
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            inner = self.decide(test.operand)
            return None if inner is None else not inner
        if isinstance(test, ast.BoolOp):
            return _combine(
                [self.decide(value) for value in test.values], isinstance(test.op, ast.And)
            )
        if isinstance(test, ast.Compare) and len(test.ops) == 1:
            return self._compare(test.left, test.ops[0], test.comparators[0])
        if isinstance(test, ast.Call):
            return self._call(test)
        return None

    def _view(self, expr: ast.expr) -> ParameterName | None:
        """What `expr` makes of the loop's name: the name itself, or its first part
        (`name.split(".")[0]`, known when the name's known start holds a dot)."""
        if isinstance(expr, ast.Name) and expr.id == self.variable:
            return self.name
        if not (
            isinstance(expr, ast.Subscript)
            and isinstance(expr.slice, ast.Constant)
            and expr.slice.value == 0
            and isinstance(expr.value, ast.Call)
            and isinstance(expr.value.func, ast.Attribute)
            and expr.value.func.attr == "split"
            and isinstance(expr.value.func.value, ast.Name)
            and expr.value.func.value.id == self.variable
            and len(expr.value.args) == 1
            and not expr.value.keywords
            and isinstance(expr.value.args[0], ast.Constant)
            and expr.value.args[0].value == "."
        ):
            return None
        head, dot, _ = self.name.start.partition(".")
        whole = self.name.exact and not self.name.indexed
        return ParameterName(head, True) if dot or whole else None

    def _operand(self, expr: ast.expr) -> Strings:
        if isinstance(expr, ast.Name) and expr.id in self.bound:
            return self.bound[expr.id]
        if isinstance(expr, ast.Name) and expr.id == self.variable:
            return None
        return _literal_strings(expr) or self.strings(expr)

    def _compare(self, left: ast.expr, op: ast.cmpop, right: ast.expr) -> bool | None:
        if isinstance(op, ast.NotIn | ast.NotEq):
            positive = ast.In() if isinstance(op, ast.NotIn) else ast.Eq()
            decided = self._compare(left, positive, right)
            return None if decided is None else not decided
        if isinstance(op, ast.In) and (whole := self._view(right)) is not None:
            part = self._operand(left)
            return _contains(whole, part) if isinstance(part, str) else None
        if isinstance(op, ast.In) and (whole := self._view(left)) is not None:
            listed = self._operand(right)
            if not isinstance(listed, tuple):
                return None
            return _combine([_equals(whole, item) for item in listed], False)
        if isinstance(op, ast.Eq):
            whole = self._view(left) or self._view(right)
            other = self._operand(right if self._view(left) is not None else left)
            if whole is None or not isinstance(other, str):
                return None
            return _equals(whole, other)
        return None

    def _call(self, call: ast.Call) -> bool | None:
        func = call.func
        if (
            isinstance(func, ast.Attribute)
            and func.attr in ("startswith", "endswith")
            and (whole := self._view(func.value)) is not None
            and len(call.args) == 1
            and not call.keywords
        ):
            given = self._operand(call.args[0])
            if given is None:
                return None
            parts = (given,) if isinstance(given, str) else given
            check = _starts if func.attr == "startswith" else _ends
            return _combine([check(whole, part) for part in parts], False)
        if (
            isinstance(func, ast.Name)
            and func.id in ("any", "all")
            and len(call.args) == 1
            and not call.keywords
            and isinstance(call.args[0], ast.GeneratorExp)
        ):
            return self._quantified(call.args[0], func.id == "all")
        return None

    def _quantified(self, generator: ast.GeneratorExp, every: bool) -> bool | None:
        if len(generator.generators) != 1:
            return None
        loop = generator.generators[0]
        if loop.ifs or loop.is_async or not isinstance(loop.target, ast.Name):
            return None
        if loop.target.id == self.variable:
            return None
        listed = self._operand(loop.iter)
        if not isinstance(listed, tuple):
            return None
        outcomes: list[bool | None] = []
        kept = dict(self.bound)
        try:
            for item in listed:
                self.bound[loop.target.id] = item
                outcomes.append(self.decide(generator.elt))
        finally:
            self.bound = kept
        return _combine(outcomes, every)


def _literal_strings(expr: ast.expr) -> Strings:
    """A string literal's text, or the texts of a tuple or list display of them."""
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
        return expr.value
    if isinstance(expr, ast.Tuple | ast.List) and all(
        isinstance(e, ast.Constant) and isinstance(e.value, str) for e in expr.elts
    ):
        return tuple(str(e.value) for e in expr.elts if isinstance(e, ast.Constant))
    return None


def _combine(outcomes: list[bool | None], every: bool) -> bool | None:
    """`and` (every) or `or` of three-valued outcomes."""
    if every:
        if False in outcomes:
            return False
        return True if all(o is True for o in outcomes) else None
    if True in outcomes:
        return True
    return False if all(o is False for o in outcomes) else None


_DIGITS = frozenset("0123456789")


def _starts(name: ParameterName, part: str) -> bool | None:
    if name.indexed:
        start = name.indexed[0]
        if start.startswith(part):
            return True
        if not part.startswith(start):
            return False
        # An index (digits) follows the known start.
        return None if part[len(start)] in _DIGITS else False
    if name.exact or name.text.startswith(part):
        return name.text.startswith(part)
    return None if part.startswith(name.text) else False


def _ends(name: ParameterName, part: str) -> bool | None:
    if not name.exact:
        return None
    if not name.indexed or name.text.endswith(part):
        return name.text.endswith(part)
    if not part.endswith(name.text):
        return False
    # An index (digits) comes right before the known end.
    return None if part[len(part) - len(name.text) - 1] in _DIGITS else False


def _contains(name: ParameterName, part: str) -> bool | None:
    pieces = (*name.indexed, name.text)
    if any(part in piece for piece in pieces):
        return True
    # Found across an index, `part` would hold one of its digits; in an unknown rest,
    # anything.
    if not name.exact or (name.indexed and _DIGITS & set(part)):
        return None
    return False


def _equals(name: ParameterName, other: str) -> bool | None:
    if name.indexed:
        pattern = "[0-9]+".join(re.escape(piece) for piece in (*name.indexed, name.text))
        matched = re.fullmatch(pattern + ("" if name.exact else ".+"), other, re.DOTALL)
        return None if matched else False
    if name.exact:
        return name.text == other
    return None if other.startswith(name.text) and len(other) > len(name.text) else False


def strings_of(value: Value) -> Strings:
    """What a value of the analysis says of a test operand: a string literal's text, or the
    texts of a list or tuple of such."""
    if isinstance(value.const, str):
        return value.const
    if value.kind is Kind.SEQUENCE and value.elements is not None and value.fields is None:
        texts = [element.const for element in value.elements]
        if all(isinstance(text, str) for text in texts):
            return tuple(str(text) for text in texts)
    return None


def listed_strings(name: str, scope: ast.AST) -> tuple[str, ...] | None:
    """The strings of `name = ["backbone", "neck"]` (a list or tuple display of string
    literals) when `scope` (a function, or the module) binds the name once, so, and every
    read of it in `scope` only iterates it or tests membership in it (`for k in name`, `x in
    name`, `s.startswith(name)`): no code can change the list. None otherwise."""
    return _listed_names(scope).get(name)


@cached_by_node
def _listed_names(scope: ast.AST) -> dict[str, tuple[str, ...]]:
    """`listed_strings` of every name of `scope`, computed once per scope node."""
    if isinstance(scope, ast.Module):
        nodes: Sequence[ast.AST] = module_nodes(scope)
        parents = module_parents(scope)
    else:
        nodes = walk(scope)
        parents = {id(child): node for node in nodes for child in ast.iter_child_nodes(node)}
    bound: dict[str, list[ast.Name]] = {}
    reads: dict[str, list[ast.Name]] = {}
    declared: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.Name):
            (reads if isinstance(node.ctx, ast.Load) else bound).setdefault(node.id, []).append(
                node
            )
        elif isinstance(node, ast.Global | ast.Nonlocal):
            declared.update(node.names)
    found: dict[str, tuple[str, ...]] = {}
    for name, stores in bound.items():
        binding = parents.get(id(stores[0]))
        if len(stores) != 1 or name in declared or not isinstance(binding, ast.Assign):
            continue
        strings = _literal_strings(binding.value)
        if (
            binding.targets == [stores[0]]
            and isinstance(strings, tuple)
            and all(_only_read(read, parents) for read in reads.get(name, ()))
        ):
            found[name] = strings
    return found


def only_read_in(function: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> bool:
    """Every read of `name` in the function (nested code included) iterates it, tests
    membership in it or hands it to `startswith`/`endswith`: nothing the function does
    through that name can change a list it holds."""
    parents = _parents(function)
    return all(
        _only_read(node, parents)
        for node in walk(function)
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load)
    )


@cached_by_node
def _parents(scope: ast.AST) -> dict[int, ast.AST]:
    return {id(child): node for node in walk(scope) for child in ast.iter_child_nodes(node)}


def _only_read(read: ast.Name, parents: dict[int, ast.AST]) -> bool:
    """A read that iterates the name or tests membership in it."""
    parent = parents.get(id(read))
    if isinstance(parent, ast.comprehension | ast.For):
        return parent.iter is read
    if isinstance(parent, ast.Compare):
        return all(isinstance(op, ast.In | ast.NotIn) for op in parent.ops) and any(
            c is read for c in parent.comparators
        )
    return (
        isinstance(parent, ast.Call)
        and isinstance(parent.func, ast.Attribute)
        and parent.func.attr in ("startswith", "endswith")
        and any(arg is read for arg in parent.args)
    )


def plain_operand(expr: ast.expr) -> bool:
    """An operand whose evaluation has no effect: names, attributes, subscripts, literals,
    and tuples or lists of these."""
    return all(isinstance(node, _PLAIN) for node in ast.walk(expr))


_PLAIN = (ast.Name, ast.Attribute, ast.Subscript, ast.Constant, ast.Tuple, ast.List, ast.Load)


def stored_names(body: list[ast.stmt]) -> frozenset[str]:
    """The plain names code of `body` binds."""
    return frozenset(
        node.id
        for stmt in body
        for node in ast.walk(stmt)
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load)
    )


def loaded_names(expr: ast.expr) -> Iterator[str]:
    """The plain names an expression reads."""
    for node in ast.walk(expr):
        if isinstance(node, ast.Name):
            yield node.id
