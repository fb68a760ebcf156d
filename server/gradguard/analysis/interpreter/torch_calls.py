"""Calls of torch functions (resolved through the file's imports), tensor methods and
numpy functions applied to tensors."""

from __future__ import annotations

import ast
import dataclasses
from functools import reduce

from gradguard.analysis import (
    activations,
    data_sources,
    distribution_shapes,
    dtypes,
    layer_lists,
    libraries,
    shapes,
)
from gradguard.analysis import graph as graphs
from gradguard.analysis import parameters as params
from gradguard.analysis import torch_api as api
from gradguard.analysis.call_sites import keyword_argument
from gradguard.analysis.checkpoints import reentrant_keyword
from gradguard.analysis.comprehension_counts import comprehension_count, unpacked_count
from gradguard.analysis.events import (
    Accumulation,
    CheckpointInput,
    Conversion,
    InferenceSaved,
    InPlaceChange,
    IntegerGradRequest,
    RequiresGradCall,
    Site,
)
from gradguard.analysis.graph import Saves
from gradguard.analysis.interpreter.expressions import (
    argument_constants,
    dtype_value,
    shape_of,
    size_value,
    sizes_value,
)
from gradguard.analysis.interpreter.module_calls import ModuleCalls, target_held_constant
from gradguard.analysis.mappings import exact_keys
from gradguard.analysis.model import (
    TorchCall,
)
from gradguard.analysis.names import dotted, passed_keyword
from gradguard.analysis.tensor_tests import TENSOR_TESTS, is_tensor, tensor_test
from gradguard.analysis.values import (
    NONE,
    UNKNOWN,
    Grad,
    Indexing,
    Kind,
    LayerClash,
    Loss,
    LossKind,
    ModuleRef,
    ObjectFacts,
    TensorFacts,
    Value,
    combine,
    evolve,
    forced_leaf,
    input_or_result,
    join,
    never_had_history,
)


def _dropout_output(call: ast.Call, qualified: str, args: list[Value], result: Value) -> Value:
    """What `F.dropout(x, p, training)` (one of `api.DROPOUT_RETURNING_INPUT`) gives: `x`
    itself when training is certainly off or `p` certainly 0, `result` (computed from `x`)
    when training is certainly on and `p` certainly non-zero, else either."""
    if isinstance(call.args[0], ast.Starred):
        return result
    returns = _dropout_returns_input(call, qualified, args)
    if returns is True:
        return args[0]  # the same tensor: its history, its leafness, its origin
    if returns is None:
        return input_or_result(args[0], result)
    return result


def _dropout_returns_input(call: ast.Call, qualified: str, args: list[Value]) -> bool | None:
    """True when the dropout `call` certainly returns its input object, False when it
    certainly computes a new tensor, None when not known (a flag or rate not known, or
    arguments unpacked)."""
    if any(isinstance(a, ast.Starred) for a in call.args) or any(
        kw.arg is None for kw in call.keywords
    ):
        return None
    flag, default = api.DROPOUT_RETURNING_INPUT[qualified]
    rate = _given_argument(call, args, 1, "p")
    training = _given_argument(call, args, 2, flag)
    p = api.DEFAULT_DROPOUT_P if rate is None and default is not None else None
    if rate is not None and isinstance(rate.const, int | float) and type(rate.const) is not bool:
        p = float(rate.const)
    on = default if training is None else training.const
    if on is False or p == 0:
        return True
    if on is True and p is not None:
        return False
    return None


def _given_argument(call: ast.Call, args: list[Value], position: int, name: str) -> Value | None:
    """The value `call` passes at `position` or as keyword `name`; None when not passed
    (no argument is unpacked)."""
    if position < len(call.args):
        return args[position] if position < len(args) else UNKNOWN
    return keyword_argument(call, args, name)


def _unpacked_layers(call: ast.Call, args: list[Value]) -> list[Value] | None:
    """`nn.Sequential(*block(...), nn.Linear(...))`: the layers, with each unpacked list
    standing for its items; `nn.Sequential(OrderedDict([...]))`: the dict's values, in
    order, when its keys are known. None when no argument is unpacked (or one cannot be)."""
    if len(call.args) == 1 and not call.keywords and args and exact_keys(args[0]):
        return list(args[0].elements or ())
    if not any(isinstance(a, ast.Starred) for a in call.args) or call.keywords:
        return None
    layers: list[Value] = []
    for expr, value in zip(call.args, args, strict=False):
        if not isinstance(expr, ast.Starred):
            layers.append(value)
        elif value.elements is not None:
            layers.extend(value.elements)
        elif value.items is not None:
            layers.append(value.items)
        else:
            layers.append(UNKNOWN)
    return layers


def _last_keeps_output(call: ast.Call, args: list[Value]) -> bool:
    """`nn.Sequential(..., nn.ReLU())`: its last layer, certainly known (written last, or
    the last element of a list of known elements unpacked last), keeps its own result for
    backward (see `ModuleRef.saves_output`)."""
    if call.keywords or not call.args or len(args) != len(call.args):
        return False
    last = args[-1]
    if isinstance(call.args[-1], ast.Starred) or (len(args) == 1 and exact_keys(last)):
        # Unpacked last, or `nn.Sequential(OrderedDict([...]))`: the last of its values.
        if not last.elements:
            return False
        last = last.elements[-1]
    module = last.module
    if last.kind is not Kind.MODULE or module is None:
        return False
    if module.saves_output:
        return True
    return (
        module.qualified is not None
        and graphs.module_saves(module.qualified, inplace=module.inplace) is Saves.OUTPUT
    )


def _counts_batches(call: ast.Call, last: str) -> bool:
    """`nn.BatchNorm2d(n)` (see `ModuleRef.integer_buffer`): a counting norm whose
    `track_running_stats` is not given or is a literal True; unknown otherwise."""
    if last not in api.COUNTING_NORMS or any(k.arg is None for k in call.keywords):
        return False
    if any(isinstance(a, ast.Starred) for a in call.args):
        return False
    given = passed_keyword(call, "track_running_stats")
    if given is not None:
        return params.is_true(given.value)
    return len(call.args) < 5 or params.is_true(call.args[4])


def _keeps_bias(call: ast.Call, last: str) -> bool:
    """`nn.Linear(4, 2)` (see `ModuleRef.has_bias`): a layer of `BIASED_LAYERS` given no
    argument that may remove its bias, or only a literal True for it."""
    position = api.BIASED_LAYERS.get(last)
    if position is None or any(k.arg is None for k in call.keywords):
        return False
    if any(isinstance(a, ast.Starred) for a in call.args):
        return False
    given = [k.value for k in call.keywords if k.arg in api.BIAS_KEYWORDS]
    given += call.args[position : position + 2]
    return all(params.is_true(value) for value in given)


def _holds_integer_buffer(call: ast.Call, layers: list[Value]) -> bool:
    """An nn.Sequential given, as plain arguments, a layer holding an integer buffer."""
    if call.keywords or any(isinstance(a, ast.Starred) for a in call.args):
        return False
    return any(v.module is not None and v.module.integer_buffer for v in layers)


def _fresh_layers(exprs: list[ast.expr], layers: list[Value]) -> bool:
    """Every layer of an nn.Sequential is built right here and self-contained."""
    return bool(layers) and all(
        params.constructed_here(a) and v.module is not None and v.module.self_contained
        for a, v in zip(exprs, layers, strict=True)
    )


