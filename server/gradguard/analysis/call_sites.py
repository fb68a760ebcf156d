"""Parameters known from their call sites: `def train(model, optimizer, loader)` called as
`train(net, opt, data)` everywhere in the file gets the facts of `net` and `opt`.

Real training loops live in functions whose model, optimizer and loss arrive as parameters.
A parameter's value is the join of the arguments every call in the file passes (a call
leaving it out passes its default, where `interpreter.defaults` knows it). That is
only sound when the file shows *every* call, so a function qualifies only when:

* its name is defined once in the file, by this `def`, and bound nowhere else;
* every mention of it is the callee of a call, or the target of a thread
  (`threading.Thread(target=f, args=(a,))` calls `f(a)`, see `threads`), so it is never
  passed, stored or decorated by anything but a grad-mode decorator, and a method is never
  overridden;
* each of those calls was interpreted and its arguments mapped to parameters, which the
  interpreter reports with `CallSites.note`. `*xs` maps only into a `*args` parameter;
  `**d` of a dict whose every key is known passes those keys, and of any other dict leaves
  every parameter the call does not name unknown (the dict may fill it). A `**kwargs`
  parameter holds the dict of the keywords no other parameter takes.

Methods qualify the same way through their attribute name, when their class has no base but
`object`, `nn.Module` or classes of the file that are such classes themselves (framework
hooks such as Lightning's `training_step` are called by code the file does not show), no
subclass in the file, and the method overrides no method of those bases (their code's
`self.<name>()` would run it). A call of the attribute name whose
arguments cannot bind to the method's parameters is not one of its calls (`model.train()`
beside `Trainer.train(self, model, loader)`: run, it would raise TypeError). `forward` and
dunder methods never qualify: `__call__` and the runtime call them.

A function that qualifies learns the grad mode every call runs it under whatever its
parameters (`def main():` called after a module-level `torch.set_grad_enabled(False)`); its
parameters' values only when its body may use them (`may_learn`).
"""

from __future__ import annotations

import ast
import dataclasses
import functools
from collections.abc import Mapping
from dataclasses import dataclass, field

from gradguard.analysis.graph import brought_history
from gradguard.analysis.instance_state import instance_sites
from gradguard.analysis.libraries import PLOTTING_METHODS
from gradguard.analysis.mappings import exact_keys, mapping_of, pairs_of
from gradguard.analysis.names import (
    attribute_root,
    callee_name,
    local_binding_counts,
    paired,
    parameter_names,
)
from gradguard.analysis.node_cache import cached_by_node
from gradguard.analysis.threads import target_call
from gradguard.analysis.torch_api import NUMPY_CONVERTS, uncast
from gradguard.analysis.values import (
    UNKNOWN,
    Grad,
    GradOff,
    Kind,
    Value,
    element_of,
    evolve,
    join,
)
from gradguard.analysis.walk import children, module_nodes_of, walk

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef

# Decorators that keep the function's signature and are called through (grad modes).
_TRANSPARENT_DECORATORS = ("no_grad", "inference_mode", "enable_grad", "set_grad_enabled")
_PLAIN_BASES = frozenset({"object", "Module", "nn.Module", "torch.nn.Module"})


@dataclass
class Candidate:
    """A function whose callers may all be visible, and how many calls the file has of it."""

    node: FunctionNode
    is_method: bool
    calls: frozenset[int]  # id() of every ast.Call whose callee names it
    # id() of the methods of the same name in other classes of the file: a call the
    # interpreter resolved to one of them is accounted for, and not this method's.
    siblings: frozenset[int] = frozenset()
    # Whether its body may use what its callers pass (`may_learn`); when not, it learns
    # only the grad mode its calls run it under (a `def main():` called after a top-level
    # `torch.set_grad_enabled(False)`).
    learns_parameters: bool = True
    # Whether a flag (a bool) its calls pass is learnt. A constructor that only hands its
    # parameters on (`may_learn`, keeping none on `self`) learns none: a flag decides which
    # of its code runs, and a file's own demo construction (`Model()` under `__main__`)
    # is not every construction an importer makes; numbers and data only add facts.
    learns_flags: bool = True


@dataclass(frozen=True)
class CallerFacts:
    """What every call of a function agrees on: its parameters' values (joined over the
    calls; also frozen layers of module parameters, by dotted key: `model.embeddings`) and
    the grad mode the calls run under (None: the calls disagree or it is unknown; `grad_off`
    is where the first call switched recording off)."""

    parameters: dict[str, Value]
    grad_enabled: bool | None
    grad_off: GradOff | None = None
    # For a class's `__init__`: the constructions whose known flags set their instance apart
    # (id of the call, that call's own facts; see `instance_state`).
    sites: tuple[tuple[int, CallerFacts], ...] = ()

    def at(self, call: ast.Call) -> CallerFacts | None:
        """The facts of construction `call` alone, when it sets its instance apart."""
        return next((facts for key, facts in self.sites if key == id(call)), None)

    def join(self, other: CallerFacts) -> CallerFacts:
        """The facts that hold at both calls (a frozen layer one call passes and the other
        does not is left out: every call maps every parameter)."""
        parameters = {
            name: join(value, other.parameters[name])
            for name, value in self.parameters.items()
            if name in other.parameters
        }
        enabled = self.grad_enabled if self.grad_enabled == other.grad_enabled else None
        return CallerFacts(parameters, enabled, self.grad_off if enabled is False else None)

    @property
    def informative(self) -> bool:
        """True when the facts say anything a fresh analysis would not assume."""
        return self.grad_enabled is not True or any(
            known_argument(v) for v in self.parameters.values()
        )


