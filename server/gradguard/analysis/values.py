"""The abstract values of the dataflow pass.

A value's autograd state is three-valued and rules fire only on certainty:
TRACKED (certainly carries history or requires grad), UNTRACKED (certainly does not, with the
reason and the node where history was lost), UNKNOWN (anything the analysis cannot prove).
"""

from __future__ import annotations

import ast
import enum
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gradguard.analysis.graph import SavedNode
from gradguard.analysis.narrowing import Condition
from gradguard.analysis.shapes import UNKNOWN_SHAPE, Layer, Shape, join_shapes
from gradguard.analysis.torch_api import ModuleKind, nn_module_kind

if TYPE_CHECKING:
    from gradguard.analysis.parameters import Freeze, OptimizedParameters


class Grad(enum.Enum):
    """Whether a value takes part in autograd."""

    TRACKED = "tracked"
    UNTRACKED = "untracked"
    UNKNOWN = "unknown"


class Kind(enum.Enum):
    """What sort of Python object a value is, as far as the analysis knows."""

    TENSOR = "tensor"
    SCALAR = "scalar"  # a Python number (literal, `.item()`, `float()`)
    SEQUENCE = "sequence"  # a tuple/list of known structure (see `Value.elements`)
    MODULE = "module"  # an nn.Module instance (see `Value.module`)
    FUNCTION = "function"  # a function defined in this file
    CLASS = "class"  # a class defined in this file (see `Value.instance_of`)
    INSTANCE = "instance"  # an instance of a non-Module class defined in this file
    NONE = "none"
    OTHER = "other"  # known not to be a tensor (strings, lists from .tolist(), arrays, ...)
    MAPPING = "mapping"  # a dict literal with string keys (see `Value.fields`, `elements`)
    AXES = "axes"  # matplotlib Axes, or an array of them (`plt.subplots()[1]`)
    UNKNOWN = "unknown"


class LossKind(enum.Enum):
    """Why a value has no autograd history."""

    NO_GRAD = "no_grad"  # computed with gradient recording off
    CONVERSION = "conversion"  # .item() / float() / .tolist() / .numpy()
    DETACH = "detach"  # .detach() / .data / .detach_()
    REWRAP = "rewrap"  # torch.tensor(...) of existing data
    FACTORY = "factory"  # a fresh tensor from a factory (torch.zeros, ...)
    NON_DIFFERENTIABLE = "non_differentiable"  # argmax, comparisons, integer casts
    NO_CREATE_GRAPH = "no_create_graph"  # a gradient from autograd.grad without create_graph
    LITERAL = "literal"  # a Python literal
    FROZEN = "frozen"  # output of a module whose every parameter has requires_grad=False
    CHECKPOINT = "checkpoint"  # output of a reentrant checkpoint whose inputs lack grad


@dataclass(frozen=True)
class GradOff:
    """Where gradient recording was switched off: the `with` item, decorator or statement."""

    node: ast.AST  # the with-item's context expression, the decorator, or the call statement
    description: str  # e.g. "torch.no_grad()"
    owner: ast.AST  # the `with` statement, the function definition, or the statement itself
    # torch.inference_mode(): tensors allocated here are inference tensors, which autograd
    # refuses to save for backward later.
    inference: bool = False
    # The region already switched off when this one began (`with no_grad(): with
    # inference_mode(): ...`): turning this one back on still leaves that one.
    outer: GradOff | None = None
    # Off only on the paths where a test fails (`set_grad_enabled(phase == "train")` seen
    # from a branch that knows `phase == "val"`): removing the region is no fix.
    conditional: bool = False


@dataclass(frozen=True)
class Loss:
    """Why and where a value lost (or never had) autograd history."""

    kind: LossKind
    node: ast.AST  # the expression where history was lost
    description: str  # e.g. ".item()", "torch.no_grad()"
    grad_off: GradOff | None = None
    inner: Loss | None = None  # for REWRAP: what the wrapped data had lost before
    wrapped_history: bool = False  # for REWRAP: the wrapped data carried autograd history
    wrapped_unknown: bool = False  # for REWRAP: whether the wrapped data did is not known
    wrapped_tensor: bool = False  # for REWRAP: the wrapped data was one tensor
    wrapped_sequence: bool = False  # for REWRAP: the wrapped data was a list or tuple