def _sequential_kind(layers: list[Value]) -> api.ModuleKind | None:
    """An `nn.Sequential` of known tensor-to-tensor layers is itself one."""
    has_parameters = certain = False
    known = True
    for layer in layers:
        ref = layer.module
        kind = api.nn_module_kind(ref.qualified) if ref and ref.qualified else None
        if ref is not None and ref.kind is not None:
            kind = ref.kind
        if layer.kind is not Kind.MODULE or kind is None or kind.output != "tensor":
            return None
        has_parameters = has_parameters or kind.has_parameters
        certain = certain or (kind.has_parameters and kind.parameters_known)
        known = known and kind.parameters_known
    if not layers:
        return None
    # One layer certainly owning parameters makes the container own some.
    return api.ModuleKind(has_parameters, "tensor", parameters_known=known or certain)


def _local_steps(call: ast.Call, layers: list[Value]) -> tuple[Value, ...] | None:
    """The layers of `nn.Sequential(Block(8), nn.Linear(8, 1))` when one is a module class of
    this file and every other is a torch.nn layer returning a tensor, not working in place
    unless it is the first (calling the container runs them in order, the first on what the
    container is given, as a call of that layer: `ModuleCalls._steps_output` sees the change
    of its input); None otherwise."""
    if call.keywords or len(layers) != len(call.args) or not layers:
        return None
    local = False
    for index, (expr, layer) in enumerate(zip(call.args, layers, strict=True)):
        ref = layer.module
        if isinstance(expr, ast.Starred) or layer.kind is not Kind.MODULE or ref is None:
            return None
        if ref.local is not None and ref.local.is_module:
            local = True
            continue
        kind = ref.kind or (api.nn_module_kind(ref.qualified) if ref.qualified else None)
        if kind is None or kind.output != "tensor" or ref.steps is not None:
            return None
        if ref.inplace and index > 0:
            return None
    return tuple(layers) if local else None


def _layer_clashes(exprs: list[ast.expr], layers: list[Value]) -> tuple[LayerClash, ...]:
    """The pairs of consecutive layers of `nn.Sequential(*exprs)` where an in-place layer
    changes the output the layer before it keeps for backward."""
    clashes: list[LayerClash] = []
    params_before = False
    for index in range(len(layers) - 1):
        first, second = layers[index].module, layers[index + 1].module
        if first is None or first.qualified is None:
            break  # unknown layers may do anything in between
        saves = graphs.module_saves(first.qualified, inplace=first.inplace)
        if (
            saves is Saves.OUTPUT
            and second is not None
            and second.inplace
            and second.qualified is not None
        ):
            clashes.append(
                LayerClash(exprs[index], exprs[index + 1], second.qualified, params_before)
            )
        kind = first.kind or api.nn_module_kind(first.qualified)
        params_before = params_before or (kind is not None and kind.has_parameters)
    return tuple(clashes)