@dataclass(frozen=True)
class Note:
    """One interpreted call of a function of the file: the parameter values it maps (None:
    they cannot be mapped) and the grad mode it runs under."""

    function: FunctionNode
    call: ast.Call
    grad_enabled: bool | None
    grad_off: GradOff | None
    mapped: dict[str, Value] | None

    @functools.cached_property
    def facts(self) -> CallerFacts | None:
        """What this call alone says (None: its arguments cannot be mapped): made once, so
        a replayed note gives the very same object again."""
        if self.mapped is None:
            return None
        return CallerFacts(self.mapped, self.grad_enabled, self.grad_off)


@dataclass
class CallSites:
    """Arguments and grad modes seen at the calls of the file's functions in one pass.

    Every call of a function or method of the file is recorded; which functions may use
    what was seen (`candidates`, a walk over the whole module) is worked out only when
    something informative was seen, so a file whose calls say nothing pays nothing more.
    """

    # id(function) -> id(call) -> facts of that call (None: its arguments cannot be mapped)
    seen: dict[int, dict[int, CallerFacts | None]] = field(default_factory=dict)
    # Every `note` in order, with the mapping it computed (what a replayed step notes
    # again, see `gradguard.analysis.interpreter.replay`).
    log: list[Note] = field(default_factory=list)

    def note(
        self,
        function: FunctionNode,
        call: ast.Call,
        args: list[Value],
        grad_enabled: bool | None,
        grad_off: GradOff | None,
        defaults: Mapping[str, Value],
        *,
        is_method: bool,
        binding: ast.Call | None = None,
        layers: Mapping[str, Value] | None = None,
    ) -> None:
        """Record one interpretation of `call`, whose evaluated arguments are `args`
        (positional values first, then keyword values, as the interpreter evaluates them);
        `defaults` holds what a parameter the call leaves out holds, where known. `binding`
        is the call as it binds the parameters when that is not `call` itself (the call of
        a thread's target, `threads.target_call`). `layers` are frozen layers of the modules
        it passes, by the dotted key the function reads them by (`model.embeddings`): kept
        beside the parameters when every call passes such a layer there."""
        bound = binding if binding is not None else call
        mapped = _map_arguments(function, bound, args, defaults, skip_self=is_method)
        if mapped is not None and layers:
            mapped.update((k, _as_parameter(v)) for k, v in layers.items() if k not in mapped)
        self.renote(Note(function, call, grad_enabled, grad_off, mapped))

    def renote(self, note: Note) -> None:
        """Record `note` (again: a step replayed across edits reads the very same function
        header, call and argument values, so the mapping it computed still holds)."""
        self.log.append(note)
        by_call = self.seen.setdefault(id(note.function), {})
        facts = note.facts
        if id(note.call) in by_call:
            before = by_call[id(note.call)]
            facts = None if before is None or facts is None else before.join(facts)
        by_call[id(note.call)] = facts

    def informative(self) -> bool:
        """True when some function's calls, joined, say something (see `facts`)."""
        for by_call in self.seen.values():
            joined = _joined(by_call)
            if joined is not None and joined.informative:
                return True
        return False

    def facts(self, candidates: dict[int, Candidate]) -> dict[int, CallerFacts]:
        """Facts of each candidate function whose every call was seen and mapped."""
        found: dict[int, CallerFacts] = {}
        for key, candidate in candidates.items():
            by_call = self.seen.get(key, {})
            accounted = set(by_call).union(*(self.seen.get(s, {}) for s in candidate.siblings))
            if not by_call or accounted != set(candidate.calls):
                continue
            merged = _joined(by_call)
            if merged is not None and not candidate.learns_parameters:
                merged = CallerFacts({}, merged.grad_enabled, merged.grad_off)
            elif merged is not None and not candidate.learns_flags:
                merged = _without_flags(merged)
            if merged is not None and candidate.is_method and candidate.node.name == "__init__":
                sites = instance_sites(by_call, merged)
                if sites:
                    merged = dataclasses.replace(merged, sites=sites)
            if merged is not None and (merged.informative or merged.sites):
                found[key] = merged
        return found


def _without_flags(facts: CallerFacts) -> CallerFacts:
    """`facts` with every parameter that holds a known bool left unknown."""
    parameters = {
        name: UNKNOWN if type(value.const) is bool else value
        for name, value in facts.parameters.items()
    }
    return CallerFacts(parameters, facts.grad_enabled, facts.grad_off)


def _joined(by_call: dict[int, CallerFacts | None]) -> CallerFacts | None:
    """What all the recorded calls agree on (None when one cannot be mapped)."""
    merged: CallerFacts | None = None
    for facts in by_call.values():
        if facts is None:
            return None
        merged = facts if merged is None else merged.join(facts)
    return merged


def candidates(tree: ast.Module) -> dict[int, Candidate]:
    """Functions and methods of the file whose every mention is a call (see module docs)."""
    survey = _Survey()
    survey.visit(tree)
    names, attributes = survey.names, survey.attributes
    class_names = {cls.name for cls in survey.classes}
    subclassed = {_base_name(base) for cls in survey.classes for base in cls.bases}
    plain = plain_classes(survey.classes)
    found: dict[int, Candidate] = {}
    for name, entries in survey.defs.items():
        if name in class_names:
            continue
        functions = [node for node, owner in entries if owner is None]
        if len(functions) == 1 and name not in names.other:
            calls = frozenset(names.calls.get(name, set()))
            if calls and _qualifies(functions[0], None, subclassed, plain):
                learns = may_learn(functions[0])
                found[id(functions[0])] = Candidate(functions[0], False, calls, frozenset(), learns)
        methods = [(node, owner) for node, owner in entries if owner is not None]
        if name in attributes.other or len({id(owner) for _, owner in methods}) != len(methods):
            continue  # mentioned otherwise, or defined twice in one class
        named = attributes.calls.get(name, set())
        for node, owner in methods:
            # A call whose arguments cannot bind to the method's parameters is another
            # method of that name (`model.train()` beside `Trainer.train(self, model)`).
            calls = frozenset(c for c in named if _may_bind(node, survey.binding(c)))
            if calls and _qualifies(node, owner, subclassed, plain):
                siblings = frozenset(id(other) for other, _ in methods if other is not node)
                learns = may_learn(node, skip_self=True)
                found[id(node)] = Candidate(node, True, calls, siblings, learns)
    for cls in survey.classes:
        init = _constructor_candidate(cls, survey, subclassed, plain)
        if init is not None:
            found[id(init.node)] = init
    return found


