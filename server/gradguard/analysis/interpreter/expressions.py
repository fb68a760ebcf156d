"""Expressions other than calls, and assignment to targets (names, attributes,
tuples, subscripts)."""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable
from functools import reduce
from typing import Any

from gradguard.analysis import activations, narrowing, shapes
from gradguard.analysis import graph as graphs
from gradguard.analysis import torch_api as api
from gradguard.analysis.converted_numbers import (
    converted_from_history,
    part_of_converted,
    plain_data,
)
from gradguard.analysis.dtypes import integral_arithmetic, kept_by_indexing
from gradguard.analysis.events import Accumulation, AttributeSet, GradRead, InPlaceChange
from gradguard.analysis.integer_buffers import counter_kept
from gradguard.analysis.interpreter.environment import GRAD_ON, GRAD_UNKNOWN, GradMode
from gradguard.analysis.interpreter.training_effects import TrainingEffects, through_instance
from gradguard.analysis.item_graphs import item_at, items_list, own_items
from gradguard.analysis.list_members import concatenated, joined_items
from gradguard.analysis.list_parts import sliced_elements, with_element
from gradguard.analysis.mappings import mapping_of, merged
from gradguard.analysis.names import callee_name, dotted, is_access_path
from gradguard.analysis.number_arithmetic import folded
from gradguard.analysis.values import (
    UNKNOWN,
    ConditionalLoss,
    Grad,
    GradOff,
    Indexing,
    Kind,
    Loss,
    LossKind,
    Value,
    added_inert_terms,
    combine,
    element_of,
    evolve,
    forced_leaf,
    join,
    literal,
    with_item,
)

_PLAIN_KINDS = frozenset([Kind.SCALAR, Kind.NONE, Kind.OTHER])


def dtype_value(node: ast.expr) -> Value:
    """A torch dtype (`torch.float32`), `torch.device` or a device it makes: a constant,
    never a tensor, without history (what it is given to takes no history from it)."""
    return Value(Grad.UNTRACKED, Kind.OTHER, Loss(LossKind.LITERAL, node, "a constant"))


def shape_of(value: Value) -> shapes.Shape:
    """A value's shape as an operand: Python numbers broadcast like 0-dim tensors."""
    if value.kind is Kind.TENSOR:
        return value.shape
    if value.kind is Kind.SCALAR:
        return shapes.SCALAR_SHAPE
    return shapes.UNKNOWN_SHAPE


def argument_constants(call: ast.Call, args: list[Value]) -> dict[ast.AST, object]:
    """What a call's argument expressions are known to hold (`args` evaluated in order,
    positional then keywords), and the items of a tuple or list written in place
    (`torch.randn((n, 3))`): the sizes `gradguard.analysis.shapes` may read besides
    literals. Nothing after a `*args`, whose values no longer line up."""
    known: dict[ast.AST, object] = {}
    nodes = [*call.args, *(kw.value for kw in call.keywords)]
    if any(isinstance(node, ast.Starred) for node in call.args):
        return known
    for node, value in zip(nodes, args, strict=False):
        if value.const is not None:
            known[node] = value.const
        elements = value.elements
        if isinstance(node, ast.Tuple | ast.List) and elements and len(elements) == len(node.elts):
            for item, element in zip(node.elts, elements, strict=True):
                if element.const is not None:
                    known[item] = element.const
    return known


def with_field(base: Value, key: ast.expr, value: Value) -> Value | None:
    """A dict with known string keys after `base[key] = value`; None when `key` is not a
    string constant or the keys of `base` are not known."""
    if base.kind is not Kind.MAPPING or base.fields is None or base.elements is None:
        return None
    if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
        return None
    fields, elements = list(base.fields), list(base.elements)
    if key.value in fields:
        elements[fields.index(key.value)] = value
    else:
        fields.append(key.value)
        elements.append(value)
    return Value(kind=Kind.MAPPING, elements=tuple(elements), fields=tuple(fields))