class TorchCalls(ModuleCalls):
    """What torch functions and tensor methods return and change: leaves, reductions,
    conversions, in-place methods, `nn.Sequential` containers, `torch.autograd.grad`."""

    def numpy_call(self, call: ast.Call, qualified: str) -> Value:
        """`np.mean(losses)`, `np.array(out)`: numpy turns tensors into arrays through
        `Tensor.numpy()`; the result is an array, never a tensor."""
        args = self.arguments(call)
        converts = api.NUMPY_CONVERTS.get(qualified.removeprefix("numpy."))
        if converts is not None and call.args and not isinstance(call.args[0], ast.Starred):
            self._converted(call, call.args[0], args[0], tensors=converts == "tensor")
        data = args[0] if args and call.args else None
        fresh = data is not None and never_had_history(data)
        loss = Loss(LossKind.CONVERSION, call, f"{qualified}()", converted_fresh=fresh)
        if data is not None and data.kind is not Kind.TENSOR and data.loss is not None:
            # `np.abs(out.detach().numpy() - y)`: still the data that conversion made.
            loss = data.loss if _converted(data.loss) else loss
        integer = dtypes.integer_array(qualified, call, self.scope.resolve, args)
        return Value(grad=Grad.UNTRACKED, kind=Kind.OTHER, loss=loss, integer_dtype=integer)

    def plot_call(self, call: ast.Call, evaluated: list[Value] | None = None) -> Value:
        """`plt.plot(steps, losses)`, `ax.imshow(fake[0])`: matplotlib turns each data
        argument into an array through `Tensor.numpy()`."""
        args = evaluated if evaluated is not None else self.arguments(call)
        self._converted_inputs(call, list(zip(call.args, args, strict=False)))
        return UNKNOWN

    def metric_call(self, call: ast.Call) -> Value:
        """`accuracy_score(labels, preds)`: scikit-learn turns each input, positional or named
        (`y_pred=`), into an array through `Tensor.numpy()`; the result is a plain number
        or array."""
        args = self.arguments(call)
        inputs = [*zip(call.args, args, strict=False)]
        named = zip(call.keywords, args[len(call.args) :], strict=False)
        inputs += [(kw.value, value) for kw, value in named if kw.arg in libraries.METRIC_INPUTS]
        self._converted_inputs(call, inputs)
        return Value(kind=Kind.OTHER)

    def _converted_inputs(self, call: ast.Call, inputs: list[tuple[ast.expr, Value]]) -> None:
        """Record the conversion of each (argument, value) a library call turns into an
        array, up to a `*unpacked` argument (what follows it is not known)."""
        for expr, value in inputs:
            if isinstance(expr, ast.Starred):
                break
            self._converted(call, expr, value, tensors=True)

    def _converted(self, call: ast.Call, expr: ast.expr, value: Value, *, tensors: bool) -> None:
        """Record the conversion of `value` (the argument `expr`) into an array: of a tensor
        when `tensors`, of a list's tensors always."""
        if value.kind is Kind.TENSOR and tensors:
            if (site := self.site(call, expr, value)) is not None:
                self.emit(Conversion("array", **site))
        elif value.kind is Kind.SEQUENCE:
            converted = _tracked_item(value)
            if converted is not None and (site := self.site(call, expr, converted)) is not None:
                self.emit(Conversion("array-items", **site))

    def torch_call(self, call: ast.Call, qualified: str) -> Value:
        """A call of a torch API resolved through the imports."""
        if self.record and self.stmt is not None:
            self.module.analysis.torch_calls.append(
                TorchCall(call, qualified, self.stmt, self.function)
            )
        if qualified in api.BACKWARD_FUNCTIONS or qualified in api.GRAD_FUNCTIONS:
            keyword = "tensors" if qualified in api.BACKWARD_FUNCTIONS else "outputs"
            target = call.args[0] if call.args else None
            kw = passed_keyword(call, keyword)
            if kw is not None:
                target = kw.value
            values = self.arguments(call)
            if target is not None:
                value = _checked_output(values[0] if call.args else self.eval(target))
                via = "torch.autograd.backward" if keyword == "tensors" else "torch.autograd.grad"
                self.backpropagate(call, target, value, via)
            if keyword == "outputs":
                return self._gradients(call, values)
            return NONE
        args = self.arguments(call)
        if qualified in TENSOR_TESTS and len(call.args) == 1 and not call.keywords:
            starred = isinstance(call.args[0], ast.Starred)
            answer = None if starred or len(args) != 1 else tensor_test(args[0])
            if answer is not None:
                return answer  # `torch.is_tensor(x)` of a known kind
        if api.distribution_class(qualified) is not None or qualified in api.KL_DIVERGENCE:
            return self.distribution(call, qualified, args)
        if qualified == api.DEVICE_CLASS:
            return dtype_value(call)  # `torch.device("cuda", 0)`
        if qualified in api.GRAD_SCALERS:
            # A mixed-precision gradient scaler: `scaler.scale(loss)` is `loss` times a plain
            # factor (see `CallEvaluator.method_call`).
            return Value(kind=Kind.OTHER, module=ModuleRef(qualified))
        if qualified in api.CHECKPOINT_FUNCTIONS:
            return self._checkpoint(call, qualified, args)
        if qualified in data_sources.DATA_LOADERS:
            return data_sources.data_loader(call, args)
        if qualified in data_sources.TENSOR_DATASETS:
            dataset = data_sources.tensor_dataset(call, args)
            if dataset is not None:
                return dataset
        loss_name = api.LOSS_FUNCTIONS.get(qualified)
        if loss_name is not None:
            self._record_loss_input(call, loss_name, args)
        if qualified in api.TARGET_LOSS_FUNCTIONS:
            args = target_held_constant(call, args)
        if qualified in api.DATA_PARALLEL and len(call.args) >= 2 and len(args) >= 2:
            parallel = args[0]
            if parallel.kind is Kind.MODULE and parallel.module is not None:
                # The module's own call, as written `module(inputs)` at the same place.
                called = ast.copy_location(ast.Call(call.args[0], [call.args[1]], []), call)
                ast.fix_missing_locations(called)
                return self.module_call(called, parallel.module, [args[1]], parallel.frozen)
        like = shape_of(args[0]) if call.args and args else shapes.UNKNOWN_SHAPE
        if qualified in api.LEGACY_CONSTRUCTORS and call.args and args:
            data = args[0]
            if data.kind is Kind.TENSOR and len(call.args) == 1:
                # `torch.Tensor(t)` is an alias of `t`: it keeps its history (AliasBackward).
                return self.tensor_op(call, [data])
            if data.kind is Kind.SEQUENCE and not isinstance(call.args[0], ast.Starred):
                # `torch.Tensor([t1, t2])` copies the values into a new leaf, as torch.tensor.
                return self.inference_result(self._leaf(call, qualified, data))
        if qualified in api.FACTORIES or qualified in api.LEGACY_CONSTRUCTORS:
            shape = shapes.factory_shape(qualified, call, like, argument_constants(call, args))
            made = self._typed(call, qualified, args, self._leaf(call, qualified, None))
            return self.inference_result(evolve(made, shape=shape))
        if qualified in api.REWRAP:
            inner = args[0] if args else UNKNOWN
            if qualified in api.KEEPS_TENSOR_DATA and is_tensor(inner) is not False:
                # `torch.as_tensor(t)` of a tensor is `t` itself, or `t.to(dtype)`: history
                # kept (a new leaf only from lists, tuples and numbers).
                if inner.kind is Kind.TENSOR and not call.keywords and len(call.args) == 1:
                    return inner
                return Value(kind=Kind.TENSOR)
            shape = shapes.factory_shape(qualified, call, like, argument_constants(call, args))
            leaf = self._typed(call, qualified, args, self._leaf(call, qualified, inner))
            leaf = evolve(leaf, shape=shape)
            return leaf if qualified in api.MAY_ALIAS else self.inference_result(leaf)
        if qualified in api.PARAMETER:
            # nn.Parameter(data, requires_grad=True): the flag may also come second.
            flag = keyword_argument(call, args, "requires_grad")
            if flag is None and len(call.args) > 1:
                flag = args[1]
            integer = bool(call.args and args) and args[0].integer_dtype
            if flag is not None and flag.const is not True:
                grad = Grad.UNTRACKED if flag.const is False else Grad.UNKNOWN
                return Value(
                    grad=grad, kind=Kind.TENSOR, leaf=True, shape=like, integer_dtype=integer
                )
            made = Value(
                grad=Grad.TRACKED, kind=Kind.TENSOR, leaf=True, shape=like, integer_dtype=integer
            )
            if integer:
                self._integer_grad_request(call, call.args[0], made)
            return made
        if qualified in api.NON_DIFFERENTIABLE:
            return self.inference_result(self.non_differentiable(call, f"{qualified}()"))
        name = qualified.rsplit(".", 1)[-1]
        if qualified == f"torch.{name}" and name in api.INDEX_REDUCTIONS:
            positional = args[1 : len(call.args)]
            reduced = self._index_reduction(call, name, args[0] if args else UNKNOWN, positional)
            if reduced is not None:
                return reduced
        in_place = qualified.endswith("_") or self._flag_keyword(call, "inplace")
        if in_place and call.args and args:
            # torch.relu_(y), F.relu(y, inplace=True): the first argument changes in place.
            if _recorded_in_place(call, qualified):
                self.argument_changed_in_place(call, call.args[0], args[0], name)
            else:
                self.modified_in_place(call, call.args[0], args[0])
            self._forget_activation(call.args[0])
        if qualified in api.DIFFERENTIABLE or qualified.startswith(api.FUNCTIONAL_PREFIX):
            if qualified in api.SAVES_OPERANDS:
                self.note_saved_operands(call, qualified, call.args, args)
            elif qualified in api.SAVES_TARGET:
                self._note_saved_target(call, qualified, args)
            if qualified in api.CONCATENATING:
                self._note_concatenated_total(call, args)
            result = self.tensor_op(call, args)
            saves = graphs.function_saves(qualified)
            result = self.saving_op(
                call,
                result,
                saves,
                args,
                list(call.args),
                tensor_operands=qualified in api.TENSOR_OPERAND_FUNCTIONS,
            )
            result = evolve(
                result,
                shape=self._call_shape(call, qualified, args),
                activation=activations.of_function(call, qualified, args),
                contiguous=qualified in api.CONTIGUOUS_RESULTS,
            )
            if qualified in api.ZERO_GRADIENT_FUNCTIONS:
                result = _zero_gradient(call, f"{qualified}()", result)
            if qualified in api.DROPOUT_RETURNING_INPUT and call.args and args:
                return _dropout_output(call, qualified, args, result)
            if (
                qualified in api.MAY_ALIAS
                or "dropout" in qualified
                or passed_keyword(call, "inplace") is not None
            ):
                return result
            return self.inference_result(result)
        if qualified in api.TUPLE_RETURNING:
            return self.tensor_op(call, args, kind=Kind.UNKNOWN)
        if qualified in api.DIFFERENTIABLE_TUPLES and call.args and args:
            return self._differentiable_tuple(call, api.DIFFERENTIABLE_TUPLES[qualified], args[0])
        if qualified in api.SEQUENTIAL:
            layers_given = _unpacked_layers(call, args)
            if layers_given is not None:
                exprs = layer_lists.literal_elements(self.function or self.module.tree, call)
                if exprs is None or len(exprs) != len(layers_given):
                    exprs = []
                first = self._first_listed_layer(call, exprs, layers_given)
                module = ModuleRef(
                    qualified,
                    kind=_sequential_kind(layers_given),
                    self_contained=bool(exprs) and _fresh_layers(exprs, layers_given),
                    # Its first layer changing its input in place changes the container's.
                    changes_input=first.changes_input if first is not None else None,
                    clashes=_layer_clashes(exprs, layers_given) if exprs else (),
                    children=_held_modules(layers_given),
                    held_count=self._unpacked_count(call),
                    indexing=_unpacked_indexing(call, args),
                    saves_output=_last_keeps_output(call, args),
                )
                return Value(kind=Kind.MODULE, module=module)
            fresh = not call.keywords and _fresh_layers(call.args, args)
            layers = shapes.sequence_of([a.module.layer if a.module else None for a in args])
            first = (
                args[0].module
                if args and call.args and not isinstance(call.args[0], ast.Starred)
                else None
            )
            first_saves = first is not None and (
                first.saves_input
                or (first.qualified or "").rsplit(".", 1)[-1] in api.SAVES_INPUT_MODULES
            )
            module = ModuleRef(
                qualified,
                kind=_sequential_kind(args),
                layer=layers,
                self_contained=fresh,
                saves_input=first_saves,
                # Its first layer changing its input in place changes the container's.
                changes_input=first.changes_input if first is not None else None,
                applies=activations.of_sequential(call, args),
                clashes=_layer_clashes(call.args, args),
                steps=_local_steps(call, args),
                integer_buffer=_holds_integer_buffer(call, args),
                children=None if call.keywords else _held_modules(args),
                indexing=_written_out_indexing(call, args),
                saves_output=_last_keeps_output(call, args),
            )
            return Value(kind=Kind.MODULE, module=module)
        if qualified in api.PRETRAINED_LAYERS:
            return self._pretrained_layer(call, api.PRETRAINED_LAYERS[qualified], args)
        module_kind = api.nn_module_kind(qualified)
        last = qualified.rsplit(".", 1)[-1]
        if module_kind is None and qualified.startswith("torch.nn.") and last in api.INSTANCE_NORMS:
            module_kind = _instance_norm_kind(call, api.INSTANCE_NORMS[last])
        if module_kind is not None or (qualified.startswith("torch.nn.") and last[:1].isupper()):
            inplace = passed_keyword(call, "inplace")
            in_place = inplace is not None and not (
                isinstance(inplace.value, ast.Constant) and inplace.value.value is False
            )
            # Only a literal `inplace=True` certainly makes the layer change its input.
            certain = inplace is not None and params.is_true(inplace.value)
            # A layer computes from its inputs and its own parameters only (containers and
            # wrappers such as DataParallel hold modules built elsewhere; lazy layers make
            # their parameters later).
            own = (
                module_kind is not None
                and module_kind.output is not None
                and not last.startswith("Lazy")
            )
            known = argument_constants(call, args)
            layer = shapes.layer_of(last, call, known)
            ref = ModuleRef(
                qualified=qualified,
                settings=tuple(api.layer_settings(last, call, known).items()),
                inplace=in_place,
                changes_input=qualified if certain else None,
                layer=layer,
                self_contained=own,
                applies=activations.of_layer(call, qualified),
                integer_buffer=_counts_batches(call, last),
                has_bias=_keeps_bias(call, last),
            )
            if last in api.INSTANCE_NORMS:
                ref = dataclasses.replace(ref, kind=module_kind)
            if module_kind is not None and self._flag_keyword(call, "return_indices"):
                # `nn.MaxPool2d(2, return_indices=True)` returns (values, indices).
                ref = dataclasses.replace(ref, kind=api.ModuleKind(False, None))
            elif module_kind is not None and any(
                isinstance(kw.value, ast.Constant) and kw.value.value is False
                for kw in call.keywords
                if kw.arg in api.AFFINE_KEYWORDS
            ):
                ref = dataclasses.replace(ref, kind=api.ModuleKind(False, module_kind.output))
            if last == "ModuleList":
                ref = dataclasses.replace(
                    ref,
                    children=_module_list_children(call, args),
                    held_count=self._module_list_count(call, args),
                    indexing=_module_list_indexing(call, args),
                )
                return Value(kind=Kind.MODULE, module=ref, items=_listed_modules(call, args))
            return Value(kind=Kind.MODULE, module=ref)
        if api.optimizer_class(qualified):
            self._record_optimized(call, qualified, args)
            return Value(
                kind=Kind.OTHER,
                module=ModuleRef(qualified=qualified),
                optimizes=self._optimized_module(call),
            )
        return UNKNOWN

    def _module_list_count(self, call: ast.Call, args: list[Value]) -> int | None:
        """How many modules `nn.ModuleList(...)` holds as built: a list written out (see
        `_written_out_count`), or a comprehension over a known range
        (`[Block(d) for _ in range(3)]`, see `comprehension_counts`); None otherwise."""
        written = _written_out_count(call, args)
        if written is not None or len(call.args) != 1 or call.keywords:
            return written
        return comprehension_count(
            call.args[0], self.settled, range_is_builtin=self.unshadowed("range")
        )

    def _unpacked_count(self, call: ast.Call) -> int | None:
        """How many modules `nn.Sequential(*[Block(d) for _ in range(3)], head)` holds as
        built (see `comprehension_counts.unpacked_count`); None when not known, and for
        `nn.Sequential(OrderedDict(...))` or a call with keywords."""
        if call.keywords or not any(isinstance(arg, ast.Starred) for arg in call.args):
            return None
        return unpacked_count(call.args, self.settled, range_is_builtin=self.unshadowed("range"))

    def _pretrained_layer(self, call: ast.Call, layer: str, args: list[Value]) -> Value:
        """`nn.Embedding.from_pretrained(vectors, freeze=False)`: a new layer of class
        `layer` whose weight requires grad. Frozen (the default) or not known: unknown (its
        parameters exist but train nothing)."""
        flag = keyword_argument(call, args, "freeze")
        if flag is None and len(call.args) > 1 and len(args) > 1:
            flag = args[1]
        if flag is None or flag.const is not False or flag.kind is not Kind.SCALAR:
            return UNKNOWN
        return Value(kind=Kind.MODULE, module=ModuleRef(qualified=layer, self_contained=True))

    def _first_listed_layer(
        self, call: ast.Call, exprs: list[ast.expr], layers: list[Value]
    ) -> ModuleRef | None:
        """The first layer of `nn.Sequential(*layers)`, when certain (see
        `layer_lists.first_layer`): the list literal's own first value, or the value of the
        name, attribute or `torch.nn` constructor of literal arguments put first."""
        scope = self.function or self.module.tree
        expr = layer_lists.first_layer(scope, call, self._decided)
        if expr is None:
            return None
        if exprs and expr is exprs[0] and layers:
            return layers[0].module
        if isinstance(expr, ast.Call):
            qualified = self.scope.resolve(expr.func)
            if qualified is None or not qualified.startswith("torch.nn."):
                return None
        # Evaluated again here for its value only: its own statement recorded its effects.
        record, events = self.record, self.events_in_context
        self.record, self.events_in_context = False, frozenset()
        try:
            return self.eval(expr).module
        finally:
            self.record, self.events_in_context = record, events

    def _decided(self, test: ast.expr) -> bool | None:
        """The truth of an `if` test over a name, when its value is a known bool."""
        negated = isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)
        inner = test.operand if isinstance(test, ast.UnaryOp) else test
        value = self.eval(inner)
        if value.kind is not Kind.SCALAR or not isinstance(value.const, bool):
            return None
        return value.const is not negated

    def _alias_of(self, name: str, receiver: Value, result: Value) -> Value:
        """`t.view(-1)`, `t.float()` of an inference tensor `t`: a view of an inference
        tensor is one anywhere (`t.flatten(0, 1)` is a view when `t` is certainly
        contiguous); a method that may return `t` itself or a copy gives one under inference
        mode either way (checked against torch 2.13.0)."""
        if not receiver.inference:
            return result
        off = self.mode.off
        inference_mode = self.mode.enabled is False and off is not None and off.inference
        view = name in api.CERTAIN_VIEW_METHODS or (
            name in api.MAYBE_VIEW_METHODS and receiver.contiguous
        )
        return evolve(result, inference=True) if inference_mode or view else result

    def _expr_Compare(self, expr: ast.Compare) -> Value:
        """A comparison of tensors allocates a new bool tensor: an inference tensor when made
        under inference mode."""
        return self.inference_result(super()._expr_Compare(expr))

    def _note_module_inputs(
        self, call: ast.Call, module: ModuleRef, owns_graph: bool, args: list[Value]
    ) -> None:
        """A loss module that saves its target (`nn.CrossEntropyLoss()(logits, labels)`):
        its target, else what `ModuleCalls` records."""
        name = (module.qualified or "").rsplit(".", 1)[-1]
        if name in api.SAVES_TARGET_MODULES and (module.qualified or "").startswith("torch.nn."):
            self._note_saved_target(call, module.qualified or name, args)
            return
        super()._note_module_inputs(call, module, owns_graph, args)

    def _note_concatenated_total(self, call: ast.Call, args: list[Value]) -> None:
        """`preds = torch.cat([preds, out])` (or a branch of `out if preds is None else
        torch.cat(...)`): the tensor `preds` grows by `out` on every run, recorded as an
        `Accumulation` of `out` into `preds` (`node` is the call)."""
        stmt = self.stmt
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and call.args and args):
            return
        value = stmt.value
        branch = isinstance(value, ast.IfExp) and call in (value.body, value.orelse)
        if value is not call and not branch:
            return
        target = stmt.targets[0]
        key = dotted(target) if isinstance(target, ast.Name | ast.Attribute) else None
        joined, held = call.args[0], args[0].elements
        if key is None or not isinstance(joined, ast.List | ast.Tuple) or held is None:
            return
        if len(joined.elts) != 2 or len(held) != 2:
            return
        for index, part in enumerate(joined.elts):
            added = held[1 - index]
            if dotted(part) != key or added.kind not in (Kind.TENSOR, Kind.UNKNOWN):
                continue
            # Whatever it joins is a tensor (anything else raises), a module's output too.
            added = evolve(added, kind=Kind.TENSOR)
            if (site := self.site(call, target, held[index])) is not None:
                self.emit(Accumulation(added, **site))
            return

    def _note_saved_target(self, call: ast.Call, operation: str, args: list[Value]) -> None:
        """`F.cross_entropy(logits, labels)`: the target is saved for the input's gradient;
        an inference tensor there, with an input that requires grad, raises (GG106)."""
        if self.mode.enabled is not True or len(call.args) < 2 or len(args) < 2:
            return
        if any(isinstance(a, ast.Starred) for a in call.args[:2]):
            return
        source, target = args[0], args[1]
        requires_grad = source.kind is Kind.TENSOR and source.grad is Grad.TRACKED
        if (
            target.inference
            and requires_grad
            and (site := self.site(call, call.args[1], target)) is not None
        ):
            self.emit(InferenceSaved(operation, source, **site))

    def distribution(self, call: ast.Call, qualified: str, args: list[Value]) -> Value:
        """`Categorical(logits=out)`, `Normal(mu, std)`: an object (not a tensor) holding the
        autograd facts and graph of its parameters, which `log_prob`, `entropy` and
        `rsample` hand on (see `distribution_method`); `kl_divergence(p, q)`: a tensor
        computed from both distributions' parameters."""
        computed = self.tensor_op(call, args)
        if qualified in api.KL_DIVERGENCE:
            return computed
        if api.distribution_class(qualified) in api.NORMALISED_WHEN_BUILT:
            exprs = [*call.args, *(k.value for k in call.keywords)]
            computed = self.saving_op(call, computed, Saves.OTHER, args, exprs)
        name = api.distribution_class(qualified)
        assert name is not None
        # Its batch shape, kept as the object's shape (see `distribution_shapes`).
        batch = distribution_shapes.batch_shape(name, call, [a.shape for a in args])
        return Value.composed(
            kind=Kind.OTHER,
            carries=computed.carries,
            autograd=computed.autograd,
            graph_facts=computed.graph_facts,
            object_facts=ObjectFacts(module=ModuleRef(qualified)),
            tensor_facts=TensorFacts(shape=batch),
        )

    def distribution_method(
        self, call: ast.Call, distribution: Value, name: str, args: list[Value]
    ) -> Value | None:
        """`dist.log_prob(a)`, `dist.entropy()`, `dist.rsample()`: a tensor whose history
        runs through the distribution's parameters (and `a`); `dist.sample()`: a tensor
        without history. None for any other method (not known)."""
        module = distribution.module
        assert module is not None and module.qualified is not None
        shape = distribution_shapes.method_shape(
            name, call, distribution.shape, [a.shape for a in args]
        )
        if name in api.DISTRIBUTION_DRAWS:
            return evolve(self.non_differentiable(call, f".{name}()"), shape=shape)
        if not api.distribution_method_keeps_history(module.qualified, name):
            return None
        parameters = Value.composed(
            kind=Kind.TENSOR,
            carries=distribution.carries,
            autograd=distribution.autograd,
            graph_facts=distribution.graph_facts,
        )
        result = self.tensor_op(call, [parameters, *args])
        return evolve(result, shape=shape) if shape.known else result

    def _checkpoint(self, call: ast.Call, qualified: str, args: list[Value]) -> Value:
        """`checkpoint(fn, x, y)`, `checkpoint_sequential(seq, n, x)`: one `CheckpointInput`
        event per argument passed on to the checkpointed code, each with what calling `fn`
        directly on them would return when `fn` is a known module (GG112). The output of a
        reentrant `checkpoint` none of whose inputs requires grad has no history."""
        first, end = api.CHECKPOINT_FUNCTIONS[qualified]
        if any(isinstance(a, ast.Starred) for a in call.args) or len(call.args) <= first:
            return UNKNOWN
        inputs = call.args[first:end]
        values = args[first : first + len(inputs)]
        direct: Value | None = None
        callee = args[0]
        called = ast.copy_location(ast.Call(call.args[0], list(inputs), []), call)
        ast.fix_missing_locations(called)
        if first == 1 and callee.kind is Kind.MODULE and callee.module is not None:
            # The checkpoint runs the module on the inputs: its effects are a direct call's.
            record, self.record = self.record, False
            try:
                direct = self.module_call(called, callee.module, values, callee.frozen)
            finally:
                self.record = record
        elif first == 1 and callee.kind is Kind.MODULE and callee.alternatives:
            # One of several modules (`for seg in [self.stem, self.layer1]`): what holds
            # of a direct call of each.
            record, self.record = self.record, False
            try:
                direct = reduce(
                    join,
                    [
                        self.module_call(called, each.module, values, each.frozen)
                        if each.module is not None
                        else UNKNOWN
                        for each in callee.alternatives
                    ],
                )
            finally:
                self.record = record
        elif first == 1 and (
            callee.kind is Kind.FUNCTION or isinstance(call.args[0], ast.Attribute)
        ):
            direct = self._called_aside(called)
        sequential = qualified == "torch.utils.checkpoint.checkpoint_sequential"
        for expr, value in zip(inputs, values, strict=True):
            if (site := self.site(call, expr, value)) is not None:
                self.emit(CheckpointInput(sequential, direct, run=self.run_number, **site))
        if (
            first == 1
            and self.mode.enabled is True
            and reentrant_keyword(call) is not False
            and all(value.grad is Grad.UNTRACKED for value in values)
        ):
            loss = Loss(LossKind.CHECKPOINT, call, "a reentrant checkpoint without grad inputs")
            return Value(grad=Grad.UNTRACKED, kind=Kind.UNKNOWN, loss=loss)
        return UNKNOWN

    def _called_aside(self, called: ast.Call) -> Value:
        """What `called` (a function or method of the file given a checkpoint's inputs,
        `checkpoint(self._forward_impl, x)`) returns, evaluated as a direct call that records
        nothing, notes no call site and leaves the environment as it was."""
        env = dict(self.env) if self.env is not None else None
        record, self.record = self.record, False
        try:
            with self.module.calls_unnoted():
                return self.eval(called)
        finally:
            self.record = record
            self.env = env

    def _differentiable_tuple(self, call: ast.Call, count: int, source: Value) -> Value:
        """`torch.linalg.eigh(a)`, `torch.std_mean(x, 0)`...: a tuple of `count` new tensors,
        each computed from the input (its history and grad, under the current grad mode)."""
        if isinstance(call.args[0], ast.Starred):
            return Value(kind=Kind.UNKNOWN)
        part = self.inference_result(
            evolve(self.tensor_op(call, [source]), shape=shapes.UNKNOWN_SHAPE)
        )
        return Value(kind=Kind.SEQUENCE, elements=(part,) * count)

    def _index_reduction(
        self, call: ast.Call, name: str, source: Value, positional: list[Value]
    ) -> Value | None:
        """`torch.max(x, 1)`, `x.topk(k)`...: a `(values, indices)` pair whose indices never
        require grad; None when the form may not return a pair (`torch.max(x, y)`)."""
        if any(isinstance(a, ast.Starred) for a in call.args):
            return None
        if api.INDEX_REDUCTIONS[name] == "with_dim":
            has_dim = passed_keyword(call, "dim") is not None
            if positional:
                # The first argument after the input is `dim` only when it is a number.
                has_dim = positional[0].kind is Kind.SCALAR
            if not has_dim:
                return None
        # `x.max(dim=1)` gives `positional` all of the call's arguments, `torch.max(x, 1)`
        # all but the input.
        method = len(positional) == len(call.args)
        constants = argument_constants(call, positional if method else [source, *positional])
        shape = shapes.index_reduced(name, call, shape_of(source), constants, method=method)
        values = evolve(self.tensor_op(call, [source]), shape=shape)
        indices = self.non_differentiable(call, f"the index output of {name}()")
        indices = evolve(indices, shape=shape)
        # Both are new tensors: inference tensors when made under inference mode.
        values, indices = self.inference_result(values), self.inference_result(indices)
        return Value(
            kind=Kind.SEQUENCE, elements=(values, indices), fields=api.INDEX_REDUCTION_FIELDS
        )

    def _call_shape(self, call: ast.Call, qualified: str, args: list[Value]) -> shapes.Shape:
        """The shape of a differentiable torch function's or functional loss's result."""
        name = qualified.rsplit(".", 1)[-1]
        positional = [shape_of(a) for a in args[: len(call.args)]]
        keywords = [shape_of(a) for a in args[len(call.args) :]]
        if any(isinstance(a, ast.Starred) for a in call.args):
            return shapes.UNKNOWN_SHAPE
        if name in shapes.LOSSES and qualified.startswith(api.FUNCTIONAL_PREFIX):
            reduction = shapes.reduction_of(name, call, functional=True)
            inputs = [*positional, shapes.UNKNOWN_SHAPE, shapes.UNKNOWN_SHAPE]
            integer = len(call.args) > 1 and len(args) > 1 and args[1].integer_dtype
            return shapes.loss_shape(name, reduction, inputs[0], inputs[1], integer_target=integer)
        return shapes.op_shape(name, call, positional, keywords, argument_constants(call, args))

    def _typed(self, call: ast.Call, qualified: str, args: list[Value], made: Value) -> Value:
        """A factory's tensor with its integer or floating dtype when certain (see
        `dtypes`); asked to require grad, an integer one is reported where it is made."""
        if not dtypes.integer_factory(qualified, call, args, self.scope.resolve):
            default = self.module.syntax.default_float32
            dtype = dtypes.factory_float_dtype(qualified, call, self.scope.resolve, default)
            return made if dtype is None else evolve(made, float_dtype=dtype)
        if made.grad is Grad.TRACKED:
            self._integer_grad_request(call, call.args[0] if call.args else call, made)
        index = dtypes.index_factory(qualified, call, args, self.scope.resolve)
        return evolve(made, integer_dtype=True, index_dtype=index)

    def _integer_grad_request(self, call: ast.Call, target: ast.expr, made: Value) -> None:
        if (site := self.site(call, target, made)) is not None:
            self.emit(IntegerGradRequest(**site))

    def _leaf(self, call: ast.Call, qualified: str, inner: Value | None) -> Value:
        keyword = passed_keyword(call, "requires_grad")
        requires = keyword.value if keyword is not None else None
        if requires is None and qualified in api.VARIABLE and len(call.args) > 1:
            requires = call.args[1]  # `Variable(data, True)`
        flag = self.eval(requires).const if requires is not None else False
        wants_grad = flag is True
        if flag is not True and flag is not False:
            return Value(kind=Kind.TENSOR, leaf=True)
        if inner is not None:
            wrapped = combine([inner]).grad
            history = wrapped is Grad.TRACKED
            loss = Loss(
                LossKind.REWRAP,
                call,
                f"{qualified}(...)",
                inner=_inner_reason(inner),
                wrapped_history=history,
                wrapped_unknown=wrapped is Grad.UNKNOWN,
                wrapped_tensor=inner.kind is Kind.TENSOR,
                wrapped_sequence=inner.kind is Kind.SEQUENCE,
            )
        else:
            loss = Loss(LossKind.FACTORY, call, f"{qualified}(...)")
        grad = Grad.TRACKED if wants_grad else Grad.UNTRACKED
        copies = frozenset({loss}) if loss.wrapped_history else frozenset()
        return Value(grad=grad, kind=Kind.TENSOR, loss=loss, leaf=True, copies=copies)

    def _integer_asked_in_place(
        self, call: ast.Call, target: ast.expr, receiver: Value, site: Site
    ) -> None:
        """`t.requires_grad_()` on a tensor certainly of an integer dtype, unless a test of
        its dtype guards the call (`if t.is_floating_point():`): torch raises before
        anything changes; the report is GG402's."""
        if not dtypes.certainly_integer(receiver, target):
            return
        tests = [n.test for kind, n in self.frames if kind == "cond" and isinstance(n, ast.If)]
        if not dtypes.dtype_guarded(call, target, site["stmt"], tests):
            self.emit(IntegerGradRequest(in_place=True, **site))

    def _integral_dtype(self, call: ast.Call) -> str | None:
        """The integer or bool dtype a cast's arguments name (`torch.long`), if one does."""
        for argument in [*call.args, *(k.value for k in call.keywords if k.arg == "dtype")]:
            qualified = self.scope.resolve(argument)
            if qualified in api.INTEGRAL_DTYPES:
                return qualified
        return None

    def tensor_method(
        self, call: ast.Call, receiver: Value, key: str | None, name: str, args: list[Value]
    ) -> Value:
        """A method of a value known to be a tensor."""
        if name in api.CONVERSIONS:
            kind = Kind.SCALAR if name == "item" else Kind.OTHER
            fresh = never_had_history(receiver)
            history = receiver.grad is Grad.TRACKED
            loss = Loss(
                LossKind.CONVERSION,
                call,
                f".{name}()",
                converted_fresh=fresh,
                converted_history=history,
            )
            assert isinstance(call.func, ast.Attribute)
            if (site := self.site(call, call.func.value, receiver)) is not None:
                self.emit(Conversion(name, **site))
            return Value(grad=Grad.UNTRACKED, kind=kind, loss=loss)
        if name in api.DETACH_METHODS:
            # The same data without history: the receiver's shape.
            return Value(
                Grad.UNTRACKED,
                Kind.TENSOR,
                Loss(LossKind.DETACH, call, ".detach()"),
                leaf=True,
                shape=receiver.shape,
            )
        if name == "detach_":
            detached = Value(
                Grad.UNTRACKED, Kind.TENSOR, Loss(LossKind.DETACH, call, ".detach_()"), leaf=True
            )
            if key is not None:
                self.bind_key(key, detached)
            return detached
        if name == "retain_grad":
            if key is not None and self.env is not None:
                self.env[key] = evolve(receiver, retains_grad=True)
            return NONE
        if name == "requires_grad_":
            assert isinstance(call.func, ast.Attribute)
            site = self.site(call, call.func.value, receiver)
            if site is not None:
                self.emit(RequiresGradCall(**site))
            flag = args[0].const if args else True
            if site is not None and flag is True:
                self._integer_asked_in_place(call, call.func.value, receiver, site)
            forcing = (
                (call, self.stmt, call.func.value)
                if self.stmt is not None and _forcing_call(call)
                else None
            )
            value = _after_requires_grad(receiver, flag, forcing)
            if key is not None and value is not receiver:
                self.bind_key(key, value)
            return value
        if name in api.NON_DIFFERENTIABLE_METHODS:
            result = self.non_differentiable(call, f".{name}()")
            if name in api.INTEGRAL_CAST_METHODS:
                # A cast may return the receiver itself; it keeps its shape, and its dtype is
                # an integer or bool one.
                index = name in api.INDEX_CAST_METHODS and not call.args and not call.keywords
                return evolve(result, shape=receiver.shape, integer_dtype=True, index_dtype=index)
            return self.inference_result(result)
        if name in api.SPLITTING_METHODS and (receiver.kind is Kind.TENSOR or receiver.graph):
            # (A value with graph nodes is a tensor, a parameter's stand-in included.)
            # A piece shares the receiver's history; changing it in place raises at once
            # ("Output 0 of Split is a view and is being modified inplace"), not in backward.
            piece = self.tensor_op(call, [receiver])
            return Value(kind=Kind.SEQUENCE, items=evolve(piece, shape=shapes.UNKNOWN_SHAPE))
        if name == "type" and not call.args and not call.keywords:
            return Value(kind=Kind.OTHER)  # the type's name, a string
        if name in api.DTYPE_CASTS and (dtype := self._integral_dtype(call)) is not None:
            return self.non_differentiable(call, f".{name}({dtype})")
        if name in api.INDEX_REDUCTIONS:
            reduced = self._index_reduction(call, name, receiver, args[: len(call.args)])
            if reduced is not None:
                return reduced
        if (
            name in api.MAYBE_IDENTITY_METHODS
            and self.mode.enabled is False
            and receiver.grad is not Grad.UNTRACKED
        ):
            # `w.to(device)` returns `w` itself when nothing changes: no_grad cannot strip
            # its requires_grad then.
            return Value(kind=Kind.TENSOR)
        if name in api.VIEW_METHODS and self.mode.enabled is False:
            return self.view_op(call, receiver, view=name not in api.MAYBE_VIEW_METHODS)
        if name in api.DIFFERENTIABLE_METHODS:
            assert isinstance(call.func, ast.Attribute)
            # A cast's arguments (a device, a dtype, a tensor whose dtype to take) add no
            # history: gradients flow to the receiver only.
            # Nor do sizes, dims and integer indices (`x.reshape(-1, x.size(-1))`).
            only = name in api.MAYBE_IDENTITY_METHODS or name in api.RECEIVER_ONLY_METHODS
            inputs = [receiver] if only else [receiver, *args]
            if name in ("mul", "div", "matmul", "mm", "bmm"):
                self.note_saved_operands(call, f".{name}()", [call.func.value, *call.args], inputs)
            result = self.tensor_op(call, inputs)
            if name in api.CERTAIN_VIEW_METHODS and name not in api.OVERLAPPING_VIEW_METHODS:
                result = self.shares_version(receiver, result)
            saves = graphs.method_saves(name)
            result = self.saving_op(call, result, saves, inputs, [call.func.value, *call.args])
            positional = [shape_of(receiver), *(shape_of(a) for a in args[: len(call.args)])]
            keywords = [shape_of(a) for a in args[len(call.args) :]]
            result = evolve(
                result,
                shape=shapes.op_shape(
                    name, call, positional, keywords, argument_constants(call, args)
                ),
                activation=activations.of_method(call, name, receiver),
                contiguous=name in api.CONTIGUOUS_RESULT_METHODS,
            )
            if name in api.ZERO_GRADIENT_METHODS:
                result = _zero_gradient(call, f".{name}()", result)
            if name in api.MAY_ALIAS_METHODS:
                return self._alias_of(name, receiver, result)
            return self.inference_result(result)
        if name in api.SHAPE_METHODS:
            if name == "size" and not call.args and not call.keywords:
                return sizes_value(shape_of(receiver))
            if name == "size" and len(call.args) == 1 and not call.keywords:
                # `x.size(0)`: one int, the size itself where the shape tells it.
                axis = shapes.known_int(call.args[0], argument_constants(call, args))
                return size_value(shapes.size_along(shape_of(receiver), axis))
            return Value(grad=Grad.UNTRACKED, kind=Kind.SCALAR)  # an int (or a bool)
        if name.endswith("_") and not name.startswith("_"):
            assert isinstance(call.func, ast.Attribute)
            if (site := self.site(call, call.func.value, receiver)) is not None:
                self.emit(InPlaceChange(name, **site))
            self.modified_in_place(call, call.func.value, receiver)
            # In place: the receiver now also depends on the arguments.
            if key is not None and self.mode.enabled is not False:
                self.bind_key(
                    key, self.in_place_result(receiver, self.tensor_op(call, [receiver, *args]))
                )
            elif key is not None:
                self._forget_activation(call.func.value)
                if self.env is not None and key in self.env:
                    # `t.transpose_(0, 1)` changes its strides: no longer certainly contiguous.
                    self.env[key] = evolve(self.env[key], contiguous=False)
            return evolve(activations.cleared(receiver), contiguous=False)
        if self.mode.enabled is False and self.mode.off is not None:
            # Whatever an unlisted method computes with recording off carries no history.
            loss = Loss(LossKind.NO_GRAD, call, self.mode.off.description, self.mode.off)
            return Value(grad=Grad.UNTRACKED, kind=Kind.UNKNOWN, loss=loss)
        return Value(kind=Kind.UNKNOWN)


