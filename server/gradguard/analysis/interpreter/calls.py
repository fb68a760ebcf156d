"""Call dispatch: torch, builtins, methods of known objects, and the functions and
classes of the file (through their summaries)."""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Callable, Mapping
from functools import reduce
from typing import TYPE_CHECKING

from gradguard.analysis import (
    activations,
    dtypes,
    empty_subclasses,
    graph_inputs,
    handed_freezes,
    libraries,
    list_members,
    optimizer_builders,
    shapes,
    submodules,
    threads,
)
from gradguard.analysis import backpropagated as backprop
from gradguard.analysis import parameters as params
from gradguard.analysis import torch_api as api
from gradguard.analysis.call_sites import passed_arguments, switches_grad_mode
from gradguard.analysis.converted_numbers import number_builtin, rearranged
from gradguard.analysis.events import (
    Append,
    ArgumentFreedByCall,
    ForwardCall,
    FreedByCall,
    ModuleMethodCall,
    ModuleModeCall,
    OptimizerCall,
    StateAppend,
)
from gradguard.analysis.graph import SavedNode, Saves
from gradguard.analysis.imports import is_torch
from gradguard.analysis.integer_buffers import counter_kept
from gradguard.analysis.interpreter.environment import GRAD_UNKNOWN
from gradguard.analysis.interpreter.expressions import shape_of, with_field
from gradguard.analysis.interpreter.methods import class_methods, inherited_method
from gradguard.analysis.interpreter.module_calls import MODULE_BY_USE, OPTIMIZER_BY_USE
from gradguard.analysis.interpreter.summary import (
    FunctionSummary,
    mentioned_self_attributes,
    returned_parameter,
    with_rebound,
)
from gradguard.analysis.interpreter.torch_calls import TorchCalls
from gradguard.analysis.interpreter.training_effects import is_optimizer
from gradguard.analysis.mappings import exact_keys, mapping_of, merged
from gradguard.analysis.model import (
    FunctionNode,
)
from gradguard.analysis.names import (
    arguments_by_parameter,
    callee_name,
    dotted,
    is_own_attribute,
    is_staticmethod,
    names_an_optimizer,
)
from gradguard.analysis.node_cache import cached_by_node
from gradguard.analysis.tensor_tests import TENSOR_CLASSES, tensor_test
from gradguard.analysis.values import (
    NONE,
    UNKNOWN,
    Carry,
    ClassInfo,
    Grad,
    Kind,
    Loss,
    LossKind,
    ModuleRef,
    Value,
    element_of,
    evolve,
    join,
    never_had_history,
)
from gradguard.analysis.walk import walk

if TYPE_CHECKING:
    from gradguard.analysis.interpreter.module import ModuleInterpreter

_CONVERSION_BUILTINS = {"float": Kind.SCALAR, "int": Kind.SCALAR, "bool": Kind.SCALAR}


_PLAIN_BUILTINS = frozenset(
    [
        "len",
        "print",
        "range",
        "isinstance",
        "issubclass",
        "str",
        "repr",
        "enumerate",
        "zip",
        "sorted",
        "min",
        "max",
        "abs",
        "round",
        "hasattr",
        "getattr",
        "setattr",
        "id",
        "type",
        "format",
        "open",
        "iter",
        "next",
        "dict",
        "set",
    ]
)


_READ_ONLY_MAPPING_METHODS = frozenset({"get", "keys", "values", "items", "copy"})


def _iterated(name: str, given: Value) -> Value | None:
    """`iter(xs)` over a list or loader whose items are known: an iterator over the same
    items (`Value(kind=SEQUENCE, items=...)`, as `element_of` reads it); `next(it)` of
    one: one of those items. None when the items are not known."""
    if given.kind is not Kind.SEQUENCE or given.elements == ():
        return None
    item = element_of(given)
    if item is UNKNOWN:
        return None
    return Value(kind=Kind.SEQUENCE, items=item) if name == "iter" else item


def _local_method(
    receiver: Value, name: str, owner_of: Callable[[ast.AST], ModuleInterpreter]
) -> FunctionNode | None:
    """The method `name` of the class of the file `receiver` is an instance of: defined in
    its body or inherited (`inherited_method`, through the interpreter of its file)."""
    info = receiver.local_class
    if info is None:
        return None
    own = class_methods(info.node).get(name)
    return own if own is not None else inherited_method(owner_of(info.node), info.node, name)


def _with_item(sequence: Value, item: Value) -> Value:
    """A list after `append(item)`: every element is at most the join of what it held."""
    if sequence.elements is None and sequence.items is None:
        return sequence  # what it held is unknown: so is what it holds now
    held = sequence.items
    for element in sequence.elements or ():
        held = join(held, element) if held is not None else element
    joined = join(held, item) if held is not None else item
    return Value(
        kind=Kind.SEQUENCE,
        items=joined.with_origin(None),
        carries=sequence.carries,
        origin=sequence.origin,
    )


def _built_dict(call: ast.Call, args: list[Value]) -> Value | None:
    """`dict(hidden=32, lr=1e-3)`, `dict(cfg, lr=0.1)`, `dict(**a, **b)`: the dict of the
    keywords, over a copy of the one positional dict, when every key of every part is known
    (`mappings.merged`); None for anything else, or a call raising TypeError (a keyword
    given twice)."""
    if len(call.args) > 1 or any(isinstance(a, ast.Starred) for a in call.args):
        return None
    parts = list(args[: len(call.args)])
    seen: set[str] = set()
    for kw, value in zip(call.keywords, args[len(call.args) :], strict=True):
        part = mapping_of([(kw.arg, value)]) if kw.arg is not None else value
        if not exact_keys(part):
            return None
        assert part.fields is not None
        if seen & set(part.fields):
            return None
        seen |= set(part.fields)
        parts.append(part)
    return merged([*parts, *([] if parts else [mapping_of([])])])


def _plain(value: Value) -> bool:
    """A constructor argument that cannot bring parameters or tensors in: numbers, strings,
    None, tuples or lists of them, and instances of classes holding only settings
    (`gradguard.analysis.settings_classes`)."""
    if value.kind is Kind.INSTANCE:
        return value.instance_of is not None and value.instance_of.settings
    if value.kind is Kind.SEQUENCE and value.elements is not None:
        return all(_plain(e) for e in value.elements)
    if value.kind is Kind.OTHER:
        # Literal strings and conversions say why they are not tensors; other "other"
        # values (imported names, `model.parameters()`, builtins' results) may hold anything.
        return value.loss is not None and value.module is None
    return value.kind in (Kind.SCALAR, Kind.NONE)


# Methods that, taking nothing, only an `nn.Module` has: an unknown value they are called on
# is a module (listing its parameters, or switching it to evaluation mode).
_MODULE_ONLY_METHODS = frozenset({"parameters", "named_parameters", "eval"})
# Moves to a device that, among the values with history a module returns (tensors, tuples,
# lists, dicts, Hugging Face `ModelOutput`s), only tensors have (`model(x).cpu().numpy()`).
_DEVICE_MOVES = frozenset({"cpu", "cuda"})
# Methods that move, cast, reshape or reduce what they are called on, given nothing but
# sizes, dims or indices: of batch data, batch data (`mask.sum()`, `y.long()`).
_BATCH_PRESERVING = (
    (api.MAYBE_IDENTITY_METHODS - {"type"})
    | api.VIEW_METHODS
    | api.RECEIVER_ONLY_METHODS
    | frozenset({"long", "int", "bool", "byte", "squeeze", "unsqueeze"})
)


def _keeps_batch(name: str, args: list[Value]) -> bool:
    """A method that, called on batch data, returns batch data: one of `_BATCH_PRESERVING`,
    or a clamp between Python numbers."""
    if name in _BATCH_PRESERVING:
        return True
    return name in ("clamp", "clip") and all(a.kind is Kind.SCALAR for a in args)


def _keeps_detached(name: str, call: ast.Call, args: list[Value]) -> bool:
    """A method that, called on what `.detach()` gave, gives something cut from autograd
    too: a move or cast, whatever it is given (it lends the result only a dtype or device,
    `v.detach().to(other)`), `type` given a dtype (without one it returns a string), or one
    of `_BATCH_PRESERVING` given no tensor (nor what may be one)."""
    if name in api.RECEIVER_HISTORY_METHODS:
        return name != "type" or bool(call.args or call.keywords)
    return name in _BATCH_PRESERVING and not any(
        a.kind in (Kind.TENSOR, Kind.UNKNOWN) for a in args
    )