class ExpressionEvaluator(TrainingEffects):
    """Evaluates expressions to `Value`s (dispatching on node type) and binds assignment
    targets; arithmetic and tensor ops record the graph nodes that save their operands."""

    def bind(self, target: ast.expr, value: Value) -> None:
        """Assign `value` to an assignment target (names, attributes, tuples, subscripts)."""
        if value.kind is Kind.MODULE or (value.kind is Kind.TENSOR and value.leaf):
            self._note_replacement(target, value)
        if isinstance(target, ast.Attribute | ast.Subscript) and value.kind not in _PLAIN_KINDS:
            # A module, tensor or unknown stored into some object may give a frozen module
            # a trainable submodule or parameter.
            self._unfreeze(None)
        if isinstance(target, ast.Name):
            self.bind_key(target.id, value)
        elif isinstance(target, ast.Attribute):
            key = dotted(target)
            base_key = dotted(target.value)
            env = self.env
            base = env.get(base_key) if env is not None and base_key is not None else None
            held, evaluated = base, False
            if (
                held is None
                and "grad" in target.attr
                and target.attr != "grad"
                and isinstance(target.value, ast.Attribute)
                and env is not None
                and self.stmt is not None
            ):
                # `layer.weight.require_grad = False`: a grad flag (or a misspelling of one)
                # set on what an object's attribute holds (a module's parameter).
                held, evaluated = self.eval(target.value), True
            if (
                held is not None
                and _tensor_here(held)
                and self.stmt is not None
                and (site := self.site(self.stmt, target.value, held)) is not None
            ):
                self.emit(AttributeSet(target.attr, **site))
            if base is not None and base_key is not None and env is not None:
                if (
                    base.kind in (Kind.TENSOR, Kind.UNKNOWN)
                    and target.attr == "requires_grad"
                    and _is_true(value)
                ):
                    # It did not raise, so it is a leaf, and now it requires grad. Of a value
                    # not known yet, setting the flag is what one does to a tensor: it is one.
                    forced = forced_leaf(base, self._setattr_forcing(target))
                    env[base_key] = evolve(forced, origin=base.origin)
                elif base.kind is Kind.TENSOR and target.attr in ("requires_grad", "data"):
                    env[base_key] = evolve(UNKNOWN, kind=Kind.TENSOR, origin=base.origin)
            if key is not None:
                self.bind_key(key, value)
            elif not evaluated:
                self.eval(target.value)
        elif isinstance(target, ast.Tuple | ast.List):
            self._bind_sequence(target.elts, value)
        elif isinstance(target, ast.Subscript):
            base_key = dotted(target.value)
            self._subscript_store(target, self.stmt)
            if base_key is not None and self.env is not None and base_key in self.env:
                base = self.env[base_key]
                carries = base.carries | value.all_carries()
                if base.has_history and self.mode.enabled is True:
                    # Writing into a tensor with history keeps its history (CopySlices),
                    # and adds the written tensor's.
                    graph = base.graph | (value.graph if value.kind is Kind.TENSOR else frozenset())
                    mutated = Value(Grad.TRACKED, Kind.TENSOR, carries=carries, graph=graph)
                elif base.kind is Kind.TENSOR and base.leaf and base.grad is Grad.TRACKED:
                    # Into a leaf that requires grad: raises with grad on, changes only the
                    # data under no_grad; either way it is still that leaf (GG301 facts).
                    mutated = base
                elif (
                    base.kind is Kind.TENSOR
                    and not (base.leaf and base.grad is not Grad.UNTRACKED)
                    and value.kind is Kind.TENSOR
                    and value.has_history
                    and self.mode.enabled is True
                ):
                    # `values[step] = value` into a plain buffer: the buffer now has the
                    # stored value's history (CopySlices) and keeps its graph alive.
                    graph = base.graph | value.graph
                    mutated = Value(Grad.TRACKED, Kind.TENSOR, carries=carries, graph=graph)
                elif (
                    base.kind is Kind.TENSOR
                    and base.grad is Grad.UNTRACKED
                    and value.grad is Grad.UNTRACKED
                    and value.kind in (Kind.SCALAR, Kind.TENSOR)
                ):
                    # A number or a tensor without history written into a tensor without
                    # history (`pred[pred == k] = 0`): it still has none, for its reason.
                    mutated = evolve(base, carries=carries)
                elif base.kind is Kind.OTHER and base.integer_dtype:
                    # An item stored into an integer numpy array is cast to its dtype.
                    mutated = evolve(base, carries=carries)
                elif (placed := with_element(base, target.slice, value)) is not None:
                    # `outs[0] = out` into a list of known elements (`list_parts`).
                    mutated = placed
                elif (keyed := with_field(base, target.slice, value)) is not None:
                    # `losses["total"] = loss` into a dict whose keys are known.
                    mutated = keyed
                elif (held := with_item(base, value)) is not None:
                    # `cache[key] = emb` into a dict: every value is at most what it stored.
                    mutated = held
                else:
                    # A tensor written into keeps the history it had (CopySlices on top).
                    graph = base.graph if base.kind is Kind.TENSOR else frozenset()
                    mutated = evolve(UNKNOWN, kind=base.kind, carries=carries, graph=graph)
                self.env[base_key] = mutated
        elif isinstance(target, ast.Starred):
            self.bind(target.value, UNKNOWN)

    def _subscript_store(self, target: ast.Subscript, stmt: ast.AST | None) -> None:
        """`x[i] = v` / `x[i] += v` writes into `x` in place."""
        self.eval(target.slice)
        base_key = dotted(target.value)
        if self.env is None:
            return
        if base_key is not None and base_key in self.env:
            base = self.env[base_key]
        elif isinstance(target.value, ast.Attribute | ast.Subscript) and is_access_path(
            target.value
        ):
            # `conv.weight[...] = w`: the layer's weight; `model.blocks[i].fc.weight[:, j]
            # += v`: the weight of a layer reached through a module list.
            base = self.eval(target.value)
        else:
            return
        if base.kind is Kind.TENSOR and stmt is not None:
            if (site := self.site(stmt, target.value, base)) is not None:
                self.emit(InPlaceChange("setitem", **site))
            self.modified_in_place(stmt, target.value, base)
        if base_key is not None:
            self.env[base_key] = activations.module_cleared(activations.cleared(base))

    def _setattr_forcing(self, target: ast.Attribute) -> tuple[ast.AST, ast.stmt, ast.expr] | None:
        """`x.requires_grad = True` written as a statement of its own (one target, the
        literal True): the forcing (the statement), its statement and the forced tensor."""
        stmt = self.stmt
        if (
            isinstance(stmt, ast.Assign)
            and stmt.targets == [target]
            and isinstance(stmt.value, ast.Constant)
            and stmt.value.value is True
        ):
            return stmt, stmt, target.value
        return None

    def _bind_sequence(self, targets: list[ast.expr], value: Value) -> None:
        has_star = any(isinstance(t, ast.Starred) for t in targets)
        if (
            value.elements is not None
            and value.kind is not Kind.MAPPING  # unpacking a dict gives its keys
            and len(value.elements) == len(targets)
            and not has_star
        ):
            for target, element in zip(targets, value.elements, strict=True):
                self.bind(target, element)
            return
        if value.kind is Kind.TENSOR:
            element = evolve(value, elements=None, leaf=False, shape=shapes.UNKNOWN_SHAPE)
        elif value.kind is Kind.SEQUENCE and value.items is not None and not has_star:
            # `q, k, v = qkv.chunk(3, -1)`: each target is one of the items.
            element = evolve(value.items, carries=value.all_carries() | value.items.carries)
        else:
            # (An unpacked batch, `x, y = batch`, is batch data.)
            element = evolve(UNKNOWN, carries=value.all_carries(), batch=value.batch)
        for target in targets:
            self.bind(target, element)

    def grad_mode_of(self, expr: ast.expr, owner: ast.AST) -> GradMode | None:
        """The grad mode a context manager or decorator expression switches to, if any."""
        call = expr if isinstance(expr, ast.Call) else None
        qualified = self.scope.resolve(call.func if call else expr)
        if qualified is None:
            return None
        if qualified in api.NO_GRAD and call is not None:
            return GradMode(False, GradOff(expr, "torch.no_grad()", owner))
        if (
            qualified in api.NO_GRAD
            and call is None
            and isinstance(owner, ast.FunctionDef | ast.AsyncFunctionDef)
        ):
            return GradMode(False, GradOff(expr, "torch.no_grad", owner))
        if qualified in api.INFERENCE_MODE:
            flag = self._flag_argument(call, "mode") if call else True
            if flag is False:
                return GRAD_ON if self.mode.enabled else self.mode
            if flag is None:
                return GRAD_UNKNOWN
            return GradMode(False, GradOff(expr, "torch.inference_mode()", owner, inference=True))
        if qualified in api.ENABLE_GRAD:
            return GRAD_ON
        if qualified in api.SET_GRAD_ENABLED and call is not None:
            flag = self._flag_argument(call, "mode")
            if flag is None:
                test = call.args[0] if call.args and not call.keywords else None
                condition = narrowing.condition_of(test) if test is not None else None
                if condition is None:
                    return GRAD_UNKNOWN
                text = ast.unparse(test)  # type: ignore[arg-type]
                described = f"torch.set_grad_enabled({text}) with `{text}` false"
                off = GradOff(expr, described, owner, conditional=True)
                return GradMode(None, None, condition, off)
            if flag:
                return GRAD_ON
            return GradMode(False, GradOff(expr, "torch.set_grad_enabled(False)", owner))
        return None

    def _flag_argument(self, call: ast.Call | None, keyword: str) -> bool | None:
        if call is None:
            return None
        arg: ast.expr | None = call.args[0] if call.args else None
        for kw in call.keywords:
            if kw.arg == keyword:
                arg = kw.value
        if arg is None:
            return True
        value = self.eval(arg)
        return value.const if isinstance(value.const, bool) else None

    def eval(self, expr: ast.expr) -> Value:
        """The abstract value of an expression (evaluating nested calls for their effects)."""
        handler = self.expr_handlers.get(type(expr))
        if handler is not None:
            result: Value = handler(self, expr)
            return result
        for child in ast.iter_child_nodes(expr):
            if isinstance(child, ast.expr) and not isinstance(
                expr, ast.Lambda | ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp
            ):
                self.eval(child)
        return UNKNOWN

    def _expr_Constant(self, expr: ast.Constant) -> Value:
        return literal(expr)

    def _expr_JoinedStr(self, expr: ast.JoinedStr) -> Value:
        for value in expr.values:
            self.eval(value)
        return Value(grad=Grad.UNTRACKED, kind=Kind.OTHER)

    def _expr_FormattedValue(self, expr: ast.FormattedValue) -> Value:
        self.eval(expr.value)
        return Value(grad=Grad.UNTRACKED, kind=Kind.OTHER)

    def _expr_Name(self, expr: ast.Name) -> Value:
        if self._names_dtype(expr):
            return dtype_value(expr)  # `float32` imported from torch (and bound only so)
        constant = self._math_constant(expr)
        return constant if constant is not None else self.lookup(expr.id, expr)

    def _math_constant(self, expr: ast.Name | ast.Attribute) -> Value | None:
        """`math.pi`, `math.e` (or `pi` imported from math): a Python float."""
        qualified = self.scope.resolve(expr)
        if qualified not in api.MATH_CONSTANTS:
            return None
        loss = Loss(LossKind.LITERAL, expr, "a constant")
        return Value(grad=Grad.UNTRACKED, kind=Kind.SCALAR, loss=loss)

    def _names_dtype(self, expr: ast.Name | ast.Attribute) -> bool:
        """`expr` is a torch dtype (`torch.float32`, `torch.long`) or `torch.device`."""
        return self.scope.resolve(expr) in api.NOT_TENSOR_NAMES

    def _expr_Attribute(self, expr: ast.Attribute) -> Value:
        key = dotted(expr)
        if key is not None and self.env is not None and key in self.env:
            if expr.attr == "grad":
                self._record_bound_grad(expr)
            return self.lookup(key, expr)
        if self._names_dtype(expr):
            return dtype_value(expr)
        constant = self._math_constant(expr)
        if constant is not None:
            return constant
        base = self.eval(expr.value)
        if base.unless_none is not None and not hasattr(None, expr.attr):
            # None or a kept tensor: reading what None lacks (`.grad`) raises on None, so
            # the read that goes on reads the tensor.
            base = evolve(base.unless_none, carries=base.carries, graph=base.graph)
        if (
            base.kind in (Kind.SEQUENCE, Kind.MAPPING, Kind.INSTANCE)
            and base.fields is not None
            and base.elements is not None
            and expr.attr in base.fields
        ):
            return base.elements[base.fields.index(expr.attr)]
        info = base.local_class
        if info is not None and expr.attr in info.attributes and base.kind is not Kind.CLASS:
            return through_instance(info.attributes[expr.attr], dotted(expr.value))
        if info is not None and expr.attr in info.constants:
            return info.constants[expr.attr]
        setting = self._layer_setting(base, expr.attr)
        if setting is not None:
            return setting
        if (
            expr.attr == "num_batches_tracked"
            and base.kind is Kind.MODULE
            and base.module is not None
            and base.module.integer_buffer
            and base.module.qualified is not None
            and base.module.qualified.rsplit(".", 1)[-1] in api.COUNTING_NORMS
            and counter_kept(self.function or self.module.tree, expr.value)
        ):
            # The int64 counter of a BatchNorm layer (see `ModuleRef.integer_buffer`).
            return Value(Grad.UNTRACKED, Kind.TENSOR, leaf=True, integer_dtype=True)
        if (
            expr.attr == "weight"
            or (expr.attr == "bias" and base.module is not None and base.module.has_bias)
        ) and self._owns_weight(dotted(expr.value), base, expr):
            # `layer.weight` (or the `bias` it was built with) of a torch.nn layer built
            # here: a leaf parameter that requires grad (unless the file may change
            # requires_grad somewhere).
            return Value(Grad.TRACKED, Kind.TENSOR, leaf=True)
        if key is not None and key.startswith("self.") and key.count(".") == 1:
            # State left by an earlier call: tag it, so a caller can tell whether it reaches
            # what this method returns or stores (a `.detach()` drops the tag).
            tag = self.state_read(expr.attr, expr)
            running = (self.function, self.self_appends, expr)
            items = (
                self.module.appended_items(info, expr.attr, running) if info is not None else None
            )
            if items is not None:
                # A list only ever grown by appends: it holds at most what they append.
                return Value(kind=Kind.SEQUENCE, items=items, carries=frozenset({tag}))
            graph = self.state_graph(expr.attr)
            computed = info.computed.get(expr.attr) if info is not None else None
            if computed is not None:
                # A tensor another method computed (`self.fake = self.netG(x)` in forward).
                return evolve(computed, carries=frozenset({tag}), graph=graph)
            return Value(carries=frozenset({tag}), graph=graph)
        if info is not None and base.kind in (Kind.INSTANCE, Kind.MODULE):
            if expr.attr in info.computed:
                return info.computed[expr.attr]
            # The same list read through an instance (`buf.values` of a rollout buffer).
            items = self.module.appended_items(info, expr.attr)
            if items is not None:
                return Value(kind=Kind.SEQUENCE, items=items, carries=base.all_carries())
        if base.kind is Kind.TENSOR:
            if expr.attr == "grad" and (site := self.site(expr, expr.value, base)) is not None:
                self.emit(GradRead(False, **site))
            if expr.attr == "data":
                return Value(
                    Grad.UNTRACKED, Kind.TENSOR, Loss(LossKind.DETACH, expr, ".data"), leaf=True
                )
            if expr.attr in api.TENSOR_VIEWS:
                return self.view_op(expr, base, view=True)
            if expr.attr == "shape":
                return sizes_value(base.shape)  # a torch.Size: a tuple of ints
            return Value(kind=Kind.OTHER if expr.attr in ("dtype", "device") else Kind.UNKNOWN)
        return UNKNOWN

    def _layer_setting(self, base: Value, attr: str) -> Value | None:
        """A hyperparameter a torch.nn layer keeps (`embed.embedding_dim`, `conv.kernel_size`,
        see `torch_api.LAYER_ATTRIBUTES`): a Python int (or tuple of ints, `p` a float), never
        a tensor; the number itself when the layer was built with it. None for anything else,
        and when the file may store that attribute name on some object (then it may not be
        the layer's own)."""
        module = base.module
        if base.kind is not Kind.MODULE or module is None or module.local is not None:
            return None
        qualified = module.qualified or ""
        name = qualified.rsplit(".", 1)[-1]
        if not qualified.startswith("torch.nn.") or self.module.syntax.may_store_attribute(attr):
            return None
        if attr in api.LAYER_SIZE_ATTRIBUTES.get(name, ()):
            return SIZES
        if attr not in api.LAYER_ATTRIBUTES.get(name, {}):
            return None
        return Value(grad=Grad.UNTRACKED, kind=Kind.SCALAR, const=dict(module.settings).get(attr))

    def _record_bound_grad(self, expr: ast.Attribute) -> None:
        """A read of `x.grad` after `x.grad = ...` on some path (or joined from a loop's
        later iterations): recorded as a bound `GradRead`, for rules that check the path."""
        base_key = dotted(expr.value)
        base = self.env.get(base_key) if self.env is not None and base_key else None
        if (
            base is not None
            and base.kind is Kind.TENSOR
            and (site := self.site(expr, expr.value, base)) is not None
        ):
            self.emit(GradRead(True, **site))

    def _expr_NamedExpr(self, expr: ast.NamedExpr) -> Value:
        value = self.eval(expr.value)
        self.bind(expr.target, value)
        return value

    def _expr_Tuple(self, expr: ast.Tuple | ast.List) -> Value:
        elements = [self.eval(e) for e in expr.elts]
        if any(isinstance(e, ast.Starred) for e in expr.elts):
            return Value(
                kind=Kind.UNKNOWN, carries=frozenset().union(*(e.all_carries() for e in elements))
            )
        return Value(grad=Grad.UNKNOWN, kind=Kind.SEQUENCE, elements=tuple(elements))

    _expr_List = _expr_Tuple

    def _expr_Dict(self, expr: ast.Dict) -> Value:
        """`{"loss": loss, "logits": out}`: a mapping whose string keys are known;
        `{**DEFAULTS, **kwargs, "lr": lr}` of dicts whose every key is known merges them
        (`mappings.merged`: later keys win)."""
        values = [self.eval(value) for value in expr.values]
        parts: list[Value] = []
        for key, value in zip(expr.keys, values, strict=True):
            if key is None:
                parts.append(value)
            elif isinstance(key, ast.Constant) and isinstance(key.value, str):
                parts.append(mapping_of([(key.value, value)]))
            else:
                parts = []
                break
        spelled = [k.value for k in expr.keys if isinstance(k, ast.Constant)]
        joined = merged(parts) if len(parts) == len(values) else None
        if joined is None or len(set(spelled)) != len(spelled):
            for key_expr in expr.keys:
                if key_expr is not None and not isinstance(key_expr, ast.Constant):
                    self.eval(key_expr)
            carries = frozenset().union(*(v.all_carries() for v in values))
            return Value(kind=Kind.OTHER, carries=carries)
        return joined

    def _expr_ListComp(self, expr: ast.ListComp | ast.GeneratorExp | ast.SetComp) -> Value:
        """`[f(x) for x in xs]`: a list whose every element is what `f(x)` gives (the
        comprehension's own names do not leak)."""
        if self.env is None:
            return UNKNOWN
        outer = self.env
        self.env = dict(outer)
        try:
            for index, generator in enumerate(expr.generators):
                iterated = self.eval(generator.iter)
                if index == 0:
                    by_element = self._comprehension_by_element(expr, iterated)
                    if by_element is not None:
                        return by_element
                self.bind(generator.target, element_of(iterated))
                for condition in generator.ifs:
                    self.eval(condition)
            item = self.eval(expr.elt) if self.env is not None else UNKNOWN
        finally:
            self.env = outer
        if isinstance(expr, ast.SetComp):
            return Value(kind=Kind.OTHER, carries=item.all_carries())
        return items_list(item, expr.elt)

    def _comprehension_by_element(
        self, expr: ast.ListComp | ast.GeneratorExp | ast.SetComp, source: Value
    ) -> Value | None:
        """`[x.detach().clone() for x in (ids, embeds)]`, `(w[k] * v for k, v in
        losses.items() if k in w)`: a list comprehension or generator expression over a list,
        tuple or dict view whose few elements are known is run as Python runs it, once per
        element in order, and gives one element per element it keeps (`[f(a), f(b)]`), so an
        integer element stays integer and `sum(...)` adds each. A condition known for an
        element keeps or drops it; when one is not known, the result is a list whose every
        item is at most what the elements not certainly dropped give. Its own names do not
        leak. None for any other comprehension (evaluated for what its elements have in
        common). `source` is what its iterable evaluated to."""
        if isinstance(expr, ast.SetComp) or len(expr.generators) != 1:
            return None
        generator = expr.generators[0]
        target = generator.target
        if generator.is_async or not isinstance(target, ast.Name | ast.Tuple):
            return None
        elements = source.elements
        if source.kind is not Kind.SEQUENCE or source.fields is not None or not elements:
            return None
        if len(elements) > _ELEMENTS_BY_ELEMENT or self.env is None:
            return None
        names = [node.id for node in ast.walk(target) if isinstance(node, ast.Name)]
        before = {name: self.env.get(name) for name in names}
        results: list[Value] = []
        certain = True
        for element in elements:
            if self.env is None:
                return UNKNOWN  # an element certainly raised
            self.bind(target, element.with_origin(None))
            kept = self._kept(generator.ifs)
            if kept is not False and self.env is not None:
                results.append(self.eval(expr.elt).with_origin(None))
            certain = certain and kept is not None
        if self.env is not None:
            for name, value in before.items():
                if value is None:
                    self.env.pop(name, None)
                else:
                    self.env[name] = value
        if not certain:
            items = reduce(join, results).with_origin(None) if results else None
            return Value(kind=Kind.SEQUENCE, items=items)
        return Value(grad=Grad.UNKNOWN, kind=Kind.SEQUENCE, elements=tuple(results))

    def _kept(self, conditions: list[ast.expr]) -> bool | None:
        """Whether a comprehension keeps the element bound now: every condition evaluated
        (until one is certainly false); None when one is not known."""
        kept: bool | None = True
        for condition in conditions:
            if self.env is None:
                return None
            test = self.eval(condition)
            if test.kind is Kind.SCALAR and isinstance(test.const, bool):
                if not test.const:
                    return False
            else:
                kept = None
        return kept

    _expr_GeneratorExp = _expr_ListComp

    _expr_SetComp = _expr_ListComp

    def _expr_DictComp(self, expr: ast.DictComp) -> Value:
        """`{k: float(v) for k, v in losses.items()}`: a mapping whose every value is what
        the value expression gives (its keys are not known)."""
        if self.env is None:
            return UNKNOWN
        outer = self.env
        self.env = dict(outer)
        try:
            for generator in expr.generators:
                self.bind(generator.target, element_of(self.eval(generator.iter)))
                for condition in generator.ifs:
                    self.eval(condition)
            if self.env is None:
                return UNKNOWN
            self.eval(expr.key)
            item = self.eval(expr.value) if self.env is not None else UNKNOWN
        finally:
            self.env = outer
        item = own_items(item, expr.value).item  # each value has its own graph
        return Value(kind=Kind.MAPPING, items=item.with_origin(None))

    def _expr_IfExp(self, expr: ast.IfExp) -> Value:
        test = self.eval(expr.test)
        if test.kind is Kind.SCALAR and isinstance(test.const, bool):
            # A certain test (`(out, f) if get_feature else out` run with `get_feature=True`):
            # only the branch it takes is evaluated, as for an `if` statement.
            return self.eval(expr.body if test.const else expr.orelse)
        return join(self.eval(expr.body), self.eval(expr.orelse))

    def _expr_BoolOp(self, expr: ast.BoolOp) -> Value:
        values = [self.eval(v) for v in expr.values]
        result = values[0]
        for value in values[1:]:
            result = join(result, value)
        return result

    def _expr_Compare(self, expr: ast.Compare) -> Value:
        values = [self.eval(value) for value in (expr.left, *expr.comparators)]
        if len(expr.ops) == 1 and isinstance(expr.ops[0], ast.Is | ast.IsNot):
            # Identity is never overloaded: a Python bool, known against None when the
            # other side certainly is (or certainly is not) None.
            return Value(
                grad=Grad.UNTRACKED, kind=Kind.SCALAR, const=_identity_to_none(expr, values)
            )
        if any(v.kind is Kind.TENSOR for v in values):
            result = self.non_differentiable(expr, "a comparison")
            if len(values) == 2:  # elementwise: the operands broadcast
                result = evolve(result, shape=shapes.broadcast([shape_of(v) for v in values]))
            return result
        folded = _folded_equality(expr, values)
        if folded is None:
            folded = _folded_membership(expr, values)
        if folded is not None:
            return Value(grad=Grad.UNTRACKED, kind=Kind.SCALAR, const=folded)
        return UNKNOWN

    def non_differentiable(self, node: ast.AST, description: str) -> Value:
        """The result of an op autograd cannot differentiate (argmax, comparisons, integer
        casts): a tensor that never requires grad."""
        return Value(
            Grad.UNTRACKED, Kind.TENSOR, Loss(LossKind.NON_DIFFERENTIABLE, node, description)
        )

    def _expr_BinOp(self, expr: ast.BinOp) -> Value:
        operands = [self.eval(expr.left), self.eval(expr.right)]
        if isinstance(expr.op, ast.Mult | ast.Div | ast.MatMult):
            self.note_saved_operands(
                expr, type(expr.op).__name__, [expr.left, expr.right], operands
            )
        if isinstance(expr.op, ast.Add):
            self._note_rebound_total(expr, operands)
        result = self.inference_result(self.arithmetic(expr, operands))
        saves = graphs.binary_saves(expr.op)
        if saves is None or result.grad is not Grad.TRACKED:
            return result
        return self.saving_op(expr, result, saves, operands, [expr.left, expr.right])

    def _note_rebound_total(self, expr: ast.BinOp, operands: list[Value]) -> None:
        """`total = total + loss` (or `loss + total`): the assignment spelling of `total +=
        loss`, recorded as the same accumulation of the added tensor into the total (`node`
        is the addition, the total the operand named like the target)."""
        stmt = self.stmt
        if not (isinstance(stmt, ast.Assign) and stmt.value is expr and len(stmt.targets) == 1):
            return
        target = stmt.targets[0]
        key = dotted(target) if isinstance(target, ast.Name | ast.Attribute) else None
        if key is None:
            return
        for index, operand in enumerate((expr.left, expr.right)):
            added = operands[1 - index]
            if dotted(operand) != key or added.kind is not Kind.TENSOR:
                continue
            if (site := self.site(expr, target, operands[index])) is not None:
                self.emit(Accumulation(added, **site))
            return

    def _expr_UnaryOp(self, expr: ast.UnaryOp) -> Value:
        operand = self.eval(expr.operand)
        if isinstance(expr.op, ast.Not):
            return Value(grad=Grad.UNTRACKED, kind=Kind.SCALAR)
        result = self.arithmetic(expr, [operand])
        number = operand.const
        # `-2`: a known number too (`-True` is the int -1, not a bool: left unknown).
        if isinstance(expr.op, ast.USub) and type(number) in (int, float):
            assert isinstance(number, int | float)
            result = evolve(result, const=-number)
        # `+x` returns x itself; `-x` allocates.
        return self.inference_result(result) if isinstance(expr.op, ast.USub) else result

    def _item_at(self, expr: ast.Subscript, base: Value) -> Value | None:
        """`outs[1]` of a list whose items are each computed afresh (see `item_graphs`), by
        a literal index, when no code of the file may change the list held by that name
        (then the same index always reads the same item)."""
        position = shapes.known_int(expr.slice, shapes.NO_CONSTANTS)  # `1`, `-1`: a literal
        held = callee_name(expr.value)  # the name, or the attribute's name
        if base.kind is not Kind.SEQUENCE or position is None or held is None:
            return None
        if self.module.container_may_change(expr.value):
            return None
        found = item_at(base, position)
        if found is None:
            return None
        return evolve(found, carries=base.all_carries() | found.all_carries())

    def _expr_Subscript(self, expr: ast.Subscript) -> Value:
        base = self.eval(expr.value)
        index = self.eval(expr.slice)
        if base.elements is not None and isinstance(expr.slice, ast.Constant):
            position = expr.slice.value
            if base.kind is Kind.MAPPING and base.fields is not None:
                if position in base.fields:
                    return _part(base, base.elements[base.fields.index(position)])
                return evolve(UNKNOWN, carries=base.all_carries())
            if isinstance(position, int) and -len(base.elements) <= position < len(base.elements):
                return _part(base, base.elements[position])
        if (
            base.elements is not None
            and base.kind is not Kind.MAPPING
            and isinstance(expr.slice, ast.UnaryOp)
            and (position := shapes.known_int(expr.slice, shapes.NO_CONSTANTS)) is not None
            and -len(base.elements) <= position < 0
        ):
            # `feats[-1]`: a negated literal counts from the end as a literal index does.
            return _part(base, base.elements[position])
        if (
            base.kind is Kind.SEQUENCE
            and base.elements is not None
            and base.fields is None
            and isinstance(expr.slice, ast.Slice)
            and (sliced := sliced_elements(base.elements, expr.slice)) is not None
        ):
            # `outs[1:]` of a list written out: exactly those elements (`list_parts`).
            return Value(
                grad=Grad.UNKNOWN, kind=Kind.SEQUENCE, elements=sliced, carries=base.carries
            )
        if base.kind is Kind.MAPPING and base.elements and not isinstance(expr.slice, ast.Slice):
            # `losses[key]` with a key not known here: one of the values (or a KeyError).
            joined = reduce(join, base.elements)
            return evolve(joined, carries=base.all_carries() | joined.all_carries())
        if base.kind is Kind.TENSOR:
            selected = self.view_op(expr, base, view=_basic_index(expr.slice, index), index=index)
            picked = (
                shapes.taken(base.shape, index.shape)
                if _index_tensor(expr.slice, index)
                else shapes.indexed(base.shape, expr.slice)
            )
            if picked.known and selected.kind is Kind.TENSOR:
                selected = evolve(selected, shape=picked)
            # Indexing only picks values: what an activation made them stays (`probs[mask]`),
            # and so does their dtype.
            return activations.kept(kept_by_indexing(base, selected), base)
        if (
            base.kind is Kind.SEQUENCE
            and base.items is not None
            and isinstance(expr.slice, ast.Slice)
        ):
            # A slice of a list of like items (`x.shape[:2]`) holds such items; not every
            # item's graph (`item_graphs`): only the list as a whole runs through it.
            if base.graph or base.items_saved:
                return evolve(base, graph=frozenset(), items_saved=frozenset())
            return base
        if (
            base.kind in (Kind.SEQUENCE, Kind.MAPPING)
            and base.items is not None
            and not isinstance(expr.slice, ast.Slice)
        ):
            if (positioned := self._item_at(expr, base)) is not None:
                return positioned
            # One item of a list built by appends (`losses[j]`): at most what every item is.
            return evolve(base.items, carries=base.all_carries() | base.items.all_carries())
        if (
            base.kind is Kind.MODULE
            and base.items is not None
            and not isinstance(expr.slice, ast.Slice)
            and callee_name(expr.value) is not None
            and not self.module.container_may_change(expr.value)
        ):
            # `self.layers[i]` of an nn.ModuleList of like modules no code changes.
            return evolve(base.items, carries=base.all_carries())
        if (child := self._held_at(expr, base)) is not None:
            return child
        if base.kind is Kind.AXES:
            return base  # `axs[0, 1]` of a grid of Axes
        if (part := part_of_converted(base)) is not None:
            return part  # `scores.tolist()[i]`: a number without history, for that reason
        # (A part of a batch, `batch[0]` or `batch["label"]`, is batch data.)
        return evolve(UNKNOWN, carries=base.all_carries(), batch=base.batch)

    def _held_at(self, expr: ast.Subscript, base: Value) -> Value | None:
        """`net[0]` of an nn.Sequential or nn.ModuleList built from modules written out,
        that no code of the file changes: the module it holds at that position (`net[-1]`
        counts from the end)."""
        held = base.module.children if base.module is not None else None
        if (
            base.kind is not Kind.MODULE
            or held is None
            or base.module is None
            or base.module.indexing is not Indexing.BY_POSITION
            or callee_name(expr.value) is None
            or self.module.container_may_change(expr.value)
        ):
            return None
        position = shapes.known_int(expr.slice, shapes.NO_CONSTANTS)
        if position is None or not -len(held) <= position < len(held):
            return None
        return evolve(held[position], carries=base.all_carries() | held[position].all_carries())

    def _expr_Starred(self, expr: ast.Starred) -> Value:
        """`*layers` in a call: the unpacked value itself (callers check for Starred)."""
        return self.eval(expr.value)

    def _expr_Await(self, expr: ast.Await) -> Value:
        self.eval(expr.value)
        return UNKNOWN

    def arithmetic(self, node: ast.AST, operands: list[Value]) -> Value:
        """Arithmetic on tensors is a differentiable op; on Python numbers it is a number;
        `+` of two lists (or tuples) of known elements is the list of both's elements.

        A number converted from a tensor with history (`adv.item()`), added to anything
        but a number, is a term of the sum that has lost that history: it joins the
        result's inert terms (`Autograd.inert_terms`; GG102 reports it when the sum is
        backpropagated)."""
        result = self._arithmetic(node, operands)
        if isinstance(getattr(node, "op", None), ast.Add | ast.Sub) and result.kind in (
            Kind.TENSOR,
            Kind.UNKNOWN,
        ):
            converted = converted_terms(operands)
            if converted - result.inert_terms:
                result = evolve(result, inert_terms=result.inert_terms | converted)
        return result

    def _arithmetic(self, node: ast.AST, operands: list[Value]) -> Value:
        if (
            isinstance(getattr(node, "op", None), ast.Add)
            and len(operands) == 2
            and all(v.kind is Kind.SEQUENCE and v.elements is not None for v in operands)
        ):
            first, second = operands
            assert first.elements is not None and second.elements is not None
            carries = first.carries | second.carries
            return Value(
                kind=Kind.SEQUENCE, elements=first.elements + second.elements, carries=carries
            )
        if (
            isinstance(node, ast.BinOp)
            and isinstance(node.op, ast.Add)
            and len(operands) == 2
            and all(
                self._certainly_list(e, v)
                for e, v in zip((node.left, node.right), operands, strict=True)
            )
        ):
            joined = concatenated(*operands)
            if joined is not None:
                return joined  # `list(model.parameters()) + [w]` holds `w`
        if (
            isinstance(node, ast.BinOp)
            and isinstance(node.op, ast.Add)
            and len(operands) == 2
            and (items := joined_items(*operands)) is not None
        ):
            return items  # `G_params + D_params`: every item a parameter of one of them
        if isinstance(getattr(node, "op", None), _TENSOR_ONLY_OPERATORS):
            # A value with history of unknown structure (a module's output) that `-`, `/`,
            # `**` or `@` applies to is a tensor: tuples, lists and dicts have none of them.
            operands = [_as_tensor(v) for v in operands]
        if any(v.kind is Kind.TENSOR for v in operands):
            result = self.tensor_op(node, operands)
            op = getattr(node, "op", None)
            if isinstance(op, ast.Add | ast.Sub) and result.grad is Grad.UNKNOWN:
                added = added_inert_terms(operands)
                if added - result.inert_terms:
                    result = evolve(result, inert_terms=result.inert_terms | added)
            elif isinstance(op, _SCALING_OPERATORS) and result.inert_terms:
                kept = _scaled_inert_terms(operands)
                if result.inert_terms - kept:
                    result = evolve(result, inert_terms=result.inert_terms & kept)
            if isinstance(op, ast.operator | ast.unaryop):
                shape = shapes.operator_shape(op, [shape_of(v) for v in operands])
                result = evolve(result, shape=shape)
            if integral_arithmetic(op, operands) and not result.integer_dtype:
                # `torch.arange(n)[None] - torch.arange(n)[:, None]` is int64 too.
                result = evolve(result, integer_dtype=True)
            return result
        if (data := plain_data(operands)) is not None:
            # numbers, or data out of a tensor with history, and numbers
            return _with_folded_number(node, operands, data)
        if all(v.kind is Kind.SCALAR for v in operands):
            losses = [v.loss for v in operands if v.loss is not None]
            reasons = [loss for loss in losses if loss.kind is not LossKind.LITERAL] or losses
            return Value(
                grad=Grad.UNTRACKED, kind=Kind.SCALAR, loss=reasons[0] if reasons else None
            )
        carries = frozenset().union(*(v.all_carries() for v in operands))
        if self.mode.enabled is False and self.mode.off is not None:
            loss = Loss(LossKind.NO_GRAD, node, self.mode.off.description, self.mode.off)
            return Value(grad=Grad.UNTRACKED, kind=Kind.UNKNOWN, loss=loss)
        if all(v.grad is Grad.UNTRACKED for v in operands):
            # Arithmetic on values that certainly do not require grad cannot require grad.
            return combine(operands, result_kind=Kind.UNKNOWN)
        if any(v.batch for v in operands) and all(
            v.batch or v.kind in _PLAIN_KINDS for v in operands
        ):
            return Value(carries=carries, batch=True)  # `y.float() / 255`: batch data
        # An operand with graph nodes is a tensor with that history: so is the result.
        return evolve(
            UNKNOWN, carries=carries, graph=frozenset().union(*(v.graph for v in operands))
        )

    def _certainly_list(self, expr: ast.expr, value: Value) -> bool:
        """`expr` certainly evaluates to a list (not a tuple or a generator, which `+` of a
        list rejects): a list display or comprehension, a call of the builtin `list`, or
        a list concatenation (a value with members, see `list_members`)."""
        if isinstance(expr, ast.List | ast.ListComp) or value.members:
            return True
        return (
            isinstance(expr, ast.Call)
            and isinstance(expr.func, ast.Name)
            and expr.func.id == "list"
            and self.unshadowed("list")
        )

    def view_op(
        self, node: ast.AST, base: Value, *, view: bool | None, index: Value | None = None
    ) -> Value:
        """An op that returns a view of `base` (`view`: certainly, None: perhaps, False: a
        copy). With gradient recording off, a view of a tensor that requires grad still
        requires grad, as a leaf without grad_fn (checked against torch 2.13.0:
        `with torch.no_grad(): row = emb.weight[3]` requires grad, so `row.numpy()` raises
        and `row.sum().backward()` runs); a copy does not."""
        # An index adds no history: integers, slices, masks and integer tensors cannot
        # require grad (only the loop-carried values it depends on are kept).
        inputs = [base]
        if index is not None:
            inputs.append(Value(grad=Grad.UNTRACKED, kind=Kind.OTHER, carries=index.all_carries()))
        if self.mode.enabled is not False or base.grad is Grad.UNTRACKED or view is False:
            result = self.tensor_op(node, inputs)
            if view and base.inference:
                # A view of an inference tensor is one too (`features[start:end]`, checked
                # against torch 2.13.0); a copy (`features * 2`, `features[idx]`) is not.
                result = evolve(result, inference=True)
            return self.shares_version(base, result) if view else result
        if view and base.grad is Grad.TRACKED:
            return Value(grad=Grad.TRACKED, kind=Kind.TENSOR, leaf=True)
        return Value(kind=Kind.TENSOR)

    def tensor_op(self, node: ast.AST, inputs: list[Value], kind: Kind = Kind.TENSOR) -> Value:
        """A differentiable torch operation under the current grad mode."""
        if self.mode.enabled is False and self.mode.off is not None:
            loss = Loss(LossKind.NO_GRAD, node, self.mode.off.description, self.mode.off)
            return Value(grad=Grad.UNTRACKED, kind=kind, loss=loss)
        result = combine(inputs, result_kind=kind)
        if self.mode.enabled is None:
            unless = None
            if self.mode.condition is not None and self.mode.condition_off is not None:
                off = self.mode.condition_off
                loss = Loss(LossKind.NO_GRAD, node, off.description, off)
                unless = ConditionalLoss(self.mode.condition, loss)
            return evolve(result, grad=Grad.UNKNOWN, loss=None, graph=frozenset(), unless=unless)
        return result


