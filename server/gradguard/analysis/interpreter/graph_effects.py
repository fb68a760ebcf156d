"""The saved-tensor graph as the interpreter sees it: which operations save which
tensors for backward, in-place changes of saved tensors, and what a backward frees."""

from __future__ import annotations

import ast

from gradguard.analysis import torch_api as api
from gradguard.analysis.changed_arguments import changed_parameters
from gradguard.analysis.events import InferenceSaved
from gradguard.analysis.graph import GRAPH_STATE_KEY, SavedNode, Saves
from gradguard.analysis.graph_inputs import is_stand_in, is_state_stand_in, own_nodes
from gradguard.analysis.interpreter.state import InterpreterState
from gradguard.analysis.model import (
    LIGHTNING_BACKWARD,
    BackwardCall,
    FunctionNode,
    InPlaceOnSaved,
)
from gradguard.analysis.names import arguments_by_parameter, dotted, passed_keyword
from gradguard.analysis.values import (
    Grad,
    Kind,
    Value,
    evolve,
)


class GraphEffects(InterpreterState):
    """Transfer functions of the saved-tensor graph (see `gradguard.analysis.graph`)."""

    def inference_result(self, value: Value) -> Value:
        """A tensor newly allocated under torch.inference_mode() is an inference tensor."""
        off = self.mode.off
        if self.mode.enabled is False and off is not None and off.inference:
            if value.kind is Kind.TENSOR:
                return evolve(value, inference=True)
            if value.elements is not None:
                elements = tuple(self.inference_result(e) for e in value.elements)
                return evolve(value, elements=elements)
        return value

    def note_saved_operands(
        self, node: ast.AST, name: str, exprs: list[ast.expr], values: list[Value]
    ) -> None:
        """A binary op that saves each operand for the other's gradient: record an inference
        tensor in it when the other operand requires grad (autograd will refuse to save it)."""
        if self.mode.enabled is not True or len(exprs) < 2 or len(values) < 2:
            return
        for index in (0, 1):
            value, other = values[index], values[1 - index]
            expr = exprs[index]
            requires_grad = other.kind is Kind.TENSOR and other.grad is Grad.TRACKED
            if (
                value.inference
                and requires_grad
                and not isinstance(expr, ast.Starred)
                and (site := self.site(node, expr, value)) is not None
            ):
                self.emit(InferenceSaved(name, other, **site))

    def saving_op(
        self,
        node: ast.AST,
        result: Value,
        saves: Saves | None,
        inputs: list[Value],
        exprs: list[ast.expr],
        *,
        inputs_saved: bool = False,
        tensor_operands: bool = False,
    ) -> Value:
        """The result of an operation that saves tensors for backward: a new graph node on
        its history; the result itself is saved (`saves` OUTPUT), or each input that another
        input's requires_grad makes autograd keep (INPUTS; all of them with `inputs_saved`),
        or the first input (INPUT). `tensor_operands`: the op accepts only tensors
        (`torch.bmm`), so an operand it kept is a tensor, whatever it was known as."""
        if saves is None or self.mode.enabled is not True:
            return result
        if result.grad is not Grad.TRACKED:
            return self._saving_if_given(node, result, saves, inputs)
        saved = SavedNode(node, saves)
        if saves is Saves.INPUTS:
            for index, expr in enumerate(exprs):
                others = (v for i, v in enumerate(inputs) if i != index)
                if inputs_saved or any(v.grad is Grad.TRACKED for v in others):
                    self._mark_saved(expr, saved, layer_input=inputs_saved or tensor_operands)
        elif saves is Saves.INPUT and exprs and not isinstance(exprs[0], ast.Starred):
            self._mark_saved(exprs[0], saved)
        own = frozenset({saved}) if saves is Saves.OUTPUT else frozenset()
        return evolve(result, graph=result.graph | {saved}, saved_in=own)

    def shares_version(self, base: Value, view: Value) -> Value:
        """A certain view of `base` shares its storage and version counter: an in-place change
        through the view is a change of every tensor a graph node kept of the base (checked
        against torch 2.13.0: `y = sigmoid(x); v = y.view(-1); v += 1` fails the backward)."""
        if not base.saved_in or view.kind is not Kind.TENSOR or view.saved_in == base.saved_in:
            return view
        return evolve(view, saved_in=view.saved_in | base.saved_in)

    def in_place_result(self, current: Value, result: Value) -> Value:
        """The tensor `current` after an in-place op computing `result` from it: the same
        tensor, still a leaf unless it did not require grad and now does (checked against
        torch 2.13.0: after `x += layer(y)` or `x.add_(layer(y))` on a plain tensor,
        `x.is_leaf` is False and a later `x *= 2` runs)."""
        gains = current.grad is not Grad.TRACKED and result.grad is Grad.TRACKED
        return evolve(result, leaf=current.leaf and not gains)

    def saved_meanwhile(self, target: ast.expr, current: Value) -> Value:
        """`current`, the value `x += f(x)` read of its target before evaluating `f(x)`, with
        the graph nodes that evaluation made keep it (`x += attn(norm(x))`: `norm` kept
        `x`, and the add then changes it in place). A layer with parameters that accepted
        it shows it is a tensor, whatever it was known as."""
        key = dotted(target)
        now = self.env.get(key) if key is not None and self.env is not None else None
        if now is None or now.kind is not Kind.TENSOR or now.saved_in <= current.saved_in:
            return current
        if current.kind not in (Kind.TENSOR, Kind.UNKNOWN):
            return current
        return evolve(current, kind=Kind.TENSOR, saved_in=current.saved_in | now.saved_in)

    def _saving_if_given(
        self, node: ast.AST, result: Value, saves: Saves, inputs: list[Value]
    ) -> Value:
        """An op that keeps its own output, on inputs whose grad is not known here but that
        are computed from the function's parameters: it saves when one of those parameters
        requires grad, which a call can tell (see `graph_inputs.instantiate`)."""
        if saves is not Saves.OUTPUT or result.grad is not Grad.UNKNOWN:
            return result
        given = frozenset(
            n for v in inputs for n in v.graph if is_stand_in(n) and not is_state_stand_in(n)
        )
        if not given:
            return result
        saved = SavedNode(node, saves, given)
        return evolve(result, graph=result.graph | {saved}, saved_in=frozenset({saved}))

    def _mark_saved(self, expr: ast.expr, saved: SavedNode, *, layer_input: bool = False) -> None:
        """Remember that `saved` keeps the tensor bound to `expr` (a name or attribute, or a
        certain view of one: `x.transpose(1, 2)` shares `x`'s version counter). An input a
        layer with parameters, or an op taking only tensors, accepted (`layer_input`) is a
        tensor, whatever it was known as."""
        key = dotted(_viewed(expr))
        if key is None or self.env is None:
            return
        value = self.env.get(key)
        if value is not None and layer_input and value.kind is Kind.UNKNOWN:
            value = evolve(value, kind=Kind.TENSOR)
        # Loop-carried values keep their identity: it is how their reads are recognised (a
        # parameter's tag is no loop's).
        if (
            value is not None
            and value.kind is Kind.TENSOR
            and all(carry.loop is None for carry in value.carries)
        ):
            self.env[key] = evolve(value, saved_in=value.saved_in | {saved})

    def _graph_state(self) -> tuple[frozenset[SavedNode], frozenset[SavedNode]]:
        """Graph nodes certainly freed by a backward, and nodes whose saved tensors were
        certainly changed in place, at this point."""
        state = self.env.get(GRAPH_STATE_KEY) if self.env is not None else None
        if state is None:
            return frozenset(), frozenset()
        return state.graph, state.saved_in

    def _set_graph_state(self, freed: frozenset[SavedNode], modified: frozenset[SavedNode]) -> None:
        # A pseudo-variable, so every join of environments joins the state too (intersection:
        # only what holds on every path is certain).
        if self.env is not None:
            self.env[GRAPH_STATE_KEY] = Value(kind=Kind.OTHER, graph=freed, saved_in=modified)

    def modified_in_place(
        self, node: ast.AST, target: ast.expr, value: Value, *, inside: ast.AST | None = None
    ) -> None:
        """An in-place change of `value`: the graph nodes that saved it can no longer use it.
        `inside`: the change is made by the function `node` calls, at that node there."""
        value = self._as_on_first_pass(target, value)
        if not value.saved_in:
            return
        freed, modified = self._graph_state()
        self._set_graph_state(freed, modified | value.saved_in)
        if (self.record or self.kept_changes is not None) and self.stmt is not None:
            self.note_in_place_change(
                InPlaceOnSaved(
                    node, self.stmt, target, value, value.saved_in, self.function, inside
                )
            )

    def _as_on_first_pass(self, target: ast.expr, value: Value) -> Value:
        """`value`, bound to `target` at the top of a loop that carries it, with the tensors
        it held before the loop: a `for` loop that certainly runs (see `loop_entry`) reaches
        a statement run on every pass on its first pass too, where the name still holds
        what it held before the loop (`total = torch.sigmoid(w)`, then `for k in range(2):
        total.add_(k)` changes the kept output on the first pass). Only while the name is
        still bound to the loop's head value (nothing in the pass rebound it first)."""
        key = dotted(target)
        bound = self.env.get(key) if key is not None and self.env is not None else None
        if bound is None or not bound.carries:
            return value
        passes = self.every_iteration()
        before: frozenset[SavedNode] = frozenset()
        for carry in bound.carries:
            loop, initial = carry.loop, carry.initial
            if (
                loop is None
                or loop not in passes
                or loop not in self.entered_loops
                or self.heads.get(id(carry)) is not bound
                or initial is None
                or initial.kind is not Kind.TENSOR
            ):
                continue
            before |= initial.saved_in
        if before <= value.saved_in:
            return value
        return evolve(value, saved_in=value.saved_in | before)

    def arguments_changed_in_place(
        self, function: FunctionNode, call: ast.Call, *, skip_self: bool
    ) -> None:
        """`call` runs a function of the file that certainly writes into some of its
        parameters (see `changed_arguments`): each tensor passed for one of them, named
        here, is changed in place by the call."""
        changed = changed_parameters(function)
        if not changed or self.env is None:
            return
        passed = arguments_by_parameter(function, call, skip_self=skip_self) or {}
        for name, inside in changed.items():
            expr = passed.get(name)
            key = dotted(expr) if expr is not None else None
            value = self.env.get(key) if key is not None else None
            if expr is not None and value is not None and value.kind is Kind.TENSOR:
                self.modified_in_place(call, expr, value, inside=inside)

    def backpropagate(self, call: ast.Call, target: ast.expr, value: Value, via: str) -> None:
        """A backward()/autograd.grad() call: record it, then free the graph it ran through."""
        freed, modified = self._graph_state()
        # What a branch taken on some pass changed earlier in this pass, when the backward
        # runs on every pass (see `loop_passes`).
        for loop in self.every_iteration():
            modified |= self.changed_on_some_pass.get(loop, frozenset())
        # A backward that returns ran from a root that required grad, so whatever is known
        # of its grad here, it freed the graph nodes certainly on the root's history (each
        # made only where its result required grad, or a stand-in for a history that, if
        # there was one, the root certainly runs through); one on a root that certainly
        # does not require grad raises (GG101) and frees nothing.
        returns_from_a_graph = value.grad is not Grad.UNTRACKED
        frees = (
            returns_from_a_graph and via != "torch.autograd.grad" and self._frees_graph(call, via)
        )
        # (A forward's stand-in for its input is no graph of its own: see FunctionSummary.
        # A node that saves only when a parameter requires grad, `SavedNode.given`, is not
        # known to have saved anything here.)
        through = frozenset(n for n in own_nodes(value.graph) if not n.given)
        # The recorded value keeps only the operations: a stand-in is no graph of its own.
        recorded = evolve(value, graph=through) if through != value.graph else value
        through = through if returns_from_a_graph else frozenset()
        self.record_backward(
            call, target, recorded, via, frees, through & freed, through & modified
        )
        if frees and self.record and via != LIGHTNING_BACKWARD:
            # (The Trainer's backward of what `training_step` returns runs only under the
            # Trainer: a caller of the method itself gets the graph whole.)
            self.freeing_backwards.append((call, value.graph))
        if frees and not value.graph <= freed:
            self._set_graph_state(freed | value.graph, modified)

    def _frees_graph(self, call: ast.Call, via: str) -> bool:
        """Whether a backward call certainly frees its graph: no `retain_graph`, no
        `create_graph` (which implies retaining), no `inputs`, nothing positional for them."""
        positional = 1 if via == "backward" else 2
        if len(call.args) > positional or any(kw.arg is None for kw in call.keywords):
            return False
        if any(kw.arg not in api.BACKWARD_KEYWORDS for kw in call.keywords):
            # An unknown keyword (`retain_variables=True`, from before torch 0.4) makes the
            # call unknown, never "the default".
            return False
        if passed_keyword(call, "inputs") is not None:
            return False
        return not (
            self._flag_keyword(call, "retain_graph") or self._flag_keyword(call, "create_graph")
        )

    def record_backward(
        self,
        call: ast.Call,
        target: ast.expr,
        value: Value,
        via: str,
        frees: bool,
        through_freed: frozenset[SavedNode],
        through_modified: frozenset[SavedNode],
    ) -> None:
        """Remember a backward()/autograd.grad() call for the rules."""
        if not self.record or self.stmt is None:
            return
        loops = tuple(node for kind, node in self.frames if kind == "loop")
        self.module.analysis.backward_calls.append(
            BackwardCall(
                call=call,
                stmt=self.stmt,
                target=target,
                value=value,
                via=via,
                loops=loops,  # type: ignore[arg-type]
                every_iteration=self.every_iteration(),
                retain_graph=passed_keyword(call, "retain_graph"),
                function=self.function,
                frees_graph=frees,
                through_freed=through_freed,
                through_modified=through_modified,
            )
        )


