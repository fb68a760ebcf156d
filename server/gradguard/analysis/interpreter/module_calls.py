"""Calls of `nn.Module`s: torch's layers (by their table entries in `torch_api`) and
the modules of the file (through their `forward` summaries)."""

from __future__ import annotations

import ast
import dataclasses

from gradguard.analysis import activations, graph_inputs, libraries, shapes
from gradguard.analysis import graph as graphs
from gradguard.analysis import parameters as params
from gradguard.analysis import torch_api as api
from gradguard.analysis.call_sites import passed_arguments
from gradguard.analysis.events import InferenceSaved, InPlaceChange, LossInput, ModuleCall
from gradguard.analysis.graph import SavedNode, Saves
from gradguard.analysis.interpreter import contextual
from gradguard.analysis.interpreter.contextual import ContextRun
from gradguard.analysis.interpreter.environment import GradMode
from gradguard.analysis.interpreter.expressions import ExpressionEvaluator, shape_of
from gradguard.analysis.interpreter.methods import inherited_method
from gradguard.analysis.interpreter.reporting_helpers import calls_reporting_helper
from gradguard.analysis.interpreter.summary import FunctionSummary, self_attributes, with_rebound
from gradguard.analysis.interpreter.training_effects import restamp
from gradguard.analysis.model import (
    FunctionNode,
)
from gradguard.analysis.names import arguments_by_parameter, callee_name, dotted
from gradguard.analysis.node_cache import cached_by_node
from gradguard.analysis.values import (
    UNKNOWN,
    Grad,
    Kind,
    LayerClash,
    Loss,
    LossKind,
    ModuleRef,
    Value,
    evolve,
    input_or_result,
)
from gradguard.analysis.values.facets import ANY_OPTIMIZER
from gradguard.analysis.walk import module_nodes_of, walk

# An nn.Module known only from how it is used (`model.eval()`), of a class the file does not
# show: it owns parameters, its output's structure is unknown.
MODULE_BY_USE = ModuleRef(kind=api.ModuleKind(has_parameters=True, output=None))
# A torch optimizer known only from how it is used (`optimizer.step()` on a name of unknown
# value named like one): which parameters it holds is unknown.
OPTIMIZER_BY_USE = ANY_OPTIMIZER


@cached_by_node
def _rebound_attributes(tree: ast.Module) -> frozenset[str]:
    """Attribute names the file may rebind outside an `__init__` (`model.fc = ...`,
    `self.head = ...` in another method, `model.head[-1] = ...`); "*" when it calls
    `setattr` outside an `__init__`, which may rebind any."""
    names: set[str] = set()
    inits = [n for n in module_nodes_of(tree, ast.FunctionDef) if n.name == "__init__"]
    # What `__init__` does is building the layers (`setattr(self, f"layer_{i}", ...)` too).
    in_init = {id(n) for init in inits for n in walk(init)}
    # Parsed trees hold the ast classes themselves: a node's kind is its exact type, and a
    # context that is not Load is Store or Del.
    for node in module_nodes_of(tree, ast.Attribute, ast.Subscript, ast.Call):
        if type(node) is ast.Attribute:
            if type(node.ctx) is not ast.Load and id(node) not in in_init:
                names.add(node.attr)
        elif type(node) is ast.Subscript:
            if (
                type(node.ctx) is not ast.Load
                and type(node.value) is ast.Attribute
                and id(node) not in in_init
            ):
                names.add(node.value.attr)
        elif type(node) is ast.Call:
            func = node.func
            if type(func) is ast.Name and func.id == "setattr" and id(node) not in in_init:
                names.add("*")
    return frozenset(names)


def _layers_replaced(tree: ast.Module, forward: FunctionNode) -> bool:
    """Whether a layer `forward` runs (`self.<attr>`) may be swapped after `__init__`."""
    rebound = _rebound_attributes(tree)
    return "*" in rebound or bool(rebound & self_attributes(forward))


# `restamp` with this mode keeps the base value for every tensor the forward returns.
GRAD_OFF_FROZEN = GradMode(False)


def _frozen_output(base: Value, frozen: params.Freeze) -> Value:
    """What a frozen module computes from inputs that do not require grad: no history."""
    loss = Loss(LossKind.FROZEN, frozen.node, frozen.description)
    return Value(grad=Grad.UNTRACKED, kind=Kind.TENSOR, loss=loss, carries=base.carries)