def _after_requires_grad(
    receiver: Value, flag: object, forcing: tuple[ast.AST, ast.stmt, ast.expr] | None
) -> Value:
    """The tensor `receiver.requires_grad_(flag)` returns (and leaves in the receiver's
    name). Unlike the setter, the method does not raise on a non-leaf asked for True: it
    returns that tensor unchanged, grad_fn and all, so a tensor with history stays what it
    is. Asked for False (or for a flag not known), a non-leaf raises ("you can only change
    requires_grad flags of leaf variables"), so what follows holds a leaf, unless the flag
    may be True: then a tensor that may have history may still have it. A tensor certainly
    without history (no grad, or batch data: `Autograd.batch`) is a leaf already, and True
    makes it a leaf that requires grad (`forced_leaf`). Of a tensor whose grad is not known,
    True leaves a tensor that requires grad but may or may not be a leaf (TRACKED with
    `leaf` None would say so; kept unknown, as before that state existed)."""
    no_history = receiver.grad is Grad.UNTRACKED or receiver.leaf or receiver.batch
    if flag is True:
        if receiver.has_history:
            return receiver
        if no_history:
            return forced_leaf(receiver, forcing)
        # The same tensor either way: with history it keeps it, without it had none, so
        # the graph nodes it certainly runs through (or stands in for) still hold.
        return Value(grad=Grad.UNKNOWN, kind=Kind.TENSOR, graph=receiver.graph)
    if flag is False or no_history:
        return Value(grad=Grad.UNKNOWN, kind=Kind.TENSOR, leaf=True)
    return Value(grad=Grad.UNKNOWN, kind=Kind.TENSOR)