def _viewed(expr: ast.expr) -> ast.expr:
    """The tensor `expr` is a certain view of, through view methods (`x.transpose(1, 2)
    .unsqueeze(0)` -> `x`) and basic indexing (`x[:, 0]` -> `x`); `expr` itself otherwise."""
    while True:
        if (
            isinstance(expr, ast.Call)
            and isinstance(expr.func, ast.Attribute)
            and expr.func.attr in api.CERTAIN_VIEW_METHODS
        ):
            expr = expr.func.value
        elif isinstance(expr, ast.Subscript) and _basic_index(expr.slice):
            expr = expr.value
        else:
            return expr


def _basic_index(index: ast.expr) -> bool:
    """An index made only of slices, int literals, `None` and `...`: indexing a tensor with
    it returns a view sharing the tensor's version counter (checked against torch 2.13.0:
    `b[:, 1] = F.softplus(b[:, 0])` fails the backward). A name may hold an index tensor,
    which copies, so it does not count."""
    parts = index.elts if isinstance(index, ast.Tuple) else [index]
    return all(
        isinstance(part, ast.Slice)
        or (isinstance(part, ast.Constant) and (part.value is None or part.value is Ellipsis))
        or (isinstance(part, ast.Constant) and type(part.value) is int)
        for part in parts
    )
