"""What the interpreter saw happen to known values: one class per kind of event, and an
index of them by kind.

Each event is an operation on a value the analysis knows (a tensor, a module, an
optimizer), recorded where it happens for the rules about single operations. Every kind
has the shared fields of `Event` (where it happened and what the receiver was) and only its
own fields beside them. Rules ask the index for one kind, `analysis.events.of(Conversion)`,
and get a `list[Conversion]`: a misspelt kind is a NameError (and a mypy error), never a
check that silently finds nothing.

Pure data: the interpreter records the events (`InterpreterState.record`), nothing here
computes anything.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypedDict, TypeVar, overload

from gradguard.analysis.values import Value

if TYPE_CHECKING:
    from gradguard.analysis.graph import SavedNode
    from gradguard.analysis.model import FunctionNode, LoopNode


@dataclass(frozen=True, eq=False, kw_only=True)
class Event:
    """The fields every event has.

    `node` is the operation (a call, an attribute, a statement), `stmt` the statement it is
    in, `target` the expression of the value operated on and `value` that value before the
    operation (the receiver of a method, the tensor read or changed). `grad_enabled` is the
    grad mode there (None when unknown), `function` the function it is in (None at module
    level) and `every_iteration` the enclosing loops whose every iteration runs it.
    `context` is the call whose run in context reported it (the function run once more with
    that call's arguments, `ModuleInterpreter.result_in_context`); None in the recorded pass.
    """

    node: ast.AST
    stmt: ast.stmt
    target: ast.expr
    value: Value
    grad_enabled: bool | None
    function: FunctionNode | None
    every_iteration: frozenset[LoopNode]
    context: ast.Call | None


class Site(TypedDict):
    """The shared fields of an event, for building one: `Conversion("item", **site)`."""

    node: ast.AST
    stmt: ast.stmt
    target: ast.expr
    value: Value
    grad_enabled: bool | None
    function: FunctionNode | None
    every_iteration: frozenset[LoopNode]
    context: ast.Call | None


@dataclass(frozen=True, eq=False)
class Conversion(Event):
    """A tensor turned into Python or numpy data: `x.item()`, `x.tolist()`, `x.numpy()`
    (`method` is that method), `x` handed to a numpy function or a plotting call that
    converts it through `Tensor.numpy()` (`np.array(x)`, `np.mean(x)`, `plt.plot(x)`:
    `method` is "array") or a list holding a tensor that requires grad handed to one
    (`method` is "array-items", `value` is that tensor, `target` the list)."""

    method: str


@dataclass(frozen=True, eq=False)
class InPlaceChange(Event):
    """A tensor changed in place: `x += ...` (`operator` is the `ast` operator's class name,
    "Add", "Sub"...), `x[i] = ...` ("setitem"), `x.add_(...)` (the method, "add_"), a
    function (`torch.relu_(x)`: "relu_"; `F.relu(x, inplace=True)`: "relu") or a layer built
    with `inplace=True`, alone or first in an `nn.Sequential` (its class name, "ReLU")."""

    operator: str


@dataclass(frozen=True, eq=False)
class AttributeSet(Event):
    """`x.attribute = ...` on a tensor (`x.requires_grad = True`, `x.data = ...`); `node` is
    the assigning statement."""

    attribute: str


@dataclass(frozen=True, eq=False)
class ForwardCall(Event):
    """`model.forward(...)` called directly on a known module."""


@dataclass(frozen=True, eq=False)
class OptimizerCall(Event):
    """A method called on a torch.optim optimizer: `opt.step()`, `opt.zero_grad()`,
    `opt.add_param_group(...)`... (`method` is its name)."""

    method: str


@dataclass(frozen=True, eq=False)
class GradRead(Event):
    """A read of `x.grad` on a tensor (`node` is the attribute). `bound` when the analysis
    saw `x.grad` assigned on some path before (or joined from a loop's later iterations):
    whether the read sees None then depends on the path."""

    bound: bool


@dataclass(frozen=True, eq=False)
class RequiresGradCall(Event):
    """`x.requires_grad_(...)` on a tensor (`node` is the call)."""


@dataclass(frozen=True, eq=False)
class IntegerGradRequest(Event):
    """A tensor of an integer or bool dtype asked to require grad where it is made:
    `torch.tensor(ids, requires_grad=True)` of known ints, `nn.Parameter(t)` of an integer
    `t` (`node` is the call, `target` its data argument, `value` the tensor made); or, when
    `in_place`, by `t.requires_grad_()` (or `requires_grad_(True)`) on a tensor `t` certainly
    of one (`node` is the call, `target` the receiver, `value` its value)."""

    in_place: bool = False


@dataclass(frozen=True, eq=False)
class OptimizedTensor(Event):
    """A tensor listed literally as an optimizer's parameters, `SGD([w, b], lr=...)`: one
    event per tensor (`target`), `optimizer` the optimizer's qualified name."""

    optimizer: str


@dataclass(frozen=True, eq=False)
class Accumulation(Event):
    """`total += x` with a tensor `x` (`totals[i] += x` too: the container is the total).
    `value` is the total before, `added` the value of `x`."""

    added: Value


@dataclass(frozen=True, eq=False)
class ModuleCall(Event):
    """`model(x)` on a known module (`node` is the call, `target` the callee expression,
    `value` the module). `layer_class` is its qualified torch.nn class, "" for a class of
    the file."""

    layer_class: str


@dataclass(frozen=True, eq=False)
class ModuleMethodCall(Event):
    """`model.embed(x)`: a method other than `forward` of a module class of the file, run
    on a known module (`node` is the call, `target` the receiver expression, `value` the
    module). What such a call saved for backward is `ParameterSaves.saved_by_method`'s."""

    method: str


@dataclass(frozen=True, eq=False)
class ModuleModeCall(Event):
    """`model.eval()` or `model.train()` on a known module (`method` is "eval" or
    "train")."""

    method: str


@dataclass(frozen=True, eq=False)
class Append(Event):
    """`xs.append(item)` on a list the analysis follows; `item` is the appended value."""

    item: Value


@dataclass(frozen=True, eq=False)
class StateAppend(Event):
    """`self.<attr>.append(item)` in a method, on an attribute whose value the analysis does
    not follow there (`value` unknown): a list the instance may keep from call to call (see
    `gradguard.analysis.kept_histories`); `item` is the appended value."""

    item: Value


@dataclass(frozen=True, eq=False)
class InferenceSaved(Event):
    """An inference tensor (`target`, `value`) handed to an operation that saves it for
    backward while `grad_operand`, the other operand or the module's parameters, requires
    grad: autograd refuses to save it. `operation` is the operator's `ast` class name
    ("Mult", "MatMult"...), the torch function's or the module's qualified name, or the
    tensor method as `.name()` (`x.mul(w)`: ".mul()"). `through` is set when the tensor is an
    argument of a call of a function of the file that saves it: the operation inside that
    function (`node` is then the call, `target` the argument)."""

    operation: str
    grad_operand: Value
    through: ast.AST | None = None


@dataclass(frozen=True, eq=False)
class LossInput(Event):
    """The `input` a classification loss is given: `criterion(out, y)` for a known
    torch.nn loss module or `F.cross_entropy(out, y)` (`target` is the input expression).
    `loss_function` is the functional name of the loss: "cross_entropy", "nll_loss",
    "binary_cross_entropy" or "binary_cross_entropy_with_logits"."""

    loss_function: str


@dataclass(frozen=True, eq=False)
class CheckpointInput(Event):
    """An argument `torch.utils.checkpoint.checkpoint(fn, x, y)` (or, when `sequential`,
    `checkpoint_sequential(seq, n, x)`) passes on to the checkpointed function: one event
    per argument (`target`), none when one is unpacked; `node` is the checkpoint call.
    `direct` is what calling `fn(x, y)` directly would return when `fn` is a known module,
    else None. `run` tells apart the runs of a helper run inside a run in context, which
    report under the outer call (`context`): one per set of arguments the helper is handed
    there (the first iteration of a loop in `forward`, the next ones); 0 for any other."""

    sequential: bool
    direct: Value | None
    run: int = 0


@dataclass(frozen=True, eq=False)
class StaleOptimizer(Event):
    """An optimizer (`optimizer`, the name it is bound to here; `value` is it before) left
    without parameters its module now has: `target` (a layer of the module the optimizer was
    built on, or the module's own name) was just given a new module or parameter at `stmt`.
    `stale` is the optimizer from then on: its `optimizes.stale` says where and how."""

    optimizer: str
    stale: Value


@dataclass(frozen=True, eq=False)
class LoopTrips(Event):
    """A `for` loop reached (`node` and `stmt` are the loop, `target` what it iterates and
    `value` that value): `trips` is how many times its body certainly runs this time, 0 when
    unknown (`loop_entry.least_trips`). One event each time the loop is reached; a loop
    runs at least the fewest trips of all its events (`loop_entry.fewest_trips`)."""

    trips: int


@dataclass(frozen=True, eq=False)
class RepeatedDraw(Event):
    """A list comprehension `[E for T in I]` reached (`node` the comprehension, `target` its
    element E and `value` what one item holds) with one generator, no condition, and an
    element that never reads what T binds: every item is E computed anew, the same way
    (`[get_batch("train") for _ in range(k)]`). `trips` is how many items it certainly has
    when I is `range(...)` with known bounds (`loop_entry.least_trips`), 0 otherwise."""

    trips: int


@dataclass(frozen=True, eq=False)
class FreedByCall(Event):
    """A call of a function of the file (`node`; `value` is its result) whose own backward
    calls `backwards` freed, on every way out, graph nodes the result certainly runs through
    (`FunctionSummary.frees_result`). `freed` is the call's graph node standing for them:
    freed here from then on, so a backward through the result runs through a freed graph."""

    freed: SavedNode
    backwards: tuple[ast.Call, ...]


@dataclass(frozen=True, eq=False)
class ArgumentFreedByCall(Event):
    """A call of a function of the file (`node`; `value` is its result) whose own backward
    calls `backwards` freed, on every way out, the graph of what it was given for
    `parameter` (`FunctionSummary.frees_parameters`): `d_step(netD, real, fake)` whose
    `loss.backward()` runs through `netD(fake)`. `freed` is that argument's graph at the
    call, freed here from then on, so a later backward through `fake` runs through a freed
    graph."""

    freed: frozenset[SavedNode]
    parameter: str
    backwards: tuple[ast.Call, ...]


# Every kind of event, in the order of the classes above.
KINDS: tuple[type[Event], ...] = (
    Conversion,
    InPlaceChange,
    AttributeSet,
    ForwardCall,
    OptimizerCall,
    GradRead,
    RequiresGradCall,
    IntegerGradRequest,
    OptimizedTensor,
    Accumulation,
    ModuleCall,
    ModuleMethodCall,
    ModuleModeCall,
    Append,
    StateAppend,
    InferenceSaved,
    LossInput,
    CheckpointInput,
    StaleOptimizer,
    LoopTrips,
    RepeatedDraw,
    FreedByCall,
    ArgumentFreedByCall,
)

E = TypeVar("E", bound=Event)
F = TypeVar("F", bound=Event)


class Events:
    """The events of one module, in recording order, indexed by kind."""

    def __init__(self) -> None:
        self._all: list[Event] = []
        self._by_kind: dict[type[Event], list[Event]] = {kind: [] for kind in KINDS}

    def add(self, event: Event) -> None:
        """Record `event` after every event recorded so far."""
        self._by_kind[type(event)].append(event)
        self._all.append(event)

    @overload
    def of(self, kind: type[E], /) -> list[E]: ...

    @overload
    def of(self, kind: type[E], other: type[F], /) -> list[E | F]: ...

    def of(self, *kinds: type[Event]) -> list[Any]:
        """The events of `kind` (or of either of two kinds), in recording order: a new list,
        so recording more events while walking it is safe."""
        for kind in kinds:
            if kind not in self._by_kind:
                raise KeyError(f"{kind.__name__} is not a kind of event (see events.KINDS)")
        if len(kinds) == 1:
            return list(self._by_kind[kinds[0]])
        return [event for event in self._all if type(event) in kinds]

    def __iter__(self) -> Iterator[Event]:
        """Every event, in recording order."""
        return iter(list(self._all))

    def __len__(self) -> int:
        return len(self._all)