class CallEvaluator(TorchCalls):
    """Evaluates a call: routes it to torch, a builtin, a method of a known value, a module,
    or a function of the file; anything else is an opaque call."""

    def _expr_Call(self, call: ast.Call) -> Value:
        func = call.func
        qualified = self.scope.resolve(func)
        if qualified is not None and is_torch(qualified):
            return self.torch_call(call, qualified)
        if qualified is not None and qualified.startswith("numpy."):
            return self.numpy_call(call, qualified)
        if qualified in api.MATH_FUNCTIONS:
            # Always a Python number: a tensor given is converted, like `float(x)`.
            self.arguments(call)
            loss = Loss(LossKind.CONVERSION, call, f"{qualified}()")
            return Value(grad=Grad.UNTRACKED, kind=Kind.SCALAR, loss=loss)
        if qualified in libraries.PLOTTING_FUNCTIONS:
            return self.plot_call(call)
        if qualified in libraries.SKLEARN_METRICS:
            return self.metric_call(call)
        if qualified in libraries.BACKWARD_OWNERS:
            self.arguments(call)
            return Value(kind=Kind.OTHER, module=ModuleRef(qualified))
        if qualified in libraries.ADAPTER_WRAPPERS:
            # `get_peft_model(model, config)`: the same model with trainable adapters added
            # (the base frozen): what it returns is what `model` returns, and it requires grad.
            args = self.arguments(call)
            base = args[0] if call.args and not isinstance(call.args[0], ast.Starred) else None
            if base is not None and base.kind is Kind.MODULE and base.module is not None:
                return Value(kind=Kind.MODULE, module=base.module)
            return UNKNOWN
        if qualified == libraries.SUBPLOTS or qualified in libraries.AXES_FUNCTIONS:
            self.arguments(call)
            axes = Value(kind=Kind.AXES)
            if qualified == libraries.SUBPLOTS:
                return Value(kind=Kind.SEQUENCE, elements=(Value(kind=Kind.OTHER), axes))
            return axes
        if qualified in libraries.ITEM_WRAPPERS:
            return self._items_wrapped(call)
        if qualified == "copy.deepcopy":
            return self._deep_copy(call)
        if qualified == "collections.OrderedDict":
            return self._ordered_dict(call)
        if qualified == threads.THREAD:
            return self._thread(call)
        settings = self.module.syntax.config_instance(call)
        if settings is not None and settings.kind is Kind.INSTANCE:
            # A `SimpleNamespace` of settings nothing may change (see `config_objects`):
            # `cfg.steps` is the literal it was given.
            self.arguments(call)
            return settings
        if qualified is not None and (built := libraries.library_model(qualified, call)):
            self.arguments(call)
            return Value(kind=Kind.MODULE, module=ModuleRef(built.builder, kind=built.kind))
        if isinstance(func, ast.Name) and self._is_builtin(func.id):
            return self.builtin_call(call, func.id)
        if isinstance(func, ast.Attribute) and func.attr in ("parse_args", "parse_known_args"):
            namespace = self.module.syntax.parsed_namespace(call)
            if namespace is not None:
                self.arguments(call)
                return namespace
        if isinstance(func, ast.Attribute):
            key = dotted(func)
            callee_known = key is not None and self.env is not None and key in self.env
            receiver = self.eval(func.value)
            if not callee_known:
                info = receiver.local_class
                attribute = info.attributes.get(func.attr) if info is not None else None
                if attribute is None or receiver.kind is Kind.CLASS:
                    return self.method_call(call, receiver, func)
                return self.call_value(call, attribute)
        return self.call_value(call, self.eval(func))

    def _ordered_dict(self, call: ast.Call) -> Value:
        """`OrderedDict([("fc", nn.Linear(8, 2)), ("act", nn.Tanh())])`: the dict of the
        pairs, in order, when each is a literal pair with its own string key and nothing
        else is passed (`nn.Sequential(OrderedDict(...))` names its layers this way)."""
        args = self.arguments(call)
        if call.keywords or len(call.args) != 1:
            return mapping_of([]) if not call.args and not call.keywords else UNKNOWN
        node, value = call.args[0], args[0]
        if not isinstance(node, ast.List | ast.Tuple) or value.elements is None:
            return UNKNOWN
        pairs: list[tuple[str, Value]] = []
        for item, element in zip(node.elts, value.elements, strict=False):
            if not (
                isinstance(item, ast.Tuple)
                and len(item.elts) == 2
                and isinstance(item.elts[0], ast.Constant)
                and isinstance(item.elts[0].value, str)
                and element.elements is not None
                and len(element.elements) == 2
            ):
                return UNKNOWN
            pairs.append((item.elts[0].value, element.elements[1]))
        if len({key for key, _ in pairs}) != len(pairs) or len(pairs) != len(node.elts):
            return UNKNOWN
        return mapping_of(pairs)

    def _items_wrapped(self, call: ast.Call) -> Value:
        """`itertools.islice(loader, n)`, `tqdm(loader)`: an iterator over the items of the
        iterable given first, when they are known (see `libraries.ITEM_WRAPPERS`)."""
        args = self.arguments(call)
        if not call.args or isinstance(call.args[0], ast.Starred):
            return UNKNOWN
        wrapped = _iterated("iter", args[0])
        return wrapped if wrapped is not None else UNKNOWN

    def _deep_copy(self, call: ast.Call) -> Value:
        """`copy.deepcopy(model)`: another module of the same kind, whose parameters are
        frozen exactly when the original's are (a copy keeps each `requires_grad` flag);
        a target network or an EMA copy computes like the model it copies. Anything else
        copied is unknown."""
        args = self.arguments(call)
        if len(args) != 1 or call.keywords or isinstance(call.args[0], ast.Starred):
            return UNKNOWN
        original = args[0]
        if original.kind is not Kind.MODULE or original.module is None:
            return UNKNOWN
        return Value(kind=Kind.MODULE, module=original.module, frozen=original.frozen)

    def _thread(self, call: ast.Call) -> Value:
        """`threading.Thread(target=f, args=(a, b))`: a call of `f(a, b)` made in a new
        thread, so with grad on whatever this code's mode (`gradguard.analysis.threads`);
        noted for the call sites of `f`, when `f` is a function or method of the file. The
        thread itself is no tensor nor module."""
        made = threads.target_call(call)
        if made is None:
            self.arguments(call)
            return Value(kind=Kind.OTHER)
        for arg in call.args:
            self.eval(arg)
        for kw in call.keywords:
            if kw.arg not in ("target", "args", "kwargs"):
                self.eval(kw.value)
        args = self.arguments(made)
        target = self._thread_target(made.func)
        if target is not None:
            function, bound = target
            defaults = self.module.default_values(function)
            self.module.call_sites.note(
                function, call, args, True, None, defaults, is_method=bound, binding=made
            )
        return Value(kind=Kind.OTHER)

    def _thread_target(self, func: ast.expr) -> tuple[FunctionNode, bool] | None:
        """The function of the file a thread runs (`target=train`, `target=self.worker`),
        and whether it is bound to `self`; None when it is not known."""
        key = dotted(func)
        if isinstance(func, ast.Attribute) and not (self.env is not None and key in self.env):
            receiver = self.eval(func.value)
            method = _local_method(receiver, func.attr, self.module.owner_of)
            if method is None or receiver.kind is Kind.CLASS:
                return None
            return method, not is_staticmethod(method)
        callee = self.eval(func)
        if callee.kind is Kind.FUNCTION and callee.function is not None:
            return callee.function, False
        return None

    def submodule_classes(self) -> submodules.Classes:
        """How `gradguard.analysis.submodules` resolves classes here."""
        owner = self.module

        def resolve(node: ast.ClassDef | None, expr: ast.expr) -> str | None:
            if node is None:
                return self.scope.resolve(expr)
            return owner.scope_of(owner.parent_scope.get(id(node), owner.tree)).resolve(expr)

        return submodules.Classes(
            resolve, owner.class_named, owner.class_info, owner.changed_containers()
        )

    def _held_submodules(self, receiver_expr: ast.expr, receiver: Value, name: str) -> Value | None:
        """What a loop over `receiver.<name>()` (`modules()`, `children()`, ...) binds, when
        nothing may have changed the structure of the module (see `submodules.listed`)."""
        scope = self.function or self.module.tree
        root = callee_name(receiver_expr)
        if (
            submodules.structure_may_change(self.module.tree)
            or not counter_kept(scope, receiver_expr)
            or (root is not None and self.module.container_may_change(receiver_expr))
        ):
            return None
        return submodules.listed(receiver, name, self.submodule_classes())

    def _is_builtin(self, name: str) -> bool:
        return self.unshadowed(name) and (
            name in _CONVERSION_BUILTINS
            or name in _PLAIN_BUILTINS
            or name in ("tuple", "list", "sum")
        )

    def builtin_call(self, call: ast.Call, name: str) -> Value:
        """`float(x)`, `int(x)`, `tuple(x)`, `len(x)`...: builtins not shadowed in this file."""
        args = self.arguments(call)
        if name in _CONVERSION_BUILTINS:
            fresh = len(args) == 1 and never_had_history(args[0])
            history = (
                len(args) == 1 and args[0].kind is Kind.TENSOR and args[0].grad is Grad.TRACKED
            )
            loss = Loss(
                LossKind.CONVERSION,
                call,
                f"{name}()",
                converted_fresh=fresh,
                converted_history=history,
            )
            return Value(grad=Grad.UNTRACKED, kind=Kind.SCALAR, loss=loss)
        if name == "len" and len(call.args) == 1 and not call.keywords:
            # Python makes `len()` an int whatever `__len__` returns (a tensor's is its size).
            return Value(grad=Grad.UNTRACKED, kind=Kind.SCALAR)
        unpacked = any(isinstance(a, ast.Starred) for a in call.args)
        if (
            not unpacked
            and args
            and (name == "sorted" or not call.keywords)
            and (copied := rearranged(name, args[0], len(call.args))) is not None
        ):
            return copied  # `sorted(losses.tolist())`: the numbers out of the loss
        if name in ("tuple", "list") and len(args) == 1 and not call.keywords:
            if args[0].kind is Kind.MAPPING:
                return Value(kind=Kind.OTHER)  # the keys of a dict of string keys
            if args[0].elements is not None:
                return args[0]
            if args[0].kind is Kind.SEQUENCE and args[0].items is not None:
                # `list(model.parameters())`: the same items, now in a list.
                return Value(kind=Kind.SEQUENCE, items=args[0].items)
        if name == "isinstance" and len(args) == 2 and not call.keywords:
            classes = call.args[1]
            known = tensor_test(args[0])
            if known is not None and self.scope.resolve(classes) in TENSOR_CLASSES:
                return known  # `isinstance(x, torch.Tensor)` of a known kind
        if name == "dict" and (built := _built_dict(call, args)) is not None:
            return built
        if name == "setattr" and len(args) == 3:
            self.note_setattr(call, args[2])
        plain = not call.keywords and not any(isinstance(a, ast.Starred) for a in call.args)
        number = number_builtin(name, args, len(args) == 1) if plain else None
        if number is not None:
            return number  # `max(0.0, margin - gap)` of numbers out of a loss
        if name == "sum":
            summed = self._summed(call, args)
            return summed if summed is not None else self.call_value(call, UNKNOWN, args)
        if name in ("iter", "next") and len(call.args) == 1 and not call.keywords:
            iterated = _iterated(name, args[0])
            if iterated is not None:
                return iterated
        if name in ("zip", "enumerate") and args and not call.keywords:
            if any(isinstance(a, ast.Starred) for a in call.args):
                return Value(kind=Kind.OTHER)
            parts = [element_of(a) for a in args]
            if name == "enumerate":
                parts = [Value(grad=Grad.UNTRACKED, kind=Kind.SCALAR), *parts[:1]]
            if all(p is UNKNOWN for p in parts):
                return Value(kind=Kind.OTHER)
            pair = Value(kind=Kind.SEQUENCE, elements=tuple(parts))
            return Value(kind=Kind.SEQUENCE, items=pair)
        return Value(kind=Kind.OTHER) if name in _PLAIN_BUILTINS else UNKNOWN

    def _returned_argument(
        self, function: FunctionNode, call: ast.Call, args: list[Value]
    ) -> Value | None:
        """What a call of a function that always returns one of its parameters as passed
        returns (`model = load_weights(Net(), path)`): the argument itself, as the call left
        it (a name's value after the call forgot what code given it may change). None for
        any other function."""
        name = returned_parameter(function)
        if name is None:
            return None
        passed = passed_arguments(function, call, args, skip_self=False)
        if passed is None or name not in passed:
            return None
        expr = _argument_expr(function, call, name)
        key = dotted(expr) if expr is not None else None
        if key is not None and self.env is not None and key in self.env:
            return self.env[key]
        return passed[name]

    def _summed(self, call: ast.Call, args: list[Value]) -> Value | None:
        """`sum(losses)` / `sum(losses.values(), start)` over a list, tuple or dict view
        whose items are known: `start + item + item...`, arithmetic on what it holds. None
        when what is summed is not known item by item."""
        if call.keywords or not 1 <= len(call.args) <= 2:
            return None
        if any(isinstance(a, ast.Starred) for a in call.args):
            return None
        summed = args[0]
        if summed.kind is not Kind.SEQUENCE:
            return None
        parts = summed.elements if summed.elements is not None else None
        if parts is None and summed.items is not None:
            parts = (summed.items,)
        if not parts:
            return None
        start = args[1] if len(args) > 1 else Value(grad=Grad.UNTRACKED, kind=Kind.SCALAR)
        result = self.arithmetic(call, [start, *parts])
        if summed.elements is not None and result.kind is Kind.TENSOR:
            # Each element is added in turn: the tensors broadcast as `a + b + ...` does.
            result = evolve(result, shape=shapes.broadcast([shape_of(v) for v in (start, *parts)]))
        return result

    def _own_state_through(self, summary: FunctionSummary) -> dict[Carry, frozenset[Carry]]:
        """`self.helper(...)` from a method: the `self` state the helper reads, as this
        method sees it. What this method already assigned is that value's own carries;
        anything else is state a previous call left, read through the helper, so it becomes
        this method's own read of that state (see `FunctionSummary.state_reads`)."""
        mapping: dict[Carry, frozenset[Carry]] = {}
        for attr, (read, tag) in summary.state_reads.items():
            key = f"self.{attr}"
            if self.env is not None and key in self.env:
                mapping[tag] = self.env[key].all_carries()
                continue
            mapping[tag] = frozenset({self.state_read(attr, read)})
        return mapping

    def _with_state_written(
        self,
        call: ast.Call,
        summary: FunctionSummary,
        mapping: dict[Carry, frozenset[Carry]],
        returned: Value,
        result: Value,
    ) -> Value:
        """After `self.helper(...)`: the state the helper leaves on `self` is this method's,
        and what it returns depends on the state it read."""
        if self.env is not None:
            for attr, written in summary.state_writes.items():
                self.env[f"self.{attr}"] = _fresh_graph(written.retagged(mapping), call)
        depends = returned.retagged(mapping).all_carries()
        return evolve(result, carries=result.carries | depends) if depends else result

    def _change_list(self, target: ast.expr, target_key: str | None, changed: Value) -> None:
        """A list changed by one of its methods (`losses.append(loss)`) is `changed` now, by
        its name or attribute, or under a string key of a dict with known keys
        (`results["train_loss"].append(loss)`)."""
        if self.env is None:
            return
        if target_key is not None:
            self.env[target_key] = changed
            return
        if not isinstance(target, ast.Subscript):
            return
        key = dotted(target.value)
        mapping = self.env.get(key) if key is not None else None
        if key is None or mapping is None:
            return
        stored = with_field(mapping, target.slice, changed)
        if stored is not None:
            self.env[key] = evolve(stored, carries=mapping.carries, origin=mapping.origin)

    def _note_self_append(self, receiver_key: str, call: ast.Call, args: list[Value]) -> None:
        """`self.history.append(x)`, or through an instance (`self.memory.logprobs.append(x)`,
        `memory.logprobs.append(x)`): remember `x` for the summary, by the name of the list's
        attribute (see `appended_state`)."""
        if "." not in receiver_key:
            return
        if len(call.args) != 1 or call.keywords or isinstance(call.args[0], ast.Starred):
            return
        attr = receiver_key.rsplit(".", 1)[1]
        previous = self.self_appends.get(attr)
        self.self_appends[attr] = args[0] if previous is None else join(previous, args[0])

    def note_call(
        self, function: FunctionNode, call: ast.Call, args: list[Value], *, is_method: bool
    ) -> None:
        """Tell the call sites what `call` of a function of the file passes, under which
        grad mode (a parameter it leaves out holds its default, where known), and which
        layers of the modules it passes are frozen (`frozen_layers_passed`; not those of the
        object a method runs on, which its class's other callers share)."""
        defaults = self.module.default_values(function)
        mode = self.mode
        layers = self.frozen_layers_passed(function, call, skip_self=is_method, receiver=False)
        self.module.call_sites.note(
            function,
            call,
            args,
            mode.enabled,
            mode.off,
            defaults,
            is_method=is_method,
            layers=layers,
        )

    def _mode_after_call(self, function: FunctionNode) -> None:
        """After a call of `function`, which may switch the thread's grad mode for good
        (`call_sites.switches_grad_mode`), the mode is unknown."""
        if (
            self.env is not None
            and self.module.syntax.switches_grad_mode
            and switches_grad_mode(function)
        ):
            self.mode = GRAD_UNKNOWN

    def bound_method_call(
        self,
        call: ast.Call,
        receiver: Value,
        receiver_key: str | None,
        method: FunctionNode,
        args: list[Value],
    ) -> Value:
        """`receiver.method(...)` of a method of a class of the file (`receiver_key` names
        the receiver, `self` inside the class), or an instance called (`__call__`)."""
        # A static method gets the call's arguments from its first parameter on.
        bound = not is_staticmethod(method)
        module = receiver.module
        if (
            bound
            and isinstance(call.func, ast.Attribute)
            and module is not None
            and module.local is not None
            and receiver.kind is Kind.MODULE
            and (site := self.site(call, call.func.value, receiver)) is not None
        ):
            self.emit(ModuleMethodCall(call.func.attr, **site))
        self.note_call(method, call, args, is_method=bound)
        self._mode_after_call(method)
        summary = self.module.summary_of(method)
        self._state_carried_across_calls(method, summary, call, receiver, receiver_key)
        self._params_carried_across_calls(method, summary, call, args, skip_self=bound)
        returned = summary.returned
        state = self._own_state_through(summary) if receiver_key == "self" else None
        graphs = self.state_graphs(summary) if receiver_key == "self" else {}
        prefix = f"{receiver_key}."
        known_state = self.env is not None and any(k.startswith(prefix) for k in self.env)
        of = receiver.local_class
        owner = of.node if of is not None else None
        if receiver_key is not None and known_state:
            mentioned = mentioned_self_attributes(method, owner)
            if mentioned is None:
                self._forget_below(receiver_key)
            else:
                # The method, and the methods of the class it calls, can only change the
                # attributes they mention.
                for attr in mentioned:
                    self._forget_below(f"{receiver_key}.{attr}")
                    if self.env is not None:
                        self.env.pop(f"{receiver_key}.{attr}", None)
        self.taint_arguments(call, self._stepped_arguments(method, call, skip_self=bound))
        self._frozen_by(method, summary, call, skip_self=bound)
        self._replaced_by(method, summary, call, skip_self=bound)
        self.arguments_changed_in_place(method, call, skip_self=bound)
        result = self._instantiate(method, summary, call, args, skip_self=bound)
        result = self.in_context(method, call, args, result, skip_self=bound)
        if state is not None:
            result = self._with_state_written(call, summary, state, returned, result)
        if receiver_key == "self":
            self.backward_across_methods(call, method, owner, summary, graphs)
        return self._called_under_mode(method, call, result, args, skip_self=bound)

    def _tensor_method_typed(
        self, call: ast.Call, receiver: Value, key: str | None, name: str, args: list[Value]
    ) -> Value:
        """`tensor_method`, with what is certain about the dtype (see `dtypes`): the known
        False of `ids.is_floating_point()` on an integer tensor, the dtype a copy or reshape
        keeps (`ids.detach().clone()`), and what a floating cast gives: the receiver itself
        when it already has that dtype (`torch.randn(3, requires_grad=True).float()` is the
        same leaf), a tensor of that dtype otherwise."""
        assert isinstance(call.func, ast.Attribute)
        if name == "is_floating_point" and not call.args:
            known = dtypes.floating_point_test(receiver, call.func.value)
            if known is not None:
                return known
        cast = dtypes.cast_float_dtype(name, call, self.scope.resolve)
        if cast is not None and receiver.kind is Kind.TENSOR and receiver.float_dtype == cast:
            return receiver  # a cast to the dtype it has returns the tensor itself
        result = self.tensor_method(call, receiver, key, name, args)
        if cast is not None and result.kind is Kind.TENSOR:
            return evolve(result, float_dtype=cast)
        result = dtypes.kept_float(name, call, receiver, result)
        return dtypes.kept_integer(name, call, receiver, result)

    def method_call(self, call: ast.Call, receiver: Value, func: ast.Attribute) -> Value:
        """`receiver.name(...)` where the callee is not a known attribute value."""
        name = func.attr
        receiver_key = dotted(func.value)
        own_backward = None
        if name == "backward" and receiver.kind is not Kind.CLASS:
            # `self.backward(d_loss, g_loss)` of a trainer class of the file defining its own
            # `backward` runs that method, not autograd.
            own_backward = _local_method(receiver, name, self.module.owner_of)
        if name == "backward" and own_backward is None:
            args = self.arguments(call)
            owner = receiver.module.qualified if receiver.module is not None else None
            if receiver.kind is Kind.OTHER and owner in libraries.BACKWARD_OWNERS:
                # `accelerator.backward(loss)` runs `loss.backward()`.
                if call.args and not isinstance(call.args[0], ast.Starred):
                    via = f"{receiver_key or func.attr}.backward"
                    self.backpropagate(call, call.args[0], args[0], via)
                return NONE
            self.backpropagate(call, func.value, receiver, "backward")
            return NONE
        args = self.arguments(call)
        if name == "scale" and _grad_scaler(receiver) and len(args) == 1 and len(call.args) == 1:
            # `scaler.scale(loss)` multiplies the loss by a factor without history (or
            # returns it as it is when disabled): the loss's autograd facts and shape.
            scaled = args[0]
            if scaled.kind is Kind.TENSOR and not isinstance(call.args[0], ast.Starred):
                return evolve(self.tensor_op(call, [scaled]), shape=shape_of(scaled))
        if name == "append" and receiver_key is not None:
            self._note_self_append(receiver_key, call, args)
        if receiver.kind is Kind.UNKNOWN and name in api.DETACH_METHODS and not call.args:
            # Whatever has a `.detach()` (a tensor, a TensorDict, a graph batch) returns a
            # copy cut from autograd: nothing computed from it backpropagates into its past.
            return Value(Grad.UNTRACKED, Kind.UNKNOWN, Loss(LossKind.DETACH, call, ".detach()"))
        if (
            receiver.kind is Kind.UNKNOWN
            and receiver.grad is Grad.UNTRACKED
            and receiver.loss is not None
            and receiver.loss.kind is LossKind.DETACH
            and _keeps_detached(name, call, args)
        ):
            # What `.detach()` gave (no module has one), moved, cast or reshaped
            # (`logits.clone().detach().float()`, `v.detach().to(torch.float32)`): still cut
            # from autograd.
            return Value(Grad.UNTRACKED, Kind.UNKNOWN, receiver.loss)
        if receiver.batch and receiver.kind is Kind.UNKNOWN and _keeps_batch(name, args):
            # `x.to(device)`, `y.long()`, `x.view(-1, 784)`, `mask.sum().clamp(min=1)`: still
            # batch data.
            return Value(carries=receiver.all_carries(), batch=True)
        if receiver.kind is Kind.UNKNOWN and (
            (receiver.grad is not Grad.UNKNOWN and name in api.TENSOR_ONLY_METHODS)
            or (receiver.grad is Grad.TRACKED and name in _DEVICE_MOVES)
        ):
            # A value with history of unknown structure (a module's output), or certainly
            # without (its output under no_grad), whose method only tensors have
            # (`out.reshape(...)`): it is a tensor.
            receiver = evolve(receiver, kind=Kind.TENSOR)
        if receiver.kind is Kind.TENSOR:
            return self._tensor_method_typed(call, receiver, receiver_key, name, args)
        if receiver.kind is Kind.OTHER and _distribution(receiver):
            drawn = self.distribution_method(call, receiver, name, args)
            if drawn is not None:
                return drawn
        if (
            name in _MODULE_ONLY_METHODS
            and not call.args
            and receiver.kind is Kind.UNKNOWN
            and receiver_key is not None
            and self.env is not None
        ):
            # `model.parameters()` or `model.eval()` of an unknown value: only an `nn.Module`
            # has that method taking nothing (`optimizer = SGD(model.parameters())` in
            # `train(model, ...)`, `model.eval()` in `predict(model, loader)`).
            receiver = self.env[receiver_key] = Value(kind=Kind.MODULE, module=MODULE_BY_USE)
        if receiver.kind is Kind.AXES:
            if name in libraries.PLOTTING_METHODS:
                return self.plot_call(call, evaluated=args)
            return receiver if name in libraries.AXES_METHODS else UNKNOWN
        if receiver.kind is Kind.MODULE:
            if name == "requires_grad_" and params.freezes_argument(call):
                frozen = self._freeze(func.value, call, f"`{ast.unparse(call)}`")
                return frozen if frozen is not None else receiver
            if receiver.frozen is not None and name not in params.KEEPS_FROZEN:
                self._unfreeze(receiver.module)
            if name == "forward":
                if (site := self.site(call, func.value, receiver)) is not None:
                    self.emit(ForwardCall(**site))
                return self.call_value(call, receiver, evaluated=args)
            if name in api.MODULE_SELF_METHODS:
                if (
                    name in ("eval", "train")
                    and (site := self.site(call, func.value, receiver)) is not None
                ):
                    self.emit(ModuleModeCall(name, **site))
                return receiver
            if name in submodules.LISTINGS and not args and not call.keywords:
                held = self._held_submodules(func.value, receiver, name)
                if held is not None:
                    # `for m in model.modules():` binds each module in turn.
                    return Value(kind=Kind.SEQUENCE, items=held)
            if (
                name in api.BUFFER_LISTINGS
                and receiver.module is not None
                and receiver.module.integer_buffer
                and counter_kept(self.function or self.module.tree, func.value)
            ):
                return _integer_buffers(name)
            if name in api.MODULE_INFO_METHODS:
                element = self.parameters_element(call, receiver)
                if element is not None and not args:
                    # A generator of the module's parameters, handed on whole
                    # (`sgd_update(model.parameters(), lr)`): each item is what a loop
                    # over it binds.
                    return Value(kind=Kind.SEQUENCE, items=element)
                return Value(kind=Kind.OTHER)
            if receiver_key is not None and self.env is not None and receiver_key in self.env:
                # `seq.append(layer)`, `seq.add_module(...)`: its last layer may change.
                self.env[receiver_key] = activations.module_cleared(self.env[receiver_key])
        if (
            receiver.grad is Grad.UNTRACKED
            and receiver.kind is Kind.UNKNOWN
            and self.mode.enabled is False
            and self.mode.off is not None
        ):
            # A method of a value computed with recording off (an unlisted tensor method's
            # result) computes without recording too.
            loss = Loss(LossKind.NO_GRAD, call, self.mode.off.description, self.mode.off)
            return Value(grad=Grad.UNTRACKED, kind=Kind.UNKNOWN, loss=loss)
        if (module_value := self._module_by_use(call, receiver, receiver_key)) is not None:
            if (site := self.site(call, func.value, module_value)) is not None:
                self.emit(ModuleModeCall(name, **site))
            return module_value
        if (optimizer := self._optimizer_by_use(call, receiver, receiver_key)) is not None:
            receiver = optimizer
        if receiver.kind is Kind.MAPPING and receiver.integer_dtype and receiver.fields is None:
            # `model.state_dict().values()` / `.items()` (see `_integer_buffers`).
            if name in ("values", "items") and not call.args:
                return _integer_buffers("buffers" if name == "values" else "named_buffers")
            return UNKNOWN
        if receiver.kind is Kind.MAPPING:
            key = (
                call.args[0].value if call.args and isinstance(call.args[0], ast.Constant) else None
            )
            fields, elements = receiver.fields, receiver.elements
            if name == "get" and fields is not None and elements is not None and key in fields:
                return elements[fields.index(key)]
            if (
                name == "get"
                and isinstance(key, str)
                and exact_keys(receiver)
                and len(call.args) in (1, 2)
                and not call.keywords
            ):
                # A key the dict certainly lacks (`kwargs.get("scale")`): the default given.
                return args[1] if len(call.args) == 2 else NONE
            if name in ("values", "items") and not args and not call.keywords:
                held = _mapping_values(receiver)
                if held is not None:
                    # `for name, loss in losses.items():` binds each value in turn.
                    pair = Value(kind=Kind.SEQUENCE, elements=(Value(kind=Kind.OTHER), held))
                    each = _mapping_view(receiver, pairs=name == "items")
                    return Value(
                        kind=Kind.SEQUENCE, items=held if name == "values" else pair, elements=each
                    )
            if name not in _READ_ONLY_MAPPING_METHODS and receiver_key is not None and self.env:
                # update / pop / setdefault / clear...: the keys are no longer known.
                changed = Value(kind=Kind.MAPPING, carries=receiver.all_carries())
                self.env[receiver_key] = evolve(changed, origin=receiver.origin)
            return UNKNOWN
        if _is_string(receiver):
            return _string_method(name)
        if receiver.kind in (Kind.SCALAR, Kind.NONE, Kind.OTHER, Kind.SEQUENCE):
            if is_optimizer(receiver):
                if (site := self.site(call, func.value, receiver)) is not None:
                    self.emit(OptimizerCall(name, **site))
                # add_param_group, load_state_dict...: it may hold other parameters now.
                if (
                    receiver.optimizes is not None
                    and name not in ("step", "zero_grad")
                    and receiver_key is not None
                    and self.env is not None
                ):
                    self.env[receiver_key] = evolve(receiver, optimizes=None)
            elif receiver.kind is Kind.SEQUENCE and name == "append" and len(args) == 1:
                if (site := self.site(call, func.value, receiver)) is not None:
                    self.emit(Append(args[0], **site))
                if not call.keywords:
                    self._change_list(func.value, receiver_key, _with_item(receiver, args[0]))
            elif receiver.kind is Kind.SEQUENCE and name == "insert" and len(args) == 2:
                self._change_list(func.value, receiver_key, _with_item(receiver, args[1]))
            elif receiver.kind is Kind.SEQUENCE and name == "extend":
                # What it adds is not followed: what the list holds is no longer known.
                grown = Value(kind=Kind.SEQUENCE, carries=receiver.carries)
                self._change_list(func.value, receiver_key, grown.with_origin(receiver.origin))
            elif receiver.kind is Kind.SEQUENCE and name in list_members.TAKING_OUT:
                self._change_list(func.value, receiver_key, list_members.taken_from(receiver))
            return UNKNOWN
        if (
            receiver.kind is Kind.UNKNOWN
            and name == "append"
            and len(args) == len(call.args) == 1
            and not isinstance(call.args[0], ast.Starred)
            and not call.keywords
            and self.function is not None
            and is_own_attribute(self.function, func.value)
            and (site := self.site(call, func.value, receiver)) is not None
        ):
            # `self.history.append(loss)` on state the method does not follow.
            self.emit(StateAppend(args[0], **site))
        method = _local_method(receiver, name, self.module.owner_of)
        if method is not None and receiver.kind is not Kind.CLASS:
            return self.bound_method_call(call, receiver, receiver_key, method, args)
        if (
            receiver.kind is Kind.UNKNOWN
            and name == "item"
            and not call.args
            and not call.keywords
            and method is None
            and not self.module.defines_item
        ):
            # `x.item()` of a tensor or a numpy array (the objects of training code that have
            # it) is a Python number, whatever produced `x`; unless the file defines its own
            # `item()` (a small autodiff engine's scalar, whose item may be anything).
            loss = Loss(LossKind.CONVERSION, call, ".item()")
            return Value(grad=Grad.UNTRACKED, kind=Kind.SCALAR, loss=loss)
        if receiver.kind is Kind.UNKNOWN and receiver.graph and name in api.DIFFERENTIABLE_METHODS:
            # `img.view(n, -1)` on a value that may be a tensor: if the result has history,
            # it runs through the receiver's (a forward's input, see FunctionSummary).
            self.taint_arguments(call)
            return Value(graph=receiver.graph)
        if receiver.kind is Kind.UNKNOWN and receiver.graph and name in api.SPLITTING_METHODS:
            # `qkv.chunk(3, -1)` of a parameter: pieces that run through it, as above.
            self.taint_arguments(call)
            return Value(kind=Kind.SEQUENCE, items=Value(graph=receiver.graph))
        # An unknown method may change its receiver's attributes and detach what it is given.
        if receiver_key is not None:
            self._forget_below(receiver_key)
            if name.endswith("_") and not name.startswith("_") and self.env is not None:
                # `h.detach_()` on a value that may be a tensor or None (narrowed to "not
                # None" by the branch it runs on): an in-place method may cut its history.
                current = self.env.get(receiver_key)
                if current is not None and current.carries:
                    self.env[receiver_key] = current.without_carries()
        self.taint_arguments(call)
        return UNKNOWN

    def _module_by_use(
        self, call: ast.Call, receiver: Value, receiver_key: str | None
    ) -> Value | None:
        """`model.eval()` on a name or attribute of unknown value (a parameter, most often;
        `self.model` set from one) tells that it is an `nn.Module`: no other object of
        training code has an `eval()` taking nothing (pandas' takes an expression). From
        there on the name is that module. `train()` is not used this way: `trainer.train()`
        starts a Hugging Face training run."""
        func = call.func
        if not (
            isinstance(func, ast.Attribute)
            and func.attr == "eval"
            and not call.args
            and not call.keywords
            and receiver.kind is Kind.UNKNOWN
            and receiver_key is not None
            and self.env is not None
        ):
            return None
        value = Value(kind=Kind.MODULE, module=MODULE_BY_USE)
        self.env[receiver_key] = value
        return value

    def _optimizer_by_use(
        self, call: ast.Call, receiver: Value, receiver_key: str | None
    ) -> Value | None:
        """`optimizer.step()` / `optimizer.zero_grad()` on a name of unknown value (a
        parameter, most often) named as optimizers are (`optimizer`, `opt_g`, `optimizerD`,
        `self.optim`): from there on the name is an optimizer whose parameters are unknown.
        The name and the call shape together decide: a scheduler's, an environment's or a
        GradScaler's `step` is not named so or takes an argument; only a closure (the one
        argument `Optimizer.step` takes) may be passed."""
        func = call.func
        if not (
            isinstance(func, ast.Attribute)
            and receiver.kind is Kind.UNKNOWN
            and receiver_key is not None
            and self.env is not None
            and names_an_optimizer(receiver_key.rsplit(".", 1)[-1])
        ):
            return None
        if func.attr == "step":
            passed = [*call.args, *(kw.value for kw in call.keywords)]
            if len(passed) > 1 or any(kw.arg != "closure" for kw in call.keywords):
                return None
            if passed and not self._is_closure(passed[0]):
                return None
        elif func.attr != "zero_grad":
            return None
        value = Value(kind=Kind.OTHER, module=OPTIMIZER_BY_USE)
        self.env[receiver_key] = value
        return value

    def _is_closure(self, expr: ast.expr) -> bool:
        """A lambda or a function of the file: what `Optimizer.step(closure)` takes."""
        if isinstance(expr, ast.Lambda):
            return True
        return isinstance(expr, ast.Name) and self.lookup(expr.id).kind is Kind.FUNCTION

    def call_value(
        self, call: ast.Call, callee: Value, evaluated: list[Value] | None = None
    ) -> Value:
        """Call an already evaluated callee: a module, a local function or class, or unknown."""
        args = evaluated if evaluated is not None else self.arguments(call)
        if callee.kind is Kind.MODULE and callee.module is not None:
            return self.module_call(call, callee.module, args, callee.frozen)
        if callee.kind is Kind.CLASS and callee.instance_of is not None:
            info = callee.instance_of
            init = class_methods(info.node).get("__init__")
            if init is not None:
                # What `__init__`'s parameters receive (`call_sites.candidates` decides
                # whether the class may learn from it).
                self.note_call(init, call, args, is_method=True)
            owner = self.module.owner_of(info.node)
            if (sequential := owner.sequential_subclass(info.node)) is not None:
                # `class Block(nn.Sequential)` adding its layers by name: an nn.Sequential.
                return Value(kind=Kind.MODULE, module=sequential, instance_of=info)
            if info.is_module:
                # An empty subclass (`class Net2(Net): """wider"""`) runs its base's code:
                # its instances are what the base's are (see `empty_subclasses`).
                code = self._code_class(info)
                if code is not info:
                    init = class_methods(code.node).get("__init__")
                plain = self._built_from_own_parts(call, args, init)
                checker = self.module.owner_of(code.node).class_check
                own = plain and checker.self_contained(code)
                if code is info and self.module.owner_of(info.node) is self.module:
                    # Built with known flags: its own view of the class (`instance_state`).
                    code = self.module.instance_info(info, call)
                ref = ModuleRef(local=code, self_contained=own)
                return Value(kind=Kind.MODULE, module=ref, instance_of=info)
            instance = Value(kind=Kind.INSTANCE, instance_of=info)
            decorated = bool(info.node.decorator_list)
            settings = self.module.syntax.config_instance(call) if decorated else None
            if settings is not None:  # a dataclass of settings (see `config_objects`)
                return evolve(instance, elements=settings.elements, fields=settings.fields)
            return instance
        if callee.kind is Kind.INSTANCE and callee.instance_of is not None:
            # `loss_compute(out, y)` of an instance whose class defines `__call__`.
            method = _local_method(callee, "__call__", self.module.owner_of)
            if method is not None and not callee.instance_of.is_module:
                return self.bound_method_call(call, callee, dotted(call.func), method, args)
        if callee.kind is Kind.FUNCTION and callee.function is not None:
            if self.record and self.module.owner_of(callee.function) is self.module:
                self.module.analysis.resolved_calls.append((call, callee.function))
            self.note_call(callee.function, call, args, is_method=False)
            self._mode_after_call(callee.function)
            summary = self.module.summary_of(callee.function)
            self.training_step_seen_from_loops(callee.function)
            self._params_carried_across_calls(callee.function, summary, call, args)
            stepped = self._stepped_arguments(callee.function, call, skip_self=False)
            self.taint_arguments(call, stepped)
            self._frozen_by(callee.function, summary, call, skip_self=False)
            self._frozen_in_run(callee.function, summary, call, args)
            self._replaced_by(callee.function, summary, call, skip_self=False)
            self.arguments_changed_in_place(callee.function, call, skip_self=False)
            result = self._instantiate(callee.function, summary, call, args, skip_self=False)
            result = self.in_context(callee.function, call, args, result, skip_self=False)
            given = self._returned_argument(callee.function, call, args)
            if given is not None:
                return given
            built = self._built_by_builder(callee.function, call, result)
            if built is not None:
                return built
            return self._called_under_mode(callee.function, call, result, args, skip_self=False)
        self.taint_arguments(call)
        if (
            callee.kind is Kind.UNKNOWN
            and self.mode.enabled is False
            and self.mode.off is not None
            and any(a.batch for a in args[: len(call.args)])
        ):
            # An unknown callable given batch data with recording off (the model of a
            # loop, `model(x)`) computes from that data without recording.
            loss = Loss(LossKind.NO_GRAD, call, self.mode.off.description, self.mode.off)
            return Value(grad=Grad.UNTRACKED, kind=Kind.UNKNOWN, loss=loss)
        return self._opaque_loss(call, args)

    def _opaque_loss(self, call: ast.Call, args: list[Value]) -> Value:
        """An unknown callable's result: unknown, unless it is bound (`loss = criterion(out,
        y)`) to a name `.backward()` is later called on (`backprop.backpropagated_names`).
        Then it is the loss computed from what it is given, so it depends on the loop-carried
        values they depend on (a helper such as `h = repackage_hidden(h)` is no loss: its
        result stays free of them, a possible detach)."""
        stmt = self.stmt
        if not (
            isinstance(stmt, ast.Assign)
            and stmt.value is call
            and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name)
        ):
            return UNKNOWN
        node = self.function if self.function is not None else self.module.tree
        if not self.module.may_call_backward(node):
            return UNKNOWN
        if stmt.targets[0].id not in backprop.backpropagated_names(node):
            return UNKNOWN
        carries = frozenset().union(*(a.all_carries() for a in args))
        return Value(carries=carries) if carries else UNKNOWN

    def _built_by_builder(
        self, function: FunctionNode, call: ast.Call, result: Value
    ) -> Value | None:
        """`build_optimizer(model, lr)` of a function that only returns
        `torch.optim.X(model.parameters(), ...)` (`optimizer_builders`): an optimizer built
        here on the module the call passes (see `OptimizedParameters`); `result` is what
        the function's summary says it returns (kept, with that fact)."""
        owner = self.module.owner_of(function)
        scope = owner.scope_of(function)
        builder = optimizer_builders.optimizer_builder(function, scope.resolve)
        if builder is None or self.stmt is None:
            return None
        expr = _argument_expr(function, call, builder.parameter)
        key = dotted(expr) if expr is not None else None
        held = self._bound_or_kept(key) if key is not None else None
        if key is None or held is None or held.kind is not Kind.MODULE or held.module is None:
            return None
        optimizes = params.OptimizedParameters(call, self.stmt, key, held.module)
        if is_optimizer(result):
            return evolve(result, optimizes=optimizes)
        return Value(
            kind=Kind.OTHER, module=ModuleRef(qualified=builder.qualified), optimizes=optimizes
        )

    def _code_class(self, info: ClassInfo) -> ClassInfo:
        """The class whose code instances of `info`'s class run (`empty_subclasses`)."""
        owner = self.module.owner_of(info.node)
        counts = owner.scope_of(owner.tree).counts or {}
        code = empty_subclasses.code_class(
            info.node, owner.class_named, lambda name: counts.get(name) == 1
        )
        return info if code is info.node else owner.class_info(code)

    def _built_from_own_parts(
        self, call: ast.Call, args: list[Value], init: FunctionNode | None
    ) -> bool:
        """Constructor arguments that bring no parameter the instance does not register:
        plain values, and a self-contained module (built in the file) that `__init__` only
        stores whole on `self` (`self.encoder = encoder`, a registered submodule) and that
        nothing else here shares: built in the call itself, or a name read only there."""
        if any(isinstance(a, ast.Starred) for a in call.args):
            return False
        if any(kw.arg is None for kw in call.keywords):
            return False
        if all(_plain(v) for v in args):
            return True
        if init is None:
            return False
        stored = params.stored_whole(init)
        positional = [a.arg for a in (*init.args.posonlyargs, *init.args.args)][1:]
        names = [*positional[: len(call.args)], *(kw.arg for kw in call.keywords)]
        exprs = [*call.args, *(kw.value for kw in call.keywords)]
        if len(names) < len(exprs):
            return False
        for name, expr, value in zip(names, exprs, args, strict=False):
            if _plain(value):
                continue
            module = value.module
            if value.kind is not Kind.MODULE or module is None or not module.self_contained:
                return False
            if name not in stored or not (
                params.constructed_here(expr) or self._read_only_here(expr)
            ):
                return False
        return True

    def _read_only_here(self, expr: ast.expr) -> bool:
        """A variable of the code around this call that nothing else reads: a local of this
        function read once in it, or a module-level name read once at module level and by
        no function or class body that does not bind it itself."""
        if not isinstance(expr, ast.Name):
            return False
        name = expr.id
        if self.function is not None:
            return self.scope.is_bound_locally(name) and _loads(self.function, name) == 1
        syntax = self.module.syntax
        own = sum(
            [
                _loads(function, name)
                for function in syntax.functions
                if not _nested(function, syntax.parent_scope)
                and syntax.scope_of(function).is_bound_locally(name)
            ]
        )
        return _loads(self.module.tree, name) - own == 1

    def _stepped_arguments(
        self, function: FunctionNode, call: ast.Call, *, skip_self: bool
    ) -> frozenset[str]:
        """Keys of the arguments a function of this file only steps or clears (an optimizer
        handed to `train(model, loader, optimizer)`): what they hold stays known."""
        if self.module.owner_of(function) is not self.module:
            return frozenset()
        keys = set()
        for name in params.steps_only(function):
            expr = _argument_expr(function, call, name, skip_self=skip_self)
            key = dotted(expr) if expr is not None else None
            if key is not None:
                keys.add(key)
        return frozenset(keys)

    def _frozen_by(
        self, function: FunctionNode, summary: FunctionSummary, call: ast.Call, *, skip_self: bool
    ) -> None:
        """A function of this file that freezes the whole module a parameter holds, or a
        layer of it, on every way out (`def freeze(model): model.requires_grad_(False)`):
        the module the call passes (or its layer) is frozen after it, by the function's own
        freeze (where the fix belongs)."""
        if not summary.frozen_parameters or self.module.owner_of(function) is not self.module:
            return
        self._apply_freezes(function, summary.frozen_parameters, call, skip_self=skip_self)

    def _frozen_in_run(
        self, function: FunctionNode, summary: FunctionSummary, call: ast.Call, args: list[Value]
    ) -> None:
        """A function of this file freezing the module a parameter holds whatever it is
        (`def freeze(m): m.requires_grad_(False)`, see `handed_freezes`), whose summary does
        not know it frozen (its callers hand it different modules): the module this call
        passes is frozen after it when a run of the function with this call's arguments
        freezes it on every way out."""
        if not self.module.frozen_facts or self.module.owner_of(function) is not self.module:
            return
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            return
        names = handed_freezes.freezing_parameters(function) - summary.frozen_parameters.keys()
        if not names:
            return
        passed = passed_arguments(function, call, args, skip_self=False)
        if passed is None or not any(
            name in passed and passed[name].kind is Kind.MODULE for name in names
        ):
            return
        found = self.module.result_in_context(function, call, passed, self.mode)
        if found is None:
            return
        frozen = {key: inner for key, inner in found.frozen if key.split(".", 1)[0] in names}
        self._apply_freezes(function, frozen, call, skip_self=False)

    def _apply_freezes(
        self,
        function: FunctionNode,
        frozen: Mapping[str, params.Freeze],
        call: ast.Call,
        *,
        skip_self: bool,
    ) -> None:
        """The modules (or layers of them) `call` hands `function` under the keys of
        `frozen` (parameter names, or dotted keys from them) are frozen after the call, by
        the function's own freeze."""
        for key, inner in frozen.items():
            name, *attrs = key.split(".")
            expr = _argument_expr(function, call, name, skip_self=skip_self)
            if expr is None:
                continue
            for attr in attrs:
                # `freeze_embeddings(model)` froze `model.embeddings`.
                expr = ast.Attribute(expr, attr, ast.Load())
            how = f"the call of `{function.name}()` at line {call.lineno}, through its "
            self._freeze(expr, inner.node, how + inner.description)

    def _replaced_by(
        self, function: FunctionNode, summary: FunctionSummary, call: ast.Call, *, skip_self: bool
    ) -> None:
        """A function of this file that gives an attribute of a parameter a new module
        (`def load(path, model): model.fc = nn.Linear(...)`): optimizers the caller built on
        the module it passes do not hold the new parameters (no code of the file gives an
        optimizer parameters, see `replaced_attributes`)."""
        if not summary.replaced_attributes or self.module.owner_of(function) is not self.module:
            return
        for name, replaced in summary.replaced_attributes.items():
            expr = _argument_expr(function, call, name, skip_self=skip_self)
            if expr is not None and dotted(expr) is not None:
                self.replaced_by_call(expr, replaced)

    def _instantiate(
        self,
        function: FunctionNode,
        summary: FunctionSummary,
        call: ast.Call,
        args: list[Value],
        *,
        skip_self: bool,
    ) -> Value:
        """The function's result as this call sees it (see `graph_inputs.instantiate`); a
        change the function made in place to a tensor its result saved is this call's."""
        inputs = graph_inputs.call_inputs(
            function,
            summary.input_nodes,
            call,
            args,
            skip_self=skip_self,
            grad_on=self.mode.enabled is True,
        )
        fresh = SavedNode(call, Saves.OTHER)
        self._backwards_through_arguments(function, summary, call, inputs)
        self._free_arguments(summary, call, inputs)
        result = graph_inputs.instantiate(summary.returned.without_carries(), call, inputs, fresh)
        if self.mode.enabled is True:
            result = graph_inputs.with_saved_output(result, summary.returned, call, inputs)
        result = self._with_argument_carries(function, summary, call, args, result, skip_self)
        if summary.rebound and self.mode.enabled is True:
            passed = passed_arguments(function, call, args, skip_self=skip_self) or {}
            result = with_rebound(result, summary, set(passed))
        if summary.frees_result and _runs_through(result, fresh):
            # The function's backward freed what its result runs through: so is this node.
            freed, modified = self._graph_state()
            self._set_graph_state(freed | {fresh}, modified)
            if (site := self.site(call, call.func, result)) is not None:
                self.emit(FreedByCall(fresh, summary.frees_result, **site))
        if fresh in result.graph and result.grad is Grad.TRACKED:
            # Recorded as this function's own change too: what it returns runs through it.
            changes = tuple(
                dataclasses.replace(change, function=self.function)
                for change in graph_inputs.realised_changes(summary.changed_in_result, inputs)
            )
            self._result_changed_in_place(
                fresh, dataclasses.replace(summary, changed_in_result=changes), realised=True
            )
        return result

    def _backwards_through_arguments(
        self,
        function: FunctionNode,
        summary: FunctionSummary,
        call: ast.Call,
        inputs: graph_inputs.CallInputs,
    ) -> None:
        """The function's backward calls through what its parameters bring, as this call
        runs them: when an argument's graph here holds nodes an earlier backward freed,
        recorded with them (`ModuleAnalysis.backward_across_methods`), so the second pass
        through them is seen (`generator_step(netD, fake)` after the discriminator's
        backward ran through `fake`)."""
        if not summary.param_backwards or not self.record:
            return
        freed, _ = self._graph_state()
        if not freed:
            return
        for event, names in summary.param_backwards:
            nodes = [summary.input_nodes.get(name) for name in names]
            graph = frozenset().union(*(inputs.graphs.get(n, frozenset()) for n in nodes if n))
            if graph & freed and event.value.grad is not Grad.UNTRACKED:
                self.module.analysis.backward_across_methods.append(
                    self._seen_from_caller(function, call, event, graph, freed)
                )

    def _free_arguments(
        self, summary: FunctionSummary, call: ast.Call, inputs: graph_inputs.CallInputs
    ) -> None:
        """The graphs of the arguments the function's backward calls freed
        (`FunctionSummary.frees_parameters`): freed here from then on, as if the body were
        written at the call (`d_step(netD, fake)`, then `loss_g.backward()` through
        `netD(fake)` again). Only with recording certainly on: the function's backward then
        certainly ran."""
        if not summary.frees_parameters or self.mode.enabled is not True:
            return
        freed, modified = self._graph_state()
        for name, backwards in summary.frees_parameters.items():
            stand_in = summary.input_nodes.get(name)
            passed = inputs.graphs.get(stand_in, frozenset()) if stand_in is not None else None
            # Only the argument's operations: the caller's own stand-ins stand for a history
            # its callers may not have given it (no caller's backward is told it ran twice).
            graph = graph_inputs.own_nodes(passed) if passed else frozenset()
            if not graph or graph <= freed:
                continue
            freed = freed | graph
            self._set_graph_state(freed, modified)
            if (site := self.site(call, call.func, UNKNOWN)) is not None:
                self.emit(ArgumentFreedByCall(graph, name, backwards, **site))

    def _with_argument_carries(
        self,
        function: FunctionNode,
        summary: FunctionSummary,
        call: ast.Call,
        args: list[Value],
        result: Value,
        skip_self: bool,
    ) -> Value:
        """`result` depending on the loop-carried values of the arguments what the function
        returns depends on (`loss = compute_loss(log_probs, values)` with `log_probs` built
        from the carried hidden state carries it too), element by element for a tuple the
        function returns."""
        if not summary.param_tags:
            return result
        passed = passed_arguments(function, call, args, skip_self=skip_self) or {}
        mapping = {
            tag: passed[name].all_carries()
            for name, tag in summary.param_tags.items()
            if name in passed
        }
        returned = summary.returned.retagged(mapping)
        return _carrying(result, returned)