def _with_folded_number(node: ast.AST, operands: list[Value], result: Value) -> Value:
    """`result`, the number `node` computes, with its value when both operands are known
    numbers (`max_value // n_bins`: see `number_arithmetic`)."""
    if result.kind is not Kind.SCALAR or not isinstance(node, ast.BinOp) or len(operands) != 2:
        return result
    number = folded(node.op, operands[0].const, operands[1].const)
    return result if number is None else evolve(result, const=number)


def converted_terms(operands: list[Value]) -> frozenset[Loss]:
    """The conversions of tensors with history among `operands` (`l1 + adv.item()`): plain
    numbers or arrays that were a loss or an output a moment before."""
    return frozenset(
        loss
        for v in operands
        if v.kind in (Kind.SCALAR, Kind.OTHER) and (loss := converted_from_history(v)) is not None
    )


def _is_true(value: Value) -> bool:
    """The literal `True` (a flag set on a tensor)."""
    return value.const is True and value.kind is Kind.SCALAR


# The most elements of a list a comprehension is evaluated for one by one.
_ELEMENTS_BY_ELEMENT = 8

# A tensor's sizes (`x.shape`, `x.size()`): a tuple of Python ints.
SIZES = Value(kind=Kind.SEQUENCE, items=Value(grad=Grad.UNTRACKED, kind=Kind.SCALAR))