class ActivationKind(enum.Enum):
    """The last thing certainly done to a tensor's values, for the losses that care whether
    they get logits or probabilities."""

    SOFTMAX = "softmax"  # probabilities along a dim (softmax, nn.Softmax)
    LOG_SOFTMAX = "log_softmax"  # log-probabilities (log_softmax, nn.LogSoftmax)
    SIGMOID = "sigmoid"  # elementwise probabilities in (0, 1) (sigmoid, nn.Sigmoid)
    LOGITS = "logits"  # the unbounded output of an affine layer (nn.Linear), nothing after


@dataclass(frozen=True)
class Activation:
    """The last activation applied to a tensor: what, where, and how it reads in a message.

    Set by the producers (softmax, log_softmax, sigmoid, an nn.Linear output), kept by ops
    that only move, cast or reshape the values (view, reshape, squeeze, to, float,
    contiguous...), cleared by every other op, and kept by a join only when both paths
    agree (same kind, same producing expression)."""

    kind: ActivationKind
    node: ast.AST  # the expression that applied it (a call, or a `return` of a forward)
    description: str  # e.g. "F.softmax()", "nn.Softmax", "nn.Linear"
    # `node` is a layer built inside an `nn.Sequential(...)` (its last), not a call taking
    # the activation's input.
    layer: bool = False
    # Applied by a function or tensor method (`F.softmax(x)`, `x.sigmoid()`), not by a
    # module: swapping a model's layers cannot change it.
    functional: bool = False


@dataclass(frozen=True)
class ConditionalLoss:
    """History lost exactly on the paths where `condition` fails."""

    condition: Condition
    loss: Loss


@dataclass(frozen=True, eq=False)
class Carry:
    """A value flowing from one loop iteration into the next.

    `key` is the carried name (`h`, `self.hidden`), `stmt` the in-loop statement that defines
    it, `value` what that statement produces and `initial` the value before the loop.
    """

    key: str
    loop: ast.For | ast.AsyncFor | ast.While | None  # None: a method's read of `self` state
    stmt: ast.stmt | None
    value: Value
    initial: Value | None


@dataclass(frozen=True)
class ClassInfo:
    """A class defined in the analysed file."""

    node: ast.ClassDef
    is_module: bool
    attributes: dict[str, Value] = field(default_factory=dict, compare=False, hash=False)
    # A LightningModule (directly or through classes of the file): the Trainer calls its
    # evaluation hooks with gradient recording off.
    lightning: bool = False


@dataclass(frozen=True)
class LayerClash:
    """Two consecutive layers of an `nn.Sequential` where the second, built with
    `inplace=True`, changes the output the first keeps for backward (`nn.Tanh()` then
    `nn.ReLU(inplace=True)`). `params_before`: a layer with parameters runs before `saver`,
    so what it keeps requires grad."""

    saver: ast.expr
    changer: ast.expr
    changer_class: str  # "torch.nn.ReLU"
    params_before: bool


@dataclass(frozen=True)
class ModuleRef:
    """What an nn.Module value is: a torch.nn class or a class of this file."""

    qualified: str | None = None  # "torch.nn.LSTM"
    local: ClassInfo | None = None
    kind: ModuleKind | None = None  # derived for this instance (an nn.Sequential of layers)
    inplace: bool = False  # built with `inplace=True` (nn.ReLU(inplace=True), ...)
    layer: Layer | None = None  # how it maps shapes, when built with literal sizes
    # Built right here and computing only from its inputs and its own registered parameters
    # (see `gradguard.analysis.parameters`): a torch.nn layer, a Sequential of freshly built
    # ones, a qualifying local class built from plain arguments.
    self_contained: bool = False
    # Its forward saves its input for backward (an nn.Sequential starting with nn.Linear).
    saves_input: bool = False
    # The activation its output certainly ends with (nn.Softmax, nn.Linear, an nn.Sequential
    # whose last layer is one); None when not known.
    applies: Activation | None = None
    # An nn.Sequential's in-place layers that change what the layer before them saved.
    clashes: tuple[LayerClash, ...] = ()