_ENABLES_GRAD = frozenset({"enable_grad", "set_grad_enabled", "inference_mode"})


@cached_by_node
def _may_enable_grad(function: FunctionNode) -> bool:
    """True when the function may switch gradient recording on itself (`torch.enable_grad()`,
    `set_grad_enabled(...)`, `inference_mode(False)`; any mention counts). Code it calls is
    not searched: a helper run under no_grad that reaches such code through another call is
    a residual risk, documented in GG101."""
    for node in walk(function):
        name = node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", None)
        if name in _ENABLES_GRAD:
            return True
    return False


def _with_call_graph(
    output: Value,
    returned: Value,
    fresh: SavedNode,
    summary: FunctionSummary,
    inputs: frozenset[SavedNode],
) -> Value:
    """A local module's output with the graph of this call: each call builds its own graph,
    so one fresh node stands for the forward's, behind the inputs' own graph when the result
    is computed from them on every path. Elements of a returned tuple get the same node when
    `forward` computed them through a common node (an LSTM's output and state, two heads on
    one trunk), and nodes of their own when their graphs there are disjoint (an actor and a
    critic on separate layers: backpropagating one frees nothing the other needs)."""
    if returned.elements is not None and output.elements is not None:
        if len(returned.elements) != len(output.elements):
            return output
        branches = _branch_nodes(returned.elements, fresh)
        elements = tuple(
            _with_call_graph(out, ret, node, summary, inputs)
            for out, ret, node in zip(output.elements, returned.elements, branches, strict=True)
        )
        return evolve(output, elements=elements)
    if not returned.graph or output.grad is not Grad.TRACKED:
        return output
    graph = frozenset({fresh})
    if any(node in returned.graph for node in summary.input_nodes.values()):
        graph |= inputs
    return evolve(output, graph=graph)


def _branch_nodes(returned: tuple[Value, ...], fresh: SavedNode) -> list[SavedNode]:
    """One node per group of returned elements whose graphs in `forward` share a node
    (transitively): the first group's is `fresh`, every other group's a node of its own for
    the same call."""
    graphs = [_whole_graph(element) for element in returned]
    group = list(range(len(graphs)))

    def root(i: int) -> int:
        while group[i] != i:
            i = group[i]
        return i

    for i, graph in enumerate(graphs):
        for j in range(i):
            if graph & graphs[j]:
                group[root(i)] = root(j)
    nodes: dict[int, SavedNode] = {}
    found: list[SavedNode] = []
    for i in range(len(graphs)):
        key = root(i)
        if key not in nodes:
            nodes[key] = fresh if not nodes else SavedNode(fresh.node, fresh.saves, fresh.given)
        found.append(nodes[key])
    return found


def _whole_graph(value: Value) -> frozenset[SavedNode]:
    """The operations in the graph of a value and of every element it holds (not the
    parameters' stand-ins: two results computed from one input share the input's graph,
    which the call's own `inputs` stand for, not a node of `forward`)."""
    graph = graph_inputs.own_nodes(value.graph)
    for element in value.elements or ():
        graph |= _whole_graph(element)
    return graph


def _without_grad(inputs: Value) -> bool:
    """What a module is given certainly does not require grad: no history, or batch data
    drawn from a data source (a DataLoader never yields tensors that require grad; see
    `gradguard.analysis.batches`). Through a frozen module such inputs give no history."""
    return inputs.grad is Grad.UNTRACKED or (inputs.batch and inputs.grad is Grad.UNKNOWN)


def _shaped(spec: object, leaf: Value) -> Value:
    """Build a value with the nested tuple structure `spec` whose leaves are `leaf`; a
    library `ModelOutput` is a mapping whose known fields are `leaf`."""
    if isinstance(spec, tuple):
        return Value(kind=Kind.SEQUENCE, elements=tuple(_shaped(s, leaf) for s in spec))
    if isinstance(spec, libraries.ModelOutput):
        return Value(kind=Kind.MAPPING, elements=(leaf,) * len(spec.fields), fields=spec.fields)
    return leaf