def _may_bind(method: FunctionNode, call: ast.Call) -> bool:
    """Whether `call`'s arguments may bind to the parameters of `method` (after `self`):
    not more positional arguments than it takes, no keyword it lacks, every parameter
    without a default given. Unpacking (`*args`, `**kwargs`) may bind anything."""
    if any(isinstance(a, ast.Starred) for a in call.args) or any(
        kw.arg is None for kw in call.keywords
    ):
        return True
    spec = method.args
    positional = [*spec.posonlyargs, *spec.args][1:]
    if len(call.args) > len(positional) and spec.vararg is None:
        return False
    named = {kw.arg for kw in call.keywords}
    accepted = {a.arg for a in [*spec.args[1:], *spec.kwonlyargs]}
    if spec.kwarg is None and not named <= accepted:
        return False
    defaults = len(spec.defaults)
    required = positional[: len(positional) - defaults] if defaults else positional
    given = {a.arg for a in positional[: len(call.args)]} | named
    required_kw = [
        a.arg for a, d in zip(spec.kwonlyargs, spec.kw_defaults, strict=True) if d is None
    ]
    return all(a.arg in given for a in required) and all(k in named for k in required_kw)


def _qualifies(
    node: FunctionNode,
    owner: ast.ClassDef | None,
    subclassed: set[str],
    plain: Mapping[str, ast.ClassDef],
) -> bool:
    """A function (`owner` None) or a method of `owner` whose every call the file may show
    (see the module docs); `plain` holds the classes of the file such a method's class may
    be built on, and the method overrides none of theirs (their code's `self.<name>()`
    would run it where the analysis reads a call of their own). Whatever its parameters, it
    learns the grad mode its calls run it under; `may_learn` tells whether it learns its
    parameters too."""
    if not transparent_decorators(node):
        return False
    if owner is not None:
        name = node.name
        if name.startswith("__") or name == "forward" or owner.name in subclassed:
            return False
        if not _on_plain_bases(owner, plain) or _overrides(node.name, owner, plain):
            return False
        if any(
            isinstance(d, ast.Name) and d.id in ("staticmethod", "classmethod")
            for d in node.decorator_list
        ):
            return False
    return True


def _constructor_candidate(
    cls: ast.ClassDef, survey: _Survey, subclassed: set[str], plain: Mapping[str, ast.ClassDef]
) -> Candidate | None:
    """The `__init__` of a class whose every mention in the file is a call (`Trainer(model,
    opt)`), not subclassed, with plain bases and one definition, that keeps one of its
    parameters on `self` (`self.model = model`) or may use them as a function does
    (`may_learn`: hands one to a torch factory, a layer or a class of the file,
    `nn.Parameter(torch.arange(0, span, span // levels))`): its parameters learn from the
    calls, as a function's do (in the latter case, all but flags: `learns_flags`)."""
    name = cls.name
    calls = frozenset(survey.names.calls.get(name, set()))
    if not calls or name in survey.names.other or name in subclassed:
        return None
    if len(survey.defs.get(name, [])) != 0 or sum(c.name == name for c in survey.classes) != 1:
        return None
    if cls.decorator_list or not _on_plain_bases(cls, plain):
        return None
    inits = [
        s
        for s in cls.body
        if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef) and s.name == "__init__"
    ]
    if len(inits) != 1 or inits[0].decorator_list:
        return None
    init = inits[0]
    if _keeps_parameter_on_self(init):
        return Candidate(init, True, calls)
    if may_learn(init, skip_self=True):
        return Candidate(init, True, calls, learns_flags=False)
    return None


def _keeps_parameter_on_self(init: FunctionNode) -> bool:
    """`self.model = model` in `__init__`'s own body (not under a branch), also through a
    module's casts and mode switches (`self.model = model.to(device)`), or a setting read
    out of a parameter (`self.lr = args.lr`, `self.lr = config["lr"]`)."""
    names = parameter_names(init)
    if len(names) < 2:
        return False
    parameters = set(names[1:])
    return any(
        kept_on_self(single, names[0], parameters)
        or _part_kept_on_self(single, names[0], parameters)
        for stmt in init.body
        for single in _single_assignments(stmt)
    )


def _part_kept_on_self(node: ast.AST, me: str, parameters: set[str]) -> bool:
    """`self.lr = args.lr` or `self.lr = config["lr"]` (a literal key): an attribute of
    `self` set to an attribute or item of a parameter, whose callers tell what it holds."""
    if not (
        isinstance(node, ast.Assign)
        and len(node.targets) == 1
        and isinstance(target := node.targets[0], ast.Attribute)
        and isinstance(target.value, ast.Name)
        and target.value.id == me
    ):
        return False
    value = node.value
    keyed = isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Constant)
    if not (keyed or isinstance(value, ast.Attribute)):
        return False
    root = value.value  # type: ignore[attr-defined]
    return isinstance(root, ast.Name) and root.id in parameters