def size_value(size: int | None) -> Value:
    """One size of a tensor: a Python int, the number itself when known."""
    return Value(grad=Grad.UNTRACKED, kind=Kind.SCALAR, const=size)


def sizes_value(shape: shapes.Shape) -> Value:
    """`x.shape` / `x.size()` of a tensor of `shape`: a tuple of its sizes when its rank is
    known (`b, n, _ = pts.shape` binds each; see `shapes.sizes_of`), else `SIZES`."""
    known = shapes.sizes_of(shape)
    if known is None:
        return SIZES
    return Value(kind=Kind.SEQUENCE, elements=tuple(size_value(size) for size in known))


# Operators no container of tensors supports (`+` and `*` concatenate and repeat lists).
_TENSOR_ONLY_OPERATORS = (ast.Sub, ast.Div, ast.FloorDiv, ast.Pow, ast.MatMult, ast.USub)
# Operators whose operands are factors of the result, not terms of a sum.
_SCALING_OPERATORS = (ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow, ast.MatMult)


def _scaled_inert_terms(operands: list[Value]) -> frozenset[Loss]:
    """The inert terms a product of `operands` still holds: those of a factor whose every
    other factor has no history (`lr * g`, `2 * (cost + g)`). Times a factor that requires
    grad (`rate * g` with a learnable `rate`), the term trains that factor: not inert."""
    kept: frozenset[Loss] = frozenset()
    for index, operand in enumerate(operands):
        others = operands[:index] + operands[index + 1 :]
        if all(other.grad is not Grad.TRACKED for other in others):
            kept |= added_inert_terms([operand])
    return kept