def _runs_through(value: Value, node: SavedNode) -> bool:
    """Whether `value`, or an element of it, certainly runs through graph node `node`."""
    if value.elements is not None:
        return any(_runs_through(element, node) for element in value.elements)
    return node in value.graph


def _carrying(result: Value, returned: Value) -> Value:
    """`result` with the carries of `returned`, what it stands for (its elements' in turn
    when both are tuples of the same length)."""
    elements, carried = result.elements, returned.elements
    if elements is not None and carried is not None and len(elements) == len(carried):
        parts = tuple(_carrying(e, c) for e, c in zip(elements, carried, strict=True))
        result = evolve(result, elements=parts)
    if not returned.carries or returned.carries <= result.carries:
        return result
    return evolve(result, carries=result.carries | returned.carries)


def _loads(node: ast.AST, name: str) -> int:
    """How many times the code of `node` (nested functions included) reads `name`."""
    return _load_counts(node).get(name, 0)


@cached_by_node
def _load_counts(node: ast.AST) -> dict[str, int]:
    """How many times the code of `node` reads each name (a cached answer per node, so an
    analysis across edits sees which nodes' code a step read: `gradguard.analysis.incremental`)."""
    counts: dict[str, int] = {}
    for inner in walk(node):
        if isinstance(inner, ast.Name) and isinstance(inner.ctx, ast.Load):
            counts[inner.id] = counts.get(inner.id, 0) + 1
    return counts