def _single_assignments(stmt: ast.stmt) -> list[ast.stmt]:
    """`self.a, self.b = a, b` as `self.a = a` and `self.b = b`, each value without a
    module's casts and mode switches (`self.model = model.to(device)` as `self.model =
    model`); any other statement as it is."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1):
        return [stmt]
    return [
        ast.Assign(targets=[target], value=uncast(value))
        for target, value in paired(stmt.targets[0], stmt.value)
    ]


@dataclass
class _Mentions:
    """Calls of a name (or attribute name), and whether it is mentioned any other way."""

    calls: dict[str, set[int]] = field(default_factory=dict)
    other: set[str] = field(default_factory=set)


# The node types `_Survey.visit` records; it reads only these.
_VISITED = (
    ast.Name,
    ast.Attribute,
    ast.Call,
    ast.arg,
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.Import,
    ast.ImportFrom,
    ast.Global,
    ast.Nonlocal,
)


@dataclass
class _Survey:
    """One walk over the module: definitions, calls and every other mention of names."""

    defs: dict[str, list[tuple[FunctionNode, ast.ClassDef | None]]] = field(default_factory=dict)
    classes: list[ast.ClassDef] = field(default_factory=list)
    names: _Mentions = field(default_factory=_Mentions)
    attributes: _Mentions = field(default_factory=_Mentions)
    calls: dict[int, ast.Call] = field(default_factory=dict)  # every call, by id()
    # id() of a `Thread(target=f, ...)` call -> the call of `f` it makes (`threads`).
    bindings: dict[int, ast.Call] = field(default_factory=dict)

    def binding(self, key: int) -> ast.Call:
        """The call, by id(), as it binds its callee's parameters."""
        return self.bindings.get(key) or self.calls[key]

    def visit(self, tree: ast.Module) -> None:
        """Record every node of `tree` it reads (`_VISITED`), in the order of the module's
        shared walk.

        A function's owner is the class whose body holds it (not inside another function);
        a call's callee, when a name or an attribute, is a call and not another mention
        (what an attribute callee is built from still is).
        """
        owners: dict[int, ast.ClassDef] = {}
        callees: set[int] = set()
        # Parsed trees hold the ast classes themselves (never subclasses), so a node's kind
        # is its exact type. The walk is breadth-first: a call is seen before its callee,
        # a class before its methods.
        for node in module_nodes_of(tree, *_VISITED):
            kind = type(node)
            if kind is ast.Name or kind is ast.Attribute or kind is ast.Call:
                self._mention(node, callees)
            elif type(node) is ast.arg:
                self.names.other.add(node.arg)
            elif type(node) is ast.FunctionDef or type(node) is ast.AsyncFunctionDef:
                self.defs.setdefault(node.name, []).append((node, owners.get(id(node))))
            elif type(node) is ast.ClassDef:
                self.classes.append(node)
                self._own_methods(node, owners)
            elif type(node) is ast.Import or type(node) is ast.ImportFrom:
                self.names.other.update((a.asname or a.name).split(".")[0] for a in node.names)
            elif type(node) is ast.Global or type(node) is ast.Nonlocal:
                self.names.other.update(node.names)

    def _mention(self, node: ast.AST, callees: set[int]) -> None:
        """A name, an attribute or a call: a call records its callee (seen before the
        callee itself), any other name or attribute is another mention."""
        if type(node) is ast.Name:
            if id(node) not in callees:
                self.names.other.add(node.id)
        elif type(node) is ast.Attribute:
            if id(node) not in callees:
                self.attributes.other.add(node.attr)
        elif type(node) is ast.Call:
            assert isinstance(node, ast.Call)
            self.calls[id(node)] = node
            callee = node.func
            if type(callee) is ast.Name:
                self.names.calls.setdefault(callee.id, set()).add(id(node))
                callees.add(id(callee))
            elif type(callee) is ast.Attribute:
                self.attributes.calls.setdefault(callee.attr, set()).add(id(node))
                callees.add(id(callee))
            made = target_call(node)
            if made is not None:
                self._thread_target(node, made, callees)

    def _thread_target(self, call: ast.Call, made: ast.Call, callees: set[int]) -> None:
        """`Thread(target=f, args=(x,))`: a call of `f` (`made`, `threads.target_call`),
        recorded under the id() of the `Thread` call; a target that is no name nor
        attribute stays another mention."""
        target = made.func
        if type(target) is ast.Name:
            self.names.calls.setdefault(target.id, set()).add(id(call))
        elif type(target) is ast.Attribute:
            self.attributes.calls.setdefault(target.attr, set()).add(id(call))
        else:
            return
        callees.add(id(target))
        self.bindings[id(call)] = made

    @staticmethod
    def _own_methods(cls: ast.ClassDef, owners: dict[int, ast.ClassDef]) -> None:
        """Mark the functions `cls` owns: in its body, not inside a function or a nested
        class (which owns its own)."""
        stack = children(cls)
        while stack:
            node = stack.pop()
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                owners[id(node)] = cls
            elif not isinstance(node, ast.ClassDef):
                stack.extend(children(node))


# Methods whose call on a parameter shows it is a model, optimizer or tensor whose facts
# the rules need (calling the parameter itself, `model(x)`, counts too).
_TELLING_METHODS = frozenset(
    "backward step zero_grad eval train parameters named_parameters forward item numpy "
    "detach append requires_grad_ cpu cuda to max min argmax argmin sort topk float long "
    "int sum mean view reshape squeeze unsqueeze softmax log_softmax masked_fill "
    "masked_fill_ clone gather modules named_modules children named_children".split()
)


# Functions and methods that turn what they are given into arrays (numpy, matplotlib).
_CONVERTING = frozenset(NUMPY_CONVERTS) | PLOTTING_METHODS


def may_learn(node: FunctionNode, *, skip_self: bool = False) -> bool:
    """Cached `_may_learn` (see there)."""
    return (_may_learn_method if skip_self else _may_learn_function)(node)