def _as_tensor(value: Value) -> Value:
    """A value with history whose structure is not known, taken for the tensor it is."""
    if value.kind is Kind.UNKNOWN and value.grad is Grad.TRACKED:
        return evolve(value, kind=Kind.TENSOR)
    return value


def _tensor_here(value: Value) -> bool:
    """A tensor, or what the first iteration of a loop binds joined with the tensor the
    previous iteration left (`image = image.clone()` of an unknown, then `image = image + r`
    at the end of the loop body)."""
    if value.kind is Kind.TENSOR:
        return True
    return value.kind is Kind.UNKNOWN and any(
        carry.loop is not None and carry.value.kind is Kind.TENSOR for carry in value.carries
    )


def _basic_index(index: ast.expr, value: Value) -> bool | None:
    """Whether `t[index]` is basic indexing, which returns a view (ints, slices, None,
    `...`, and tuples of them): True; advanced indexing with a tensor or a list, which
    copies: False; None when not known."""
    if isinstance(index, ast.Tuple):
        parts = [_basic_index(element, UNKNOWN) for element in index.elts]
        if all(part is True for part in parts):
            return True
        return False if False in parts else None
    if isinstance(index, ast.Slice):
        return True
    if isinstance(index, ast.Constant):
        constant = index.value
        return constant is None or constant is Ellipsis or type(constant) is int
    if isinstance(index, ast.UnaryOp) and isinstance(index.op, ast.USub):
        return _basic_index(index.operand, UNKNOWN)
    if isinstance(index, ast.List | ast.ListComp) or value.kind in (Kind.TENSOR, Kind.SEQUENCE):
        return False
    if value.kind is Kind.SCALAR and type(value.const) is int:
        return True
    return None