def _forcing_call(call: ast.Call) -> bool:
    """`x.requires_grad_()`, `x.requires_grad_(True)` or `x.requires_grad_(requires_grad=True)`:
    a forcing whose flag is the literal True (or the default)."""
    if not call.args and not call.keywords:
        return True
    if len(call.args) == 1 and not call.keywords:
        return params.is_true(call.args[0])
    return (
        not call.args
        and len(call.keywords) == 1
        and call.keywords[0].arg == "requires_grad"
        and params.is_true(call.keywords[0].value)
    )


def _recorded_in_place(call: ast.Call, qualified: str) -> bool:
    """Whether `call` certainly changes its first argument in place as autograd records it,
    as the tensor method of the same name would: `torch.relu_(w)`, `F.relu_(w)`,
    `F.relu(w, inplace=True)` with a literal True. (Other functions ending in "_" work
    under no_grad, `nn.init.uniform_(w)`, or change something else, `clip_grad_norm_`.)"""
    if "dropout" in qualified or qualified == "torch.detach_":
        return False  # (changes nothing in evaluation; a leaf may be detached)
    if qualified.endswith("_"):
        return qualified.count(".") == 1 or qualified.startswith(api.FUNCTIONAL_PREFIX)
    keyword = passed_keyword(call, "inplace")
    return (
        qualified.startswith(api.FUNCTIONAL_PREFIX)
        and keyword is not None
        and params.is_true(keyword.value)
    )