def _may_learn(node: FunctionNode, *, skip_self: bool) -> bool:
    """True when the function calls a parameter (`model(x)`) or a telling method of one
    (`optimizer.step()`, `loss.backward()`) or any method of a submodule of one
    (`model.norm.recalibrate(x)`), adds one to a total, iterates one or hands one
    on to a function (`helper(x)`, `self.criterion(out, y)`, an imported module's
    `torch.autograd.grad(loss, params)`, a thread's target) or reads one's `.grad`: only
    then can facts from its callers matter to a rule (learning them costs an extra pass)."""
    names = parameter_names(node)
    parameters = set(names[1:] if skip_self else names)
    vararg = node.args.vararg.arg if node.args.vararg is not None else None
    if vararg is not None:
        parameters.add(vararg)  # `for a in arrays:`, `arrays[0].numpy()`: a tuple of them
    if node.args.kwarg is not None and _reads(node, node.args.kwarg.arg):
        # `{**DEFAULTS, **kwargs}`, `kwargs["lr"]`, `fit(**kwargs)`: the options it is given
        # decide what the body does.
        return True
    if not parameters:
        return False
    local = local_binding_counts(node)
    for child in walk(node):
        if isinstance(child, ast.Call):
            func = child.func
            if isinstance(func, ast.Name) and func.id in parameters:
                return True
            hands_on = any(_mentions_parameter(arg, parameters) for arg in child.args) or any(
                kw.arg is None and _mentions_parameter(kw.value, parameters)
                for kw in child.keywords
            )
            if hands_on and (
                isinstance(func, ast.Name) or _named_callee(func) or _global_callee(func, local)
            ):
                return True  # handed on to another function, which may need it
            if _handed_to_thread(child, parameters):
                return True  # `Thread(target=work, args=(model,))`: a call of `work`
            if skip_self and appended_on_self(child, names[0], parameters):
                return True  # `self.history.append(loss)`: what the instance keeps
            if _sizes_batches(child, parameters):
                return True  # `DataLoader(data, batch_size=args.batch_size)`
            if hands_on and isinstance(func, ast.Attribute) and func.attr in _CONVERTING:
                return True  # plotted or given to numpy (`plt.plot(history)`, `np.mean(x)`)
            if (
                isinstance(func, ast.Attribute)
                and func.attr in _TELLING_METHODS
                and (
                    attribute_root(func.value) in parameters
                    or (vararg is not None and _item_of(func.value) == vararg)
                )
            ):
                return True  # `logits.max(1)`, `model.backbone.parameters()`, `arrays[0].cpu()`
            if (
                isinstance(func, ast.Attribute)
                and isinstance(func.value, ast.Attribute)
                and attribute_root(func.value) in parameters
                and not func.attr.startswith("__")
            ):
                # `model.norm.recalibrate(x)`: a method of a submodule of a parameter, which
                # may give that submodule new parameters (what `model` is decides which).
                return True
        elif (
            (
                isinstance(child, ast.AugAssign)
                and isinstance(child.value, ast.Name)
                and child.value.id in parameters
            )
            or (
                # `for p in params: p.add_(...)` (or `params.values()`, `params.items()`):
                # what it iterates decides what its body does.
                isinstance(child, ast.For | ast.AsyncFor)
                and _iterated_name(child.iter) in parameters
            )
            or (
                # `w.grad.zero_()`: whether `w` is a fresh leaf decides whether it fails.
                isinstance(child, ast.Attribute)
                and child.attr == "grad"
                and attribute_root(child.value) in parameters
            )
            or (skip_self and kept_on_self(child, names[0], parameters))
            or (isinstance(child, ast.Assign) and _takes_apart(child, parameters))
            or (
                isinstance(child, (ast.Assign, ast.AugAssign))
                and _changes_in_place(child, parameters)
            )
        ):
            return True
    return False


def _iterated_name(iterable: ast.expr) -> str | None:
    """`X` of a loop over `X`, `X.values()` or `X.items()`."""
    if (
        isinstance(iterable, ast.Call)
        and isinstance(iterable.func, ast.Attribute)
        and iterable.func.attr in ("values", "items")
        and not iterable.args
    ):
        iterable = iterable.func.value
    return iterable.id if isinstance(iterable, ast.Name) else None


def _reads(node: FunctionNode, name: str) -> bool:
    """Whether the function's body reads the name `name` (nested code included)."""
    return any(
        isinstance(child, ast.Name) and child.id == name and isinstance(child.ctx, ast.Load)
        for child in walk(node)
    )


def _takes_apart(assign: ast.Assign, parameters: set[str]) -> bool:
    """`x, y = batch` or `obs = batch["obs"]`: the parts of a parameter (a caller's batch,
    a rollout, a tuple of tensors) bound to names the function computes with."""
    value = assign.value
    if isinstance(value, ast.Subscript):
        return (
            isinstance(value.value, ast.Name)
            and value.value.id in parameters
            and isinstance(value.slice, ast.Constant)  # an item, not a slice of a tensor
        )
    return (
        isinstance(value, ast.Name)
        and value.id in parameters
        and any(isinstance(target, ast.Tuple | ast.List) for target in assign.targets)
    )


def _mentions_parameter(arg: ast.expr, parameters: set[str]) -> bool:
    """A parameter given as it is, one of its items (`policy(batch["obs"])`: what a caller's
    dict or tuple holds) or attributes (`make_grid(args.n_points)`: a setting of the
    namespace or config object a caller passes, `train(agent.policy)`), as an operand of
    arithmetic (`torch.arange(-radius, radius + 1)`: sizes and bounds computed from it), or
    as an item of a tuple, list or dict literal (`optimizer_groups([model.alpha, model])`,
    `{"params": params}`)."""
    while isinstance(arg, ast.Subscript | ast.Attribute):
        arg = arg.value
    if isinstance(arg, ast.Name):
        return arg.id in parameters
    if isinstance(arg, ast.Tuple | ast.List):
        return any(_mentions_parameter(item, parameters) for item in arg.elts)
    if isinstance(arg, ast.BinOp):
        return _mentions_parameter(arg.left, parameters) or _mentions_parameter(
            arg.right, parameters
        )
    if isinstance(arg, ast.UnaryOp):
        return _mentions_parameter(arg.operand, parameters)
    if isinstance(arg, ast.Dict):
        return any(_mentions_parameter(item, parameters) for item in arg.values)
    return False