@dataclass(frozen=True)
class Value:
    """An abstract value; immutable, so environments can share them freely."""

    grad: Grad = Grad.UNKNOWN
    kind: Kind = Kind.UNKNOWN
    loss: Loss | None = None
    leaf: bool = False  # a leaf tensor (no grad_fn); with TRACKED it requires grad
    elements: tuple[Value, ...] | None = None
    carries: frozenset[Carry] = frozenset()
    origin: ast.stmt | None = None  # the statement that bound it
    module: ModuleRef | None = None
    function: ast.FunctionDef | ast.AsyncFunctionDef | None = None
    instance_of: ClassInfo | None = None
    const: object = None  # bool and int literal values (flags, loop bounds)
    retains_grad: bool = False  # `x.retain_grad()` was called on this tensor
    shape: Shape = UNKNOWN_SHAPE  # what is certain about a tensor's shape (see shapes.py)
    frozen: Freeze | None = None  # a module whose every parameter was frozen here
    optimizes: OptimizedParameters | None = None  # an optimizer built on a module's parameters
    inference: bool = False  # certainly an inference tensor (allocated under inference_mode)
    # Graph nodes that saved tensors and that this value's history certainly passes through,
    # and the nodes that saved this very tensor (see `gradguard.analysis.graph`).
    graph: frozenset[SavedNode] = frozenset()
    saved_in: frozenset[SavedNode] = frozenset()
    # Terms without history that certainly feed this tracked value and so contribute no
    # gradient: gradients from autograd.grad without create_graph (a gradient penalty).
    inert_terms: frozenset[Loss] = frozenset()
    # Field names of a named tuple of known structure (`torch.max(x, 1)` returns
    # `(values, indices)`), so `result.indices` is `elements[1]`; the keys of a MAPPING.
    fields: tuple[str, ...] | None = None
    # Computed under a grad mode decided by a test of one name
    # (`torch.set_grad_enabled(phase == "train")`): where the condition fails, the value has
    # no history, lost as `unless.loss` says; where it holds, it is what the other fields say.
    unless: ConditionalLoss | None = None
    # A list of unknown length whose every element is (at most) this value: built by
    # `xs.append(v)` or a comprehension. An empty list literal has `elements == ()`.
    items: Value | None = None
    # The last activation certainly applied to this tensor (see `Activation`); None: none,
    # or not known.
    activation: Activation | None = None

    @property
    def integer_valued(self) -> bool:
        """True for a tensor certainly of an integer or bool dtype: bound straight from what
        argmax, argsort, comparisons, integer casts (`.long()`) or the index half of
        `max`/`sort`/`topk` with a dim make (see `torch_api.NON_DIFFERENTIABLE`). Anything
        computed from it afterwards (`.float()`, `* 1.5`) may be floating point again: the
        binding statement must hold the very expression that made it."""
        loss = self.loss
        if self.kind is not Kind.TENSOR or loss is None:
            return False
        if loss.kind is not LossKind.NON_DIFFERENTIABLE:
            return False
        origin = self.origin
        return isinstance(origin, ast.Assign | ast.AnnAssign) and origin.value is loss.node

    @property
    def has_history(self) -> bool:
        """True when the value certainly has a grad_fn (a non-leaf tracked tensor)."""
        return self.grad is Grad.TRACKED and not self.leaf

    def holds_history(self) -> bool:
        """True when the value, or an element of it, is a tensor with history."""
        if self.elements is not None:
            return any(element.holds_history() for element in self.elements)
        return self.kind is Kind.TENSOR and self.has_history

    def with_origin(self, stmt: ast.stmt | None) -> Value:
        """This value, recorded as bound by `stmt`."""
        return evolve(self, origin=stmt)

    def without_carries(self) -> Value:
        """This value with its loop-carried dependencies forgotten."""
        return self.retagged({})

    def retagged(self, mapping: dict[Carry, frozenset[Carry]]) -> Value:
        """This value with each carry replaced by what `mapping` gives for it (carries it
        does not name are forgotten), in its elements and items too."""
        if not self.carries and not self.elements and self.items is None:
            return self
        carries = frozenset().union(*(mapping.get(c, frozenset()) for c in self.carries))
        elements = tuple(e.retagged(mapping) for e in self.elements) if self.elements else None
        if self.elements == ():
            elements = ()
        items = self.items.retagged(mapping) if self.items is not None else None
        return evolve(self, carries=carries, elements=elements, items=items)

    def all_carries(self) -> frozenset[Carry]:
        """Carries of this value and of its elements."""
        found = self.carries
        for element in self.elements or ():
            found = found | element.all_carries()
        if self.items is not None:
            found = found | self.items.all_carries()
        return found