def _part(container: Value, element: Value) -> Value:
    """An element read from a container: carried from an earlier iteration whenever the
    container is (`state["h"]` of a `state` dict rebuilt at the end of every iteration)."""
    if container.carries <= element.carries:
        return element
    return evolve(element, carries=element.carries | container.carries)


def _folded_equality(expr: ast.Compare, values: list[Value]) -> bool | None:
    """`phase == "train"` of two known literals (a class constant, a flag, a string or a
    number), `cfg["weight"] > 0` of two known numbers: the comparison's bool; None for
    anything else."""
    if len(expr.ops) != 1:
        return None
    left, right = values
    if not (_literal_const(left) and _literal_const(right)):
        return None
    op = expr.ops[0]
    if isinstance(op, ast.Eq | ast.NotEq):
        equal = bool(left.const == right.const)
        return equal if isinstance(op, ast.Eq) else not equal
    order = _ORDERINGS.get(type(op))
    numbers = (int, float, bool)
    if order is None or type(left.const) not in numbers or type(right.const) not in numbers:
        return None
    return order(left.const, right.const)


# Orderings folded between two known numbers.
_ORDERINGS: dict[type, Callable[[Any, Any], bool]] = {
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
}


def _folded_membership(expr: ast.Compare, values: list[Value]) -> bool | None:
    """`"spec" in weights` / `"spec" not in weights` of a known string and a dict whose
    every key is known (string keys written out or stored): the comparison's bool; None
    for anything else (a list, a dict with some unknown key)."""
    if len(expr.ops) != 1 or not isinstance(expr.ops[0], ast.In | ast.NotIn):
        return None
    key, mapping = values
    if not (isinstance(key.const, str) and key.kind in (Kind.SCALAR, Kind.OTHER)):
        return None
    if mapping.kind is not Kind.MAPPING or mapping.fields is None or mapping.items is not None:
        return None
    if mapping.elements is None:
        return None
    found = key.const in mapping.fields
    return found if isinstance(expr.ops[0], ast.In) else not found