def _sizes_batches(call: ast.Call, parameters: set[str]) -> bool:
    """`DataLoader(data, batch_size=args.batch_size)`: a loader whose batch size is read
    from a parameter's attribute, which decides the shape of every batch."""
    if callee_name(call.func) != "DataLoader":
        return False
    sizes = [k.value for k in call.keywords if k.arg == "batch_size"] + call.args[1:2]
    return any(
        isinstance(size, ast.Attribute) and attribute_root(size) in parameters for size in sizes
    )


def _item_of(expr: ast.expr) -> str | None:
    """`arrays` of `arrays[0]` (or of `arrays[i].data`): the name whose item is read."""
    while isinstance(expr, ast.Attribute):
        expr = expr.value
    if not isinstance(expr, ast.Subscript):
        return None
    return expr.value.id if isinstance(expr.value, ast.Name) else None


def _named_callee(func: ast.expr) -> bool:
    """`self.criterion`, `F.nll_loss`: a callee named through one attribute of a name (a
    module kept on `self`, a function of an imported module), whose facts about what it is
    given (a loss and its input's activation) depend on the argument."""
    return isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)


def _handed_to_thread(call: ast.Call, parameters: set[str]) -> bool:
    """`Thread(target=work, args=(model,), kwargs={"data": data})` handing a parameter on to
    the thread's target (`threads.target_call`)."""
    made = target_call(call)
    if made is None:
        return False
    given = [*made.args, *(kw.value for kw in made.keywords)]
    return any(_mentions_parameter(arg, parameters) for arg in given)


def _global_callee(func: ast.expr, local: Mapping[str, int]) -> bool:
    """`torch.autograd.grad`, `np.linalg.norm`: a callee reached through attributes of a
    name the function does not bind (an imported module), whose facts about what it is
    given (a gradient without a graph, an array of a tensor that requires grad) depend on
    the argument."""
    root = func
    while isinstance(root, ast.Attribute):
        root = root.value
    return root is not func and isinstance(root, ast.Name) and root.id not in local


def kept_on_self(node: ast.AST, me: str, parameters: set[str]) -> bool:
    """`self.loss_op = loss_op` (`me` is the method's first parameter): a setter, whose
    callers tell what the attribute holds (see `ModuleInterpreter._collect_set_attributes`)."""
    return (
        isinstance(node, ast.Assign)
        and len(node.targets) == 1
        and isinstance(target := node.targets[0], ast.Attribute)
        and isinstance(target.value, ast.Name)
        and target.value.id == me
        and isinstance(node.value, ast.Name)
        and node.value.id in parameters
    )


def appended_on_self(node: ast.AST, me: str, parameters: set[str]) -> bool:
    """`self.history.append(losses["loss"])` (`me` is the method's first parameter): what a
    list the instance keeps holds depends on what the callers pass (see `kept_histories`)."""
    return (
        isinstance(node, ast.Call)
        and isinstance(func := node.func, ast.Attribute)
        and func.attr == "append"
        and isinstance(func.value, ast.Attribute)
        and isinstance(func.value.value, ast.Name)
        and func.value.value.id == me
        and len(node.args) == 1
        and _mentions_parameter(node.args[0], parameters)
    )


def _changes_in_place(node: ast.Assign | ast.AugAssign, parameters: set[str]) -> bool:
    """True when the statement stores into a parameter's items (`E[:, 0::2] = ...`) or
    updates a parameter with an augmented assignment (`w -= lr * w.grad`): in-place changes
    whose meaning depends on what the callers pass (a leaf that requires grad, a weight)."""
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    for target in targets:
        if isinstance(target, ast.Subscript):
            target = target.value
        elif not isinstance(node, ast.AugAssign):
            continue
        if isinstance(target, ast.Name) and target.id in parameters:
            return True
    return False


def plain_classes(classes: list[ast.ClassDef]) -> dict[str, ast.ClassDef]:
    """The file's classes that only the file's own code calls into, like a class based on
    `object` or `nn.Module`, by name: each defined once, undecorated, without class
    keywords (a metaclass may wrap methods), on bases that are `object`, `nn.Module` or such
    classes themselves (`class Predictor(BasePredictor)` with `class BasePredictor:` in the
    file). A base from elsewhere (a framework class) may call methods the file never calls."""
    counts: dict[str, int] = {}
    for cls in classes:
        counts[cls.name] = counts.get(cls.name, 0) + 1
    pending = [
        cls
        for cls in classes
        if counts[cls.name] == 1 and not cls.decorator_list and not cls.keywords
    ]
    found: dict[str, ast.ClassDef] = {}
    grew = True
    while grew:  # each round admits the classes whose bases the earlier rounds admitted
        grew = False
        for cls in pending:
            if cls.name not in found and _on_plain_bases(cls, found):
                found[cls.name] = cls
                grew = True
    return found


def _on_plain_bases(cls: ast.ClassDef, plain: Mapping[str, ast.ClassDef]) -> bool:
    """Whether every base of `cls` is `object`, `nn.Module` or one of the `plain` classes."""
    return all(_base_name(b) in _PLAIN_BASES or _base_name(b) in plain for b in cls.bases)


def _overrides(name: str, cls: ast.ClassDef, plain: Mapping[str, ast.ClassDef]) -> bool:
    """Whether a class of the file that `cls` is built on defines a method `name`."""
    seen: set[str] = set()
    pending = [_base_name(b) for b in cls.bases]
    while pending:
        base = plain.get(pending.pop())
        if base is None or base.name in seen:
            continue
        seen.add(base.name)
        if any(
            isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef) and s.name == name
            for s in base.body
        ):
            return True
        pending.extend(_base_name(b) for b in base.bases)
    return False