def evolve(value: Value, **changes: Any) -> Value:
    """A copy of `value` with `changes`: `dataclasses.replace` without its per-call cost
    (this runs for nearly every assignment the analysis interprets)."""
    new = object.__new__(Value)
    new.__dict__.update(value.__dict__)
    new.__dict__.update(changes)
    return new


UNKNOWN = Value()
NONE = Value(grad=Grad.UNTRACKED, kind=Kind.NONE, const=None)


def literal(node: ast.Constant) -> Value:
    """The value of a literal constant."""
    kind = Kind.OTHER
    if isinstance(node.value, bool | int | float | complex):
        kind = Kind.SCALAR
    elif node.value is None:
        return NONE
    loss = Loss(LossKind.LITERAL, node, "a literal")
    const = node.value if isinstance(node.value, bool | int) else None
    return Value(grad=Grad.UNTRACKED, kind=kind, loss=loss, const=const)


def join(a: Value | None, b: Value | None) -> Value:
    """Merge the values of two control-flow paths: keep only what holds on both."""
    if a is None:
        return b if b is not None else UNKNOWN
    if b is None or a is b:
        return a
    if a == b:
        return a
    if a.kind is Kind.SEQUENCE and b.kind is Kind.SEQUENCE:
        # An empty list joined with a list of items is that list (no element breaks it).
        origin = a.origin if a.origin is b.origin else None
        if a.elements == () and b.items is not None:
            return evolve(b, carries=a.carries | b.carries, origin=origin)
        if b.elements == () and a.items is not None:
            return evolve(a, carries=a.carries | b.carries, origin=origin)
        if (a.items is not None and b.elements) or (b.items is not None and a.elements):
            # A list of known elements on one path, of known items on the other: every
            # element is at most the join of them all.
            held: Value | None = None
            for part in (*(a.elements or ()), *(b.elements or ()), a.items, b.items):
                if part is not None:
                    held = part if held is None else join(held, part)
            return Value(
                kind=Kind.SEQUENCE, items=held, carries=a.carries | b.carries, origin=origin
            )
    grad = a.grad if a.grad is b.grad else Grad.UNKNOWN
    kind = a.kind if a.kind is b.kind else Kind.UNKNOWN
    elements: tuple[Value, ...] | None = None
    same_keys = a.fields == b.fields or Kind.MAPPING not in (a.kind, b.kind)
    if (
        a.elements is not None
        and b.elements is not None
        and len(a.elements) == len(b.elements)
        and same_keys
    ):
        elements = tuple(join(x, y) for x, y in zip(a.elements, b.elements, strict=True))
    return Value(
        grad=grad,
        kind=kind,
        loss=_join_loss(a.loss, b.loss) if grad is Grad.UNTRACKED else None,
        leaf=a.leaf and b.leaf,
        elements=elements,
        carries=a.carries | b.carries,
        origin=a.origin if a.origin is b.origin else None,
        module=_join_module(a.module, b.module),
        function=a.function if a.function is b.function else None,
        instance_of=a.instance_of if a.instance_of is b.instance_of else None,
        const=a.const if a.const == b.const and type(a.const) is type(b.const) else None,
        retains_grad=a.retains_grad and b.retains_grad,
        shape=join_shapes(a.shape, b.shape),
        frozen=a.frozen if a.frozen is b.frozen else None,
        optimizes=a.optimizes if a.optimizes is b.optimizes else None,
        inference=a.inference and b.inference,
        graph=a.graph & b.graph,
        saved_in=a.saved_in & b.saved_in,
        inert_terms=a.inert_terms & b.inert_terms,
        fields=a.fields if a.fields == b.fields and elements is not None else None,
        unless=a.unless if a.unless == b.unless else None,
        items=join(a.items, b.items) if a.items is not None and b.items is not None else None,
        activation=a.activation if a.activation == b.activation else None,
    )


def _join_module(a: ModuleRef | None, b: ModuleRef | None) -> ModuleRef | None:
    """The same module class on both paths stays known even if built with other sizes."""
    if a == b:
        return a
    if a is not None and b is not None and evolve_module(a, None) == evolve_module(b, None):
        return evolve_module(a, None)
    kind_a, kind_b = _layer_kind(a), _layer_kind(b)
    if kind_a is not None and kind_b is not None:
        # Two torch.nn layers (a list of layers built by a helper): what holds for both.
        output = kind_a.output if kind_a.output == kind_b.output else None
        return ModuleRef(kind=ModuleKind(kind_a.has_parameters and kind_b.has_parameters, output))
    return None