def _listed_modules(call: ast.Call, args: list[Value]) -> Value | None:
    """What every module of `nn.ModuleList(<list>)` is, when the list's items are modules
    (`[Block(d) for _ in range(n)]`, `[Block(d), Block(d)]`): their join, read by an index
    (`layers[i]`) as long as nothing changes the list. None otherwise."""
    if len(call.args) != 1 or call.keywords or isinstance(call.args[0], ast.Starred) or not args:
        return None
    listed = args[0]
    if listed.kind is not Kind.SEQUENCE:
        return None
    parts = [listed.items] if listed.items is not None else list(listed.elements or ())
    if not parts or any(p is None or p.kind is not Kind.MODULE for p in parts):
        return None
    return reduce(join, parts).with_origin(None)


def _held_modules(layers: list[Value]) -> tuple[Value, ...]:
    """The modules a container holds, as built from `layers` (one not known to be a module
    is an unknown possibility: see `gradguard.analysis.submodules`)."""
    return tuple(
        layer.with_origin(None) if layer.kind is Kind.MODULE else UNKNOWN for layer in layers
    )


def _module_list_children(call: ast.Call, args: list[Value]) -> tuple[Value, ...] | None:
    """The modules `nn.ModuleList(<list>)` holds: the list's elements (or what each item
    is), `()` for `nn.ModuleList()`; None otherwise."""
    if not call.args and not call.keywords:
        return ()
    if len(call.args) != 1 or call.keywords or isinstance(call.args[0], ast.Starred) or not args:
        return None
    listed = args[0]
    if listed.kind is not Kind.SEQUENCE or listed.fields is not None:
        return None
    if listed.items is not None:
        return _held_modules([listed.items])
    return None if listed.elements is None else _held_modules(list(listed.elements))