def _base_name(base: ast.expr) -> str:
    if isinstance(base, ast.Name):
        return base.id
    if isinstance(base, ast.Attribute):
        return ast.unparse(base)
    return "?"


def transparent_decorators(node: FunctionNode) -> bool:
    """Every decorator of `node` keeps it what it is and runs it when called: grad-mode
    decorators (`@torch.no_grad()`), `staticmethod`, `classmethod`."""
    for decorator in node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        name = callee_name(target)
        if name in ("staticmethod", "classmethod"):
            continue
        if name is None or name not in _TRANSPARENT_DECORATORS:
            return False
    return True


@cached_by_node
def switches_grad_mode(function: FunctionNode) -> bool:
    """True when the function's body holds a statement `torch.set_grad_enabled(...)`: a
    switch of the whole thread's mode that outlives the call (`def main():
    torch.set_grad_enabled(True)` undoing a module-level `set_grad_enabled(False)`), so the
    caller's mode after the call is not the one before. Code it calls is not searched."""
    for node in walk(function):
        if (
            isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Call)
            and callee_name(node.value.func) == "set_grad_enabled"
        ):
            return True
    return False


def keyword_argument(call: ast.Call, args: list[Value], name: str) -> Value | None:
    """The value `call` passes as keyword `name` (`args` evaluated in order, positional
    then keyword values, as the interpreter evaluates them); None when not passed."""
    for index, kw in enumerate(call.keywords):
        if kw.arg == name:
            position = len(call.args) + index
            return args[position] if position < len(args) else None
    return None


@dataclass(frozen=True)
class _Binding:
    """What a call gives a function's parameters: `passed` by name (see
    `passed_arguments`), the keyword names it passes (written out or unpacked from a dict
    whose keys are known), and whether it also unpacks a dict of unknown keys (`hidden`),
    which may fill any parameter it does not name."""

    passed: dict[str, Value]
    keywords: frozenset[str]
    hidden: bool


def passed_arguments(
    function: FunctionNode, call: ast.Call, args: list[Value], *, skip_self: bool
) -> dict[str, Value] | None:
    """What each parameter named at `call` receives (positional values come first in `args`,
    then keyword values, as the interpreter evaluates them); None when `*` or `**` unpacking
    hides the mapping. Keywords the function does not name are kept under their own name.

    `f(**d)` of a dict whose every key is known (`mappings.exact_keys`) passes each key as
    a keyword. A `**kwargs` parameter receives the dict of the keywords no other parameter
    takes (`{}` when there are none). A `*args` parameter receives the tuple of the
    positional values beyond the named ones (see `_extra_positional`), when something is
    known of them: a call unpacking `*xs` maps when every named positional parameter is
    given before it, and the function takes the rest as `*args`."""
    binding = _bind(function, call, args, skip_self=skip_self)
    return None if binding is None or binding.hidden else binding.passed


def _bind(
    function: FunctionNode, call: ast.Call, args: list[Value], *, skip_self: bool
) -> _Binding | None:
    """`passed_arguments`, and whether a dict of unknown keys is unpacked too; None when
    the mapping is hidden (`*xs` before a named positional parameter) or the call raises a
    TypeError (a parameter given twice)."""
    positional = _positional(function, skip_self=skip_self)
    spec = function.args
    vararg = spec.vararg
    starred = [i for i, a in enumerate(call.args) if isinstance(a, ast.Starred)]
    if starred and (vararg is None or starred[0] < len(positional)):
        return None
    keywords = _keywords(call, args[len(call.args) :])
    if keywords is None:
        return None
    given, hidden = keywords
    passed = {p.arg: v for p, v in zip(positional, args[: len(call.args)], strict=False)}
    if not passed.keys().isdisjoint(given):
        return None  # a parameter given by position and by keyword: a TypeError
    passed.update(given)
    if vararg is not None:
        extra = _extra_positional(
            call.args[len(positional) :], args[len(positional) : len(call.args)]
        )
        if extra is not UNKNOWN:
            passed[vararg.arg] = extra  # (a keyword of that name went to `**kwargs`)
    if spec.kwarg is not None and not hidden:
        named = {a.arg for a in (*spec.args, *spec.kwonlyargs)}
        others = [(k, _as_parameter(v)) for k, v in given.items() if k not in named]
        passed[spec.kwarg.arg] = mapping_of(others)
    return _Binding(passed, frozenset(given), hidden)


def _keywords(call: ast.Call, values: list[Value]) -> tuple[dict[str, Value], bool] | None:
    """The keywords `call` passes by name (written out, or the keys of an unpacked dict
    whose every key is known), with their values in `values` (one per keyword of the call),
    and whether it unpacks some dict of unknown keys too; None when a name is given twice
    (a TypeError at run time)."""
    given: dict[str, Value] = {}
    hidden = False
    for index, kw in enumerate(call.keywords):
        value = values[index] if index < len(values) else None
        if kw.arg is not None:
            pairs = [(kw.arg, value)] if value is not None else []
        elif value is not None and exact_keys(value):
            pairs = [(key, _keyword_value(part, value)) for key, part in pairs_of(value)]
        else:
            hidden = True
            continue
        for key, part in pairs:
            if key in given:
                return None
            given[key] = part
    return given, hidden


def _keyword_value(part: Value, unpacked: Value) -> Value:
    """A value of a dict unpacked at a call (`**cfg`), as that keyword passes it: carried
    from an earlier iteration whenever the dict is."""
    if unpacked.carries <= part.carries:
        return part
    return evolve(part, carries=part.carries | unpacked.carries)