def _nested(function: FunctionNode, parents: Mapping[int, ast.AST]) -> bool:
    """A function defined inside another function (not at module level or in a class)."""
    parent = parents.get(id(function))
    while parent is not None:
        if isinstance(parent, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            return True
        parent = parents.get(id(parent))
    return False


def _argument_expr(
    function: FunctionNode, call: ast.Call, name: str, *, skip_self: bool = False
) -> ast.expr | None:
    """The expression `call` passes for the parameter `name` of `function` (no unpacking);
    for a method called on an object (`skip_self`), its first parameter is the object."""
    positional = [*function.args.posonlyargs, *function.args.args]
    if skip_self and positional and positional[0].arg == name:
        return call.func.value if isinstance(call.func, ast.Attribute) else None
    passed = arguments_by_parameter(function, call, skip_self=skip_self)
    return passed.get(name) if passed is not None else None


def _fresh_graph(value: Value, call: ast.Call) -> Value:
    """State a method leaves on `self`, as this call of it left it: the method's own graph
    nodes stand for one node of this call (two calls build two graphs, and a backward
    through the first frees nothing of the second's), as for what it returns."""
    own = graph_inputs.own_nodes(value.graph)
    if not own:
        return value
    return evolve(value, graph=(value.graph - own) | {SavedNode(call, Saves.OTHER)})


def _mapping_values(mapping: Value) -> Value | None:
    """At most what any value of a dict holds: the join of its known values (a literal
    with string keys, or keyed stores), None when they are not all known."""
    parts = [*(mapping.elements or ()), *([mapping.items] if mapping.items is not None else [])]
    if not parts:
        return None
    return reduce(join, parts).with_origin(None)


def _mapping_view(mapping: Value, *, pairs: bool) -> tuple[Value, ...] | None:
    """What `d.values()` (or, with `pairs`, `d.items()`) yields one by one, in key order,
    when every key of the dict is known (`sum(d.values())` adds each of them); None when
    some key is not (a store under an unknown key)."""
    keys, values = mapping.fields, mapping.elements
    if keys is None or values is None or mapping.items is not None:
        return None
    if not pairs:
        return tuple(v.with_origin(None) for v in values)
    return tuple(
        Value(kind=Kind.SEQUENCE, elements=(_key(key), v.with_origin(None)))
        for key, v in zip(keys, values, strict=True)
    )


def _key(key: str) -> Value:
    """A dict's known string key, as its literal evaluates."""
    return Value(grad=Grad.UNTRACKED, kind=Kind.OTHER, const=key)


def _distribution(value: Value) -> bool:
    """A torch.distributions object (`Categorical(logits=out)`)."""
    module = value.module
    return module is not None and api.distribution_class(module.qualified) is not None


def _grad_scaler(value: Value) -> bool:
    """A mixed-precision gradient scaler built here (`torch.amp.GradScaler(...)`)."""
    return (
        value.kind is Kind.OTHER
        and value.module is not None
        and value.module.qualified in api.GRAD_SCALERS
    )


# A Python string (`"".join(...)`, `s.lower()`): the class its `module` names.
STRING = ModuleRef("builtins.str")

# An item of `named_buffers()` or `state_dict().items()`: a (name, tensor) pair.
_NAMED = Value(kind=Kind.SEQUENCE, elements=(UNKNOWN, UNKNOWN))


def _integer_buffers(method: str) -> Value:
    """What `method` (`buffers`, `named_buffers`, `state_dict`) of a module holding an
    integer buffer (`ModuleRef.integer_buffer`) gives: a sequence (or, for `state_dict`, a
    mapping) with the `integer_dtype` fact, which on a container says that one of its items
    (the tensor of a pair, for `named_buffers`) is certainly a tensor of an integer dtype;
    what each item is stays unknown."""
    if method == "state_dict":
        return Value(kind=Kind.MAPPING, integer_dtype=True)
    items = _NAMED if method == "named_buffers" else None
    return Value(kind=Kind.SEQUENCE, items=items, integer_dtype=True)


# `str` methods giving an int (a count or a position) or a bool.
_STRING_NUMBER_METHODS = frozenset(
    "count find rfind index rindex startswith endswith isdigit isalpha isalnum isspace "
    "isupper islower isnumeric isdecimal isidentifier".split()
)
# `str` methods giving a string.
_STRING_METHODS = frozenset(
    "join lower upper strip lstrip rstrip replace format title capitalize casefold zfill "
    "center ljust rjust removeprefix removesuffix swapcase expandtabs".split()
)


def _is_string(value: Value) -> bool:
    """A Python string: a literal, or what a string method gave."""
    return value.kind is Kind.OTHER and (isinstance(value.const, str) or value.module == STRING)


def _string_method(name: str) -> Value:
    """What a method of a Python string gives: no `str` method returns a tensor (counts and
    positions are ints, tests are bools, the others strings, lists of them or bytes)."""
    if name in _STRING_NUMBER_METHODS:
        return Value(grad=Grad.UNTRACKED, kind=Kind.SCALAR)
    if name in _STRING_METHODS:
        return Value(grad=Grad.UNTRACKED, kind=Kind.OTHER, module=STRING)
    return Value(grad=Grad.UNTRACKED, kind=Kind.OTHER)