def _written_out_indexing(call: ast.Call, args: list[Value]) -> Indexing | None:
    """`nn.Sequential(a, b)` of modules written out: each held under its position. (One
    argument not a module, such as an `OrderedDict` whose keys are not known, names its
    modules otherwise.)"""
    if call.keywords or len(args) != len(call.args):
        return None
    if all(value.kind is Kind.MODULE for value in args):
        return Indexing.BY_POSITION
    return None


def _unpacked_indexing(call: ast.Call, args: list[Value]) -> Indexing | None:
    """`nn.Sequential(*layers, head)`: its modules by position when every unpacked list is
    known element by element; under some index when one is known only by what each of its
    items is (a comprehension); not known for `nn.Sequential(OrderedDict(...))` (its keys
    name the modules)."""
    if call.keywords or len(args) != len(call.args):
        return None
    if not any(isinstance(expr, ast.Starred) for expr in call.args):
        return None
    indexing = Indexing.BY_POSITION
    for expr, value in zip(call.args, args, strict=True):
        if not isinstance(expr, ast.Starred):
            continue
        if value.items is not None and value.elements is None:
            indexing = Indexing.SOME_INDEX
        elif value.elements is None:
            return None
    return indexing


def _module_list_indexing(call: ast.Call, args: list[Value]) -> Indexing | None:
    """`nn.ModuleList([a, b])` (or `nn.ModuleList()`): by position; `nn.ModuleList([Block()
    for _ in range(n)])`: each item under some index."""
    if _written_out_count(call, args) is not None:
        return Indexing.BY_POSITION
    if _module_list_children(call, args) is not None:
        return Indexing.SOME_INDEX
    return None