def _extra_positional(exprs: list[ast.expr], values: list[Value]) -> Value:
    """The tuple a `*args` parameter holds: the positional values beyond the named ones,
    each as the callee sees it. `*xs` of a list or tuple of known elements adds them;
    of a list of known items (a comprehension, appends) or of a tensor (its rows) adds
    items of unknown number, and the tuple then holds such items (`Structure.items`). Its
    `items` are what every element is at most (calls passing different numbers of values
    still join to something).
    UNKNOWN when an unpacked value is not such a sequence (a dict gives its keys, an unknown
    object anything), or when nothing is known of any element."""
    elements: list[Value] = []
    held: Value | None = None
    exact = True
    for expr, value in zip(exprs, values, strict=False):
        if not isinstance(expr, ast.Starred):
            elements.append(_as_parameter(value))
        elif value.kind is Kind.TENSOR:
            exact = False  # `*batch`: its rows, each a view with the tensor's history
            held = join(held, _as_parameter(element_of(value)))
        elif value.kind is not Kind.SEQUENCE:
            return UNKNOWN
        elif value.elements is not None:
            elements.extend(_as_parameter(e) for e in value.elements)
        elif value.items is not None:
            exact = False
            held = join(held, _as_parameter(value.items))
        else:
            return UNKNOWN
    parts = [*elements, *([held] if held is not None else [])]
    if not any(known_argument(part) for part in parts):
        return UNKNOWN
    every = parts[0]
    for part in parts[1:]:
        every = join(every, part)
    if not exact:
        return Value(kind=Kind.SEQUENCE, items=every)
    return Value(kind=Kind.SEQUENCE, elements=tuple(elements), items=every)


def known_argument(value: Value) -> bool:
    """Something is known of the argument `value` that a fresh analysis of the function
    would not assume of its parameter (its kind, its history, that it is batch data)."""
    return value.kind is not Kind.UNKNOWN or value.grad is not Grad.UNKNOWN or value.batch


def parameter_defaults(function: FunctionNode) -> dict[str, ast.expr]:
    """Each parameter with a default, and the default's expression."""
    spec = function.args
    positional = [*spec.posonlyargs, *spec.args]
    defaults = dict(
        zip(
            [p.arg for p in positional][len(positional) - len(spec.defaults) :],
            spec.defaults,
            strict=True,
        )
    )
    for param, default in zip(spec.kwonlyargs, spec.kw_defaults, strict=True):
        if default is not None:
            defaults[param.arg] = default
    return defaults


def _positional(function: FunctionNode, *, skip_self: bool) -> list[ast.arg]:
    positional = [*function.args.posonlyargs, *function.args.args]
    return positional[1:] if skip_self else positional


def _map_arguments(
    function: FunctionNode,
    call: ast.Call,
    args: list[Value],
    known_defaults: Mapping[str, Value],
    *,
    skip_self: bool,
) -> dict[str, Value] | None:
    """Parameter name -> argument value for one call, as the callee sees it (a parameter
    left out holds its default: `known_defaults`, else unknown); None when it cannot be
    mapped, or when the call would raise a TypeError.

    A call unpacking a dict of unknown keys (`train(model, **cfg)`) maps what it names; every
    parameter it leaves out may be filled by that dict, so is unknown, and so is `**kwargs`."""
    spec = function.args
    binding = _bind(function, call, args, skip_self=skip_self)
    if binding is None:
        return None
    passed = binding.passed
    positional = _positional(function, skip_self=skip_self)
    if len(call.args) > len(positional) and spec.vararg is None:
        return None  # a TypeError at run time: nothing to learn
    names = {p.arg for p in (*positional, *spec.kwonlyargs)}
    if spec.kwarg is None and not binding.keywords <= names:
        return None
    params = {p.arg: p for p in (*positional, *spec.kwonlyargs)}
    mapped = {
        name: _as_parameter(value, params[name]) for name, value in passed.items() if name in names
    }
    # Every call maps these (the joins over calls read every parameter of each).
    for extra in (spec.vararg, spec.kwarg):
        if extra is not None:
            mapped[extra.arg] = passed.get(extra.arg, UNKNOWN)
    defaults = parameter_defaults(function)
    for param in (*positional, *spec.kwonlyargs):
        if param.arg in mapped:
            continue
        if binding.hidden:
            mapped[param.arg] = UNKNOWN  # the unpacked dict may hold it
            continue
        default = defaults.get(param.arg)
        if default is None:
            return None  # a required parameter missing: a TypeError at run time
        mapped[param.arg] = known_defaults.get(param.arg, UNKNOWN)
    return mapped


def _as_parameter(value: Value, param: ast.arg | None = None) -> Value:
    """An argument as the callee sees it: the caller's loops, graph nodes, the tensors they
    saved and its binding statement mean nothing inside the callee. That it went through
    operations that saved tensors does: a backward in the callee runs through them (a loop
    of backward calls in `fit(model, feats)` over features the caller computed once frees
    them on its first pass). For `param`, that history is one node of the parameter
    (`graph.brought_history`), the same for every call and every edit of the callers:
    joined over the calls, it stays when every call's argument brought some."""
    plain = value.without_carries()
    if plain.graph or plain.saved_in or plain.origin is not None:
        # (A stand-in for the caller's own parameter is no history of its own.)
        certain = any(
            not n.given and (n.brought or not isinstance(n.node, ast.arg)) for n in plain.graph
        )
        brought = frozenset({brought_history(param)}) if certain and param else frozenset()
        plain = evolve(
            plain, graph=brought, saved_in=frozenset(), items_saved=frozenset(), origin=None
        )
    return plain


def _may_learn_as_method(node: FunctionNode) -> bool:
    return _may_learn(node, skip_self=True)


def _may_learn_as_function(node: FunctionNode) -> bool:
    return _may_learn(node, skip_self=False)


_may_learn_method = cached_by_node(_may_learn_as_method)
_may_learn_function = cached_by_node(_may_learn_as_function)