def _first_shaped(result: Value, shape: shapes.Shape) -> Value:
    """A layer's tuple result whose first element has a known `shape` (the output of
    nn.GRU/LSTM/RNN, beside its hidden state)."""
    if result.kind is not Kind.SEQUENCE or not result.elements or not shape.known:
        return result
    first = evolve(result.elements[0], shape=shape)
    return evolve(result, elements=(first, *result.elements[1:]))


def _dropout_layer_output(
    call: ast.Call, module: ModuleRef, args: list[Value], base: Value
) -> Value:
    """What a dropout layer of `api.DROPOUT_LAYERS_RETURNING_INPUT` called on one tensor
    gives: in eval mode (or built with `p=0`) its input object itself, else `base`, computed
    from it; which one is not known here (its mode is not followed), so what holds for
    both."""
    qualified = module.qualified or ""
    if (
        not qualified.startswith("torch.nn.")
        or qualified.rsplit(".", 1)[-1] not in api.DROPOUT_LAYERS_RETURNING_INPUT
        or len(call.args) != 1
        or call.keywords
        or isinstance(call.args[0], ast.Starred)
        or not args
    ):
        return base
    return input_or_result(args[0], base)


@cached_by_node
def _names_read(function: FunctionNode) -> frozenset[str]:
    """Every name the function (nested code included) reads."""
    return frozenset(
        n.id for n in walk(function) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
    )


def _used_arguments(forward: FunctionNode, call: ast.Call, args: list[Value]) -> list[Value]:
    """The argument values whose matching `forward` parameter is actually read."""
    params = [p.arg for p in (*forward.args.posonlyargs, *forward.args.args)][1:]
    read = _names_read(forward)
    if forward.args.vararg is not None or forward.args.kwarg is not None:
        return args
    used: list[Value] = []
    for index, value in enumerate(args[: len(call.args)]):
        if index >= len(params) or params[index] in read:
            used.append(value)
    for kw, value in zip(call.keywords, args[len(call.args) :], strict=False):
        if kw.arg is None or kw.arg in read:
            used.append(value)
    return used