def _written_out_count(call: ast.Call, args: list[Value]) -> int | None:
    """How many modules `nn.ModuleList(<list>)` holds when the list is written out or known
    entry by entry (`[GraphConv(a, b), GraphConv(b, c)]`), 0 for `nn.ModuleList()`; None
    for a list whose length is not known (a comprehension, a list handed in)."""
    if not call.args and not call.keywords:
        return 0
    if len(call.args) != 1 or call.keywords or isinstance(call.args[0], ast.Starred) or not args:
        return None
    listed = args[0]
    if listed.kind is not Kind.SEQUENCE or listed.fields is not None or listed.items is not None:
        return None
    return None if listed.elements is None else len(listed.elements)


def _zero_gradient(call: ast.Call, description: str, result: Value) -> Value:
    """`torch.round(out)`: what requires grad now does so only through an op whose gradient
    is zero (`LossKind.ZERO_GRADIENT`)."""
    if result.grad is not Grad.TRACKED:
        return result
    return evolve(result, loss=Loss(LossKind.ZERO_GRADIENT, call, description))


def _converted(loss: Loss | None) -> bool:
    """Data a conversion of a tensor made (`.numpy()`, `.tolist()`, `np.asarray(t)`)."""
    return loss is not None and loss.kind is LossKind.CONVERSION


def _tracked_item(sequence: Value, depth: int = 3) -> Value | None:
    """A tensor that requires grad among a list's items, or the items of its nested lists
    (`losses.append(run)` of lists of losses): numpy converts them all."""
    parts = sequence.elements if sequence.elements is not None else (sequence.items,)
    for part in parts:
        if part is None:
            continue
        if part.kind is Kind.TENSOR and part.grad is Grad.TRACKED:
            return part
        if part.kind is Kind.SEQUENCE and depth > 1:
            found = _tracked_item(part, depth - 1)
            if found is not None:
                return found
    return None


def _inner_reason(wrapped: Value) -> Loss | None:
    """Why what a constructor wraps has no history: its own reason, or for a list of
    numbers, written out (`torch.Tensor([loss.item()])`) or appended to
    (`lps.append(out.item())`, its `items`: the join of every value appended), the first
    element's that is not a mere literal (the `.item()` that made the number)."""
    if wrapped.loss is not None or wrapped.kind is not Kind.SEQUENCE:
        return wrapped.loss
    held = wrapped.elements or ()
    for element in (*held, wrapped.items) if wrapped.items is not None else held:
        reason = element.loss
        if (
            element.grad is Grad.UNTRACKED
            and reason is not None
            and reason.kind is not LossKind.LITERAL
        ):
            return reason
    return None


def _instance_norm_kind(call: ast.Call, position: int) -> api.ModuleKind | None:
    """An InstanceNorm layer owns parameters with a literal `affine=True` and none when the
    flag is not given (its default is False); a flag not written as a literal leaves it
    unknown (None)."""
    flag: ast.expr | None = call.args[position] if len(call.args) > position else None
    for keyword in call.keywords:
        if keyword.arg == "affine":
            flag = keyword.value
        elif keyword.arg is None:
            return None  # `**options` may hold it
    if any(isinstance(a, ast.Starred) for a in call.args[: position + 1]):
        return None
    if flag is None:
        return api.ModuleKind(False, "tensor")
    if isinstance(flag, ast.Constant) and isinstance(flag.value, bool):
        return api.ModuleKind(flag.value, "tensor")
    return None


def _checked_output(value: Value) -> Value:
    """What decides a backward through `value`, the outputs given to `torch.autograd.grad`
    or `torch.autograd.backward`: torch checks every tensor of a sequence in order and
    raises at the first without a graph ("element i of tensors does not require grad"), so
    that element decides; otherwise the value as it is."""
    if value.kind is not Kind.SEQUENCE:
        return value
    if value.elements is not None:
        return next((e for e in value.elements if e.grad is Grad.UNTRACKED), value)
    if value.items is not None and value.items.grad is Grad.UNTRACKED:
        return value.items
    return value