def _layer_kind(module: ModuleRef | None) -> ModuleKind | None:
    """The kind of a torch.nn layer (or of a join of layers), when known."""
    if module is None or module.local is not None:
        return None
    if module.kind is not None:
        return module.kind
    return nn_module_kind(module.qualified) if module.qualified else None


def element_of(iterable: Value) -> Value:
    """What one iteration over `iterable` binds: a slice of a tensor along its first
    dimension, or an item of a list whose items are known (built by appends, a
    comprehension, `zip` or `enumerate` of such lists); anything else is unknown."""
    if iterable.kind is Kind.TENSOR:
        return evolve(iterable, leaf=False, elements=None, shape=UNKNOWN_SHAPE)
    if iterable.kind is Kind.SEQUENCE and iterable.items is not None:
        return iterable.items
    return UNKNOWN


def evolve_module(module: ModuleRef, layer: Layer | None) -> ModuleRef:
    """`module` with another shape mapping."""
    return ModuleRef(module.qualified, module.local, module.kind, module.inplace, layer)


def _join_loss(a: Loss | None, b: Loss | None) -> Loss | None:
    """Both paths lost history; keep a reason when they agree, or the one that is not a mere
    literal (`total = 0.0` joined with `total += x.item()` is still "converted by .item()")."""
    if a == b:
        return a
    if a is not None and a.kind is LossKind.LITERAL:
        return b
    if b is not None and b.kind is LossKind.LITERAL:
        return a
    return None


def _rank(loss: Loss | None) -> int:
    """How much a reason explains a lost history: a cut (detach, no_grad, conversion) says
    more than a fresh factory tensor, which says more than a literal."""
    if loss is None:
        return 0
    return {LossKind.LITERAL: 1, LossKind.FACTORY: 2}.get(loss.kind, 3)


# Reasons for lost history that make a term of a tracked loss certainly useless.
_INERT = frozenset({LossKind.NO_CREATE_GRAPH})


def combine(values: Iterable[Value], *, result_kind: Kind = Kind.TENSOR) -> Value:
    """The value of a differentiable op on `values` with gradient recording on.

    Python scalars and literals never require grad; any tracked input makes the result
    tracked; otherwise an unknown input makes it unknown; all-untracked stays untracked.
    """
    carries: frozenset[Carry] = frozenset()
    graph: frozenset[SavedNode] = frozenset()
    inert: frozenset[Loss] = frozenset()
    tracked = unknown = history = False
    first_loss: Loss | None = None
    rewrapped: Loss | None = None
    for value in values:
        carries |= value.all_carries()
        if value.graph:
            graph |= value.graph
        if value.inert_terms:
            inert |= value.inert_terms
        if value.grad is Grad.UNTRACKED and value.loss and value.loss.kind in _INERT:
            inert |= {value.loss}
        if value.kind in (Kind.SCALAR, Kind.NONE) or (value.kind is Kind.OTHER and value.loss):
            continue
        if value.kind is Kind.SEQUENCE and (value.elements is not None or value.items):
            parts = value.elements if value.elements is not None else (value.items or UNKNOWN,)
            inner = combine(parts)
            grad = inner.grad
            loss = inner.loss
            graph |= inner.graph
            inert |= inner.inert_terms
        else:
            grad, loss = value.grad, value.loss
        if grad is Grad.TRACKED:
            tracked = True
            if loss is not None and loss.kind is LossKind.REWRAP and loss.wrapped_history:
                rewrapped = rewrapped or loss
            else:
                history = True
        elif grad is Grad.UNKNOWN:
            unknown = True
        elif first_loss is None or _rank(loss) > _rank(first_loss):
            first_loss = loss
    if tracked:
        # Tracked only through leaves that `torch.tensor(..., requires_grad=True)` made of
        # data with history: the result's history starts there, never reaching that data.
        root = rewrapped if not history and not unknown else None
        return Value(
            grad=Grad.TRACKED,
            kind=result_kind,
            loss=root,
            carries=carries,
            graph=graph,
            inert_terms=inert,
        )
    if unknown:
        # (The graph nodes stay: if the result has history, it runs through them.)
        return Value(grad=Grad.UNKNOWN, kind=result_kind, carries=carries, graph=graph)
    return Value(grad=Grad.UNTRACKED, kind=result_kind, loss=first_loss)