class ModuleCalls(ExpressionEvaluator):
    """What calling a module does: its output's history, the graph node that saves its
    parameters, frozen layers, loss inputs, and state the module's `forward` carries."""

    def arguments(self, call: ast.Call) -> list[Value]:
        """Evaluate positional and keyword arguments in order."""
        values = [self.eval(arg) for arg in call.args]
        values.extend(self.eval(kw.value) for kw in call.keywords)
        return values

    def _input_changed_in_place(
        self, call: ast.Call, module: ModuleRef, args: list[Value], *, training: bool
    ) -> None:
        """A torch.nn layer built with `inplace=True`, or an nn.Sequential starting with one,
        changes its first argument in place when called (dropout only in training mode)."""
        if not call.args or not args or isinstance(call.args[0], ast.Starred):
            return
        if graphs.changes_input_in_place(module.changes_input, training=training):
            assert module.changes_input is not None
            layer = module.changes_input.rsplit(".", 1)[-1]
            self.argument_changed_in_place(call, call.args[0], args[0], layer)
        elif module.inplace and graphs.changes_input_in_place(module.qualified, training=training):
            # Built with `inplace=<a name>`: maybe in place, which no graph node may rely on.
            self.modified_in_place(call, call.args[0], args[0])

    def argument_changed_in_place(
        self, call: ast.Call, target: ast.expr, value: Value, operation: str
    ) -> None:
        """`value` (the expression `target`) changed in place by `call`, as by an in-place
        tensor method: a layer built with `inplace=True` (`operation` is its class name), a
        functional form (`F.relu(w, inplace=True)`: "relu"; `torch.relu_(w)`: "relu_")."""
        if (site := self.site(call, target, value)) is not None:
            self.emit(InPlaceChange(operation, **site))
        self.modified_in_place(call, target, value)

    def module_call(
        self,
        call: ast.Call,
        module: ModuleRef,
        args: list[Value],
        frozen: params.Freeze | None = None,
    ) -> Value:
        """`model(x)`: outputs follow the module's kind and the grad mode."""
        if (site := self.site(call, call.func, Value(kind=Kind.MODULE, module=module))) is not None:
            self.emit(ModuleCall(module.qualified or "", **site))
        if module.steps is not None and self.mode.enabled is True and len(args) == 1:
            return self._steps_output(call, module.steps, args)
        return self._module_output(call, module, args, frozen)

    def _steps_output(self, call: ast.Call, steps: tuple[Value, ...], args: list[Value]) -> Value:
        """An nn.Sequential holding module classes of this file (see `ModuleRef.steps`): each
        layer's call in turn, seen at the container's call (one event, the container's), the
        output of one the input of the next. A torch.nn layer after the first computes from
        an output no name holds: only its autograd state and shape are followed."""
        output = args[0]
        for index, step in enumerate(steps):
            ref = step.module
            assert ref is not None
            if index == 0 or ref.local is not None:
                output = self._module_output(call, ref, [output], step.frozen)
                continue
            kind = ref.kind or api.nn_module_kind(ref.qualified or "")
            assert kind is not None
            result = self.tensor_op(call, [output])
            if kind.has_parameters and not self.module.freezes_parameters:
                result = evolve(result, grad=Grad.TRACKED, loss=None)
            elif kind.has_parameters and result.grad is Grad.UNTRACKED:
                result = evolve(UNKNOWN, kind=Kind.TENSOR)
            if ref.layer is not None:
                result = evolve(result, shape=ref.layer.output(shape_of(output)))
            output = result
        return output

    def _module_output(
        self,
        call: ast.Call,
        module: ModuleRef,
        args: list[Value],
        frozen: params.Freeze | None = None,
    ) -> Value:
        """What calling `module` at `call` with `args` returns (see `module_call`)."""
        if module.qualified is not None:
            class_name = module.qualified.rsplit(".", 1)[-1]
            loss_name = api.LOSS_MODULES.get(class_name)
            if loss_name is not None and module.qualified.startswith("torch.nn."):
                self._record_loss_input(call, loss_name, args)
            if class_name in api.TARGET_LOSS_MODULES and module.qualified.startswith("torch.nn."):
                args = target_held_constant(call, args)
            kind = module.kind or api.nn_module_kind(module.qualified)
            training = self.module.always_training
            if kind is None or kind.output is None:
                self._input_changed_in_place(call, module, args, training=training)
                self.taint_arguments(call)
                if self.mode.enabled is False:
                    return evolve(self.tensor_op(call, args), kind=Kind.UNKNOWN)
                return UNKNOWN
            owner = dotted(call.func)
            owns_graph = kind.has_parameters and not self.may_be_frozen(
                owner, Value(kind=Kind.MODULE, module=module)
            )
            self._note_module_inputs(call, module, owns_graph, args)
            base = self.tensor_op(call, args)
            if owns_graph and self.mode.enabled is True:
                if kind.parameters_known or base.grad is Grad.TRACKED:
                    base = evolve(base, grad=Grad.TRACKED, loss=None)
                else:  # maybe a layer with parameters, maybe one without: not known
                    base = evolve(UNKNOWN, kind=base.kind)
            elif kind.has_parameters and self.mode.enabled is True and _without_grad(base):
                # The file freezes something: this module's output requires grad unless its
                # parameters are the frozen ones, which only a certain freeze tells.
                base = _frozen_output(base, frozen) if frozen else evolve(UNKNOWN, kind=base.kind)
            self._input_changed_in_place(call, module, args, training=training)
            saves = graphs.module_saves(module.qualified, inplace=module.inplace)
            if saves is None and base.grad is Grad.TRACKED and self._keeps_output(call, module):
                # (Only for an output certainly requiring grad: whether a frozen container's
                # output is kept depends on its input, which `given` stand-ins would defer.)
                saves = Saves.OUTPUT
            if saves is None and kind.has_parameters:
                saves = Saves.OTHER
            exprs = list(call.args)
            base = self.saving_op(call, base, saves, args, exprs, inputs_saved=owns_graph)
            for clash in module.clashes:
                if (clash.params_before and owns_graph) or (
                    bool(args) and args[0].grad is Grad.TRACKED
                ):
                    base = self._layers_clash(call, clash, base, training=training)
            output_shape = shapes.UNKNOWN_SHAPE
            if module.layer is not None and call.args:
                inputs = [shape_of(a) for a in args[: len(call.args)]] + [shapes.UNKNOWN_SHAPE]
                integer = len(call.args) > 1 and len(args) > 1 and args[1].integer_dtype
                output_shape = module.layer.output(inputs[0], inputs[1], integer_target=integer)
            if kind.output == "tensor" and module.layer is not None and call.args:
                base = evolve(base, shape=output_shape)
            if kind.has_parameters:
                base = self.inference_result(base)
            if kind.output == "tensor":
                base = evolve(base, activation=activations.of_module_call(call, module))
            base = _dropout_layer_output(call, module, args, base)
            return _first_shaped(_shaped(kind.output, base), output_shape)
        if module is MODULE_BY_USE:
            # A module of unknown class (see `_module_by_use`): its parameters require grad
            # unless this file freezes something; what it returns is a tensor or a structure
            # of them, so only the grad mode is known of it.
            self.taint_arguments(call)
            if self.mode.enabled is False:
                # Under inference_mode its outputs are computed with its parameters, so newly
                # allocated: inference tensors (checked against torch 2.13.0).
                inference = self.mode.off is not None and self.mode.off.inference
                return evolve(self.tensor_op(call, args), kind=Kind.UNKNOWN, inference=inference)
            if self.mode.enabled is True and not self.module.freezes_parameters:
                # Its parameters take part in ops that keep tensors for backward (a layer
                # keeps its input to compute its weight's gradient): one graph node of this
                # call stands for them, which a backward() frees.
                # What it is given flows into its output: so do their graphs.
                node = SavedNode(call, Saves.OTHER)
                inputs_graph = frozenset().union(*(a.graph for a in args))
                return Value(grad=Grad.TRACKED, kind=Kind.UNKNOWN, graph=inputs_graph | {node})
            return UNKNOWN
        if module.local is not None:
            forward = next(
                (
                    s
                    for s in module.local.node.body
                    if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef) and s.name == "forward"
                ),
                None,
            )
            if forward is None:  # `forward` of a base class of the file
                defining = self.module.owner_of(module.local.node)
                forward = inherited_method(defining, module.local.node, "forward")
            if forward is None:
                self.taint_arguments(call)
                return UNKNOWN
            summary = self.module.instance_summary(forward, module.local)
            used = _used_arguments(forward, call, args)
            base = self.tensor_op(call, used)
            state = self._module_state_in(call, summary)
            if state:
                base = evolve(base, carries=base.carries | state)
            self._module_state_out(call, summary, base)
            if frozen is not None and self.mode.enabled is True and _without_grad(base):
                return restamp(summary.returned, _frozen_output(base, frozen), GRAD_OFF_FROZEN)
            output = restamp(summary.returned, base, self.mode)
            if output.kind is Kind.TENSOR and summary.returned.kind is Kind.TENSOR:
                # Shape facts of `forward` hold for any input: its parameters are unknown there.
                output = evolve(output, shape=summary.returned.shape)
            output = self._forward_activations(output, summary.returned, forward)
            if summary.returned.kind is Kind.TENSOR and summary.returned.graph:
                # Computed by operations that saved tensors: newly allocated on every call,
                # so an inference tensor under torch.inference_mode().
                output = self.inference_result(output)
            given = graph_inputs.call_inputs(
                forward,
                summary.input_nodes,
                call,
                args,
                skip_self=True,
                grad_on=self.mode.enabled is True,
            )
            if output.grad is Grad.UNKNOWN and summary.returned.graph & given.tracked:
                # Computed from an input that requires grad on every path: so does the output.
                output = evolve(output, grad=Grad.TRACKED, kind=Kind.TENSOR)
            fresh = SavedNode(call, Saves.OTHER)
            output = _with_call_graph(output, summary.returned, fresh, summary, base.graph)
            if self.mode.enabled is True:
                output = graph_inputs.with_saved_output(output, summary.returned, call, given)
            if summary.rebound and self.mode.enabled is True:
                passed = passed_arguments(forward, call, args, skip_self=True) or {}
                output = with_rebound(output, summary, set(passed))
            if summary.returned.graph and output.grad is Grad.TRACKED:
                changes = graph_inputs.realised_changes(summary.changed_in_result, given)
                realised = dataclasses.replace(summary, changed_in_result=changes)
                self._result_changed_in_place(fresh, realised, realised=True)
            elif summary.changed_in_result:
                output = self._tuple_changed_in_place(call, output, summary, given)
            self.arguments_changed_in_place(forward, call, skip_self=True)
            return self.in_context(forward, call, args, output, skip_self=True)
        self.taint_arguments(call)
        return UNKNOWN

    def _keeps_output(self, call: ast.Call, module: ModuleRef) -> bool:
        """A call of an nn.Sequential whose last layer keeps its own result (see
        `ModuleRef.saves_output`), built right there or called by a name no code of the
        file may change as a container (`append`, `insert`, `add_module`, an item
        stored...)."""
        if isinstance(call.func, ast.Call):
            return module.saves_output  # built right here (`nn.Sequential(...)(x)`)
        held = callee_name(call.func)
        return (
            module.saves_output
            and held is not None
            and not self.module.container_may_change(call.func)
        )

    def in_context(
        self,
        function: FunctionNode,
        call: ast.Call,
        args: list[Value],
        result: Value,
        *,
        skip_self: bool,
    ) -> Value:
        """`result` of calling a function of the file, with the history its summary left
        unknown taken from a run with this call's arguments (see `contextual`)."""
        if self.mode.enabled is not True:
            return result
        passed = passed_arguments(function, call, args, skip_self=skip_self)
        if passed is None:
            return result
        passed = {**passed, **self.frozen_layers_passed(function, call, skip_self=skip_self)}
        if contextual.wants_context(function, result, passed) or (
            contextual.informative(passed) and calls_reporting_helper(self.module, function)
        ):
            found = self.module.result_in_context(function, call, passed, self.mode)
        elif self._mode_unknown_to(function) and contextual.unknown_history(result):
            found = self.module.result_in_mode(function, call, self.mode)
        else:
            return result
        if found is None:
            return result
        if found.inference_saved:
            self._inference_arguments_saved(function, call, passed, found, skip_self=skip_self)
        refined = contextual.refined(result, found.returned)
        return contextual.with_run_graph(refined, found.returned, call, passed)

    def frozen_layers_passed(
        self, function: FunctionNode, call: ast.Call, *, skip_self: bool, receiver: bool = True
    ) -> dict[str, Value]:
        """Layers of the modules `call` hands `function` that are frozen here
        (`model.embeddings` after `model.embeddings.requires_grad_(False)`), under the keys
        the function reads them by: `self.embeddings` for the object a method runs on (with
        `receiver`), `net.embeddings` for a parameter `net` given `model`. What a run of it
        with this call's arguments starts with: the argument is the very object, so its
        layers are the frozen ones (a function that rebinds the parameter forgets them, as
        any binding forgets the keys below it)."""
        if self.env is None or not self.module.frozen_facts:
            return {}
        spec = function.args
        positional = [*spec.posonlyargs, *spec.args]
        named = {p.arg for p in (*positional, *spec.kwonlyargs)}
        pairs: list[tuple[str, ast.expr]] = []
        if skip_self and receiver and positional:
            func = call.func
            receiver_expr = (
                func.value
                if isinstance(func, ast.Attribute) and func.attr == function.name
                else func
            )
            pairs.append((positional[0].arg, receiver_expr))
        by_parameter = arguments_by_parameter(function, call, skip_self=skip_self) or {}
        pairs.extend((name, expr) for name, expr in by_parameter.items() if name in named)
        found: dict[str, Value] = {}
        for parameter, expr in pairs:
            key = dotted(expr)
            if key is None:
                continue
            prefix = key + "."
            found.update(
                (parameter + name[len(key) :], value)
                for name, value in self.env.items()
                if name.startswith(prefix)
                and value.frozen is not None
                and value.kind is Kind.MODULE
            )
        return found

    def _mode_unknown_to(self, function: FunctionNode) -> bool:
        """Whether `function`'s summary ran under a grad mode its callers left unknown (some
        call it with recording on, others off)."""
        callers = self.module.parameter_facts.get(id(function))
        return callers is not None and callers.grad_enabled is not True

    def _inference_arguments_saved(
        self,
        function: FunctionNode,
        call: ast.Call,
        passed: dict[str, Value],
        found: ContextRun,
        *,
        skip_self: bool,
    ) -> None:
        """An inference tensor this call passes that the function's run with it saves for
        backward (`self.policy(batch["obs"])` whose `forward` gives it to an `nn.Linear`):
        reported here, where the tensor enters, with the operation inside (`through`). The
        run is kept per argument facts, so its tensor is told by equal facts; two arguments
        with the same facts leave it unknown which one was saved. Not when every caller
        passes an inference tensor there and every call runs with recording on: the
        function's own analysis reports it inside. When the callers' modes differ
        (`logps(ref, ids)` under no_grad, `logps(model, ids)` in the training step) the
        function's own analysis runs under an unknown mode and reports nothing, and this
        call's run, in this call's mode, is what knows the tensor is saved."""
        by_parameter = arguments_by_parameter(function, call, skip_self=skip_self) or {}
        callers = self.module.parameter_facts.get(id(function))
        for inner in found.inference_saved:
            matching = [name for name, value in passed.items() if value == inner.value]
            expr = by_parameter.get(matching[0]) if len(matching) == 1 else None
            if expr is None:
                continue
            known = callers.parameters.get(matching[0]) if callers is not None else None
            if known is not None and known.inference and not self._mode_unknown_to(function):
                continue
            value = passed[matching[0]]
            if (site := self.site(call, expr, value)) is not None:
                self.emit(
                    InferenceSaved(
                        inner.operation,
                        inner.grad_operand,
                        through=inner.through or inner.node,
                        **site,
                    )
                )

    def _tuple_changed_in_place(
        self,
        call: ast.Call,
        output: Value,
        summary: FunctionSummary,
        given: graph_inputs.CallInputs,
    ) -> Value:
        """`recon, mu, logvar = model(x)` where `forward` changed in place a tensor saved by
        the graph of one returned element (`std.mul_(eps)` after `std = exp(...)`, behind
        `recon`): that element gets a node of its own standing for those changes, so a
        backward through it (and not one through `mu` alone) trips over them."""
        returned = summary.returned
        if (
            returned.elements is None
            or output.elements is None
            or len(returned.elements) != len(output.elements)
        ):
            return output
        elements: list[Value] = []
        for out, ret in zip(output.elements, returned.elements, strict=True):
            reaching = tuple(c for c in summary.changed_in_result if c.saved_by & ret.graph)
            if reaching and out.grad is Grad.TRACKED:
                own = SavedNode(call, Saves.OTHER)
                changes = graph_inputs.realised_changes(reaching, given)
                realised = dataclasses.replace(summary, changed_in_result=changes)
                self._result_changed_in_place(own, realised, realised=True)
                out = evolve(out, graph=out.graph | {own})
            elements.append(out)
        return evolve(output, elements=tuple(elements))

    def _layers_clash(
        self, call: ast.Call, clash: LayerClash, base: Value, *, training: bool
    ) -> Value:
        """An nn.Sequential call whose in-place layer changes what the layer before it
        saved: record the change, and let the output's history run through that layer
        (a node of this call: each call builds it afresh)."""
        if (
            base.grad is not Grad.TRACKED
            or self.mode.enabled is not True
            or not graphs.changes_input_in_place(clash.changer_class, training=training)
        ):
            return base
        saved = SavedNode(call, Saves.OUTPUT)
        kept = Value(Grad.TRACKED, Kind.TENSOR, saved_in=frozenset({saved}))
        self.modified_in_place(clash.changer, clash.saver, kept)
        return evolve(base, graph=base.graph | {saved})

    def _record_loss_input(self, call: ast.Call, loss: str, args: list[Value]) -> None:
        """`criterion(out, y)`, `F.cross_entropy(input=out, target=y)`: the value a loss
        takes as `input`, for the rules about logits and probabilities."""
        if any(isinstance(a, ast.Starred) for a in call.args):
            return
        target = call.args[0] if call.args else None
        value = args[0] if call.args and args else None
        for index, kw in enumerate(call.keywords):
            if kw.arg == "input" and target is None:
                target, value = kw.value, args[len(call.args) + index]
        if (
            target is not None
            and value is not None
            and (site := self.site(call, target, value)) is not None
        ):
            self.emit(LossInput(loss, **site))

    def _forward_activations(self, output: Value, returned: Value, forward: FunctionNode) -> Value:
        """The activation a local module's `forward` ends with holds for its output, and
        each element's for a returned tuple (`return validity, self.softmax(label)`) or dict
        (`return {"logits": logits, "probs": F.softmax(logits, -1)}`); unless
        it is a layer's and a layer it runs may be swapped from outside (`model.fc =
        nn.Identity()`)."""
        if output.kind is Kind.TENSOR and returned.kind is Kind.TENSOR:
            ends_with = returned.activation
            if ends_with is not None and (
                ends_with.functional or not _layers_replaced(self.module.tree, forward)
            ):
                return evolve(output, activation=ends_with)
            return output
        elements, returned_elements = output.elements, returned.elements
        if (
            output.kind not in (Kind.SEQUENCE, Kind.MAPPING)
            or returned.kind is not output.kind
            or output.fields != returned.fields
            or elements is None
            or returned_elements is None
            or len(elements) != len(returned_elements)
        ):
            return output
        marked = tuple(
            self._forward_activations(element, known, forward)
            for element, known in zip(elements, returned_elements, strict=True)
        )
        if all(a is b for a, b in zip(marked, elements, strict=True)):
            return output
        return evolve(output, elements=marked)

    def _forget_activation(self, target: ast.expr) -> None:
        """`target` was changed in place: whatever activation made it is no longer certain."""
        key = dotted(target)
        if key is not None and self.env is not None and key in self.env:
            self.env[key] = activations.cleared(self.env[key])

    def _note_module_inputs(
        self, call: ast.Call, module: ModuleRef, owns_graph: bool, args: list[Value]
    ) -> None:
        """Inference tensors a torch.nn module would save for backward (see GG106)."""
        name = (module.qualified or "").rsplit(".", 1)[-1]
        if name in api.SAVES_OPERANDS_MODULES:
            self.note_saved_operands(call, module.qualified or name, call.args, args)
            return
        saves = module.saves_input or name in api.SAVES_INPUT_MODULES
        if not (saves and owns_graph and call.args and args and self.mode.enabled is True):
            return
        first = call.args[0]
        if args[0].inference and not isinstance(first, ast.Starred):
            parameters = Value(grad=Grad.TRACKED, kind=Kind.MODULE, module=module)
            if (site := self.site(call, first, args[0])) is not None:
                self.emit(InferenceSaved(module.qualified or name, parameters, **site))

    def _called_under_mode(
        self,
        function: FunctionNode,
        call: ast.Call,
        result: Value,
        args: list[Value],
        *,
        skip_self: bool,
    ) -> Value:
        """A function of the file called with gradient recording certainly off computes
        without recording too, unless it switches recording back on itself. Under
        inference_mode, which of the tensors it returns it allocated (inference tensors) and
        which it was given is told by a run of it in this mode (see `contextual`)."""
        off = self.mode.off
        if self.mode.enabled is not False or off is None or _may_enable_grad(function):
            return result
        stamped = restamp(result, self.tensor_op(call, []), self.mode)
        if not off.inference:
            return stamped
        passed = passed_arguments(function, call, args, skip_self=skip_self)
        found = None
        if passed is not None:
            found = self.module.result_in_context(function, call, passed, self.mode)
        return contextual.with_inference(stamped, found.returned) if found is not None else stamped


def target_held_constant(call: ast.Call, args: list[Value]) -> list[Value]:
    """The arguments of a loss call (`F.mse_loss(q, target)`, `criterion(out, y)`, one of
    `api.TARGET_LOSS_FUNCTIONS` or `api.TARGET_LOSS_MODULES`) with the copies of tensors
    with history that its target holds forgotten (`Autograd.copies`): a target is constant
    by design (`torch.tensor(r + gamma * q_next)`); only what it is compared with is meant
    to carry gradients."""
    if any(isinstance(a, ast.Starred) for a in call.args):
        return args
    names = [None] * len(call.args) + [kw.arg for kw in call.keywords]
    target = (
        1 if len(call.args) > 1 else next((i for i, n in enumerate(names) if n == "target"), -1)
    )
    if not 0 <= target < len(args) or not args[target].copies:
        return args
    held = list(args)
    held[target] = evolve(args[target], copies=frozenset())
    return held