# Kinds of value that are certainly not None (`OTHER` may be: an unknown library's result).
_NEVER_NONE = frozenset(
    [
        Kind.TENSOR,
        Kind.SCALAR,
        Kind.SEQUENCE,
        Kind.MODULE,
        Kind.FUNCTION,
        Kind.CLASS,
        Kind.INSTANCE,
        Kind.MAPPING,
        Kind.AXES,
    ]
)


def _identity_to_none(expr: ast.Compare, values: list[Value]) -> bool | None:
    """`x is None` / `x is not None` when `x` certainly is None or certainly is not (a
    tensor, a number, a module...): the comparison's bool; None when unknown."""
    left, right = values
    if left.kind is Kind.NONE:
        left, right = right, left
    if right.kind is not Kind.NONE:
        return None
    if left.kind is Kind.NONE:
        same = True
    elif left.kind in _NEVER_NONE:
        same = False
    else:
        return None
    return same if isinstance(expr.ops[0], ast.Is) else not same


def _literal_const(value: Value) -> bool:
    return value.kind in (Kind.SCALAR, Kind.OTHER) and type(value.const) in (str, int, float, bool)


def _index_tensor(node: ast.expr, index: Value) -> bool:
    """`x[idx]` with one tensor of dtype int64 or int32 (not a tuple of indices, a slice, a
    bool or uint8 mask): advanced indexing along the first dimension."""
    return (
        not isinstance(node, ast.Tuple | ast.Slice)
        and index.kind is Kind.TENSOR
        and index.index_dtype
    )
