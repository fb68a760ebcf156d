"""The facets of an abstract value: each groups the facts about one concept, with its join.

A `Value` (see `gradguard.analysis.values.value`) is its kind, its dataflow bookkeeping
(origin, carries) and one of each facet:

* `Autograd` (grad, loss, leaf, retains_grad, inference, unless, inert_terms, batch,
  forced, copies): does it take part in autograd; if not, why and where was its history lost.
* `ObjectFacts` (module, function, instance_of, const): which object it is: a module (of
  which class), a function or class of the file, an instance of one, a literal flag.
* `ParameterFacts` (frozen, optimizes): what was done to a module's parameters: frozen
  here, handed to an optimizer.
* `Structure` (elements, fields, items): what a tuple, list or dict holds.
* `GraphFacts` (graph, saved_in): which graph nodes that saved tensors its history runs
  through, and which saved it.
* `TensorFacts` (shape, activation, integer_dtype, float_dtype, index_dtype, contiguous):
  what is certain about a tensor's data: its shape, its last activation, an integer or a
  floating dtype, a contiguous layout.

Every join keeps only what holds on both control-flow paths; each facet's docstring says
what survives and why. Joins never look across facets, except `Structure`, whose list rules
need the joined kind and which joins the values it holds with the value join it is given.

Most values leave most facets at their default (a tensor has no structure, a module no
shape): defaults are shared instances (`NO_AUTOGRAD`, ...), so building, comparing and
joining such values is an identity check per facet. `evolve_facet` is the per-call-cheap
`dataclasses.replace` the value's own `evolve` routes its changes through.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from gradguard.analysis.graph import SavedNode
from gradguard.analysis.shapes import UNKNOWN_SHAPE, Shape, join_shapes
from gradguard.analysis.torch_api import ModuleKind, nn_module_kind, optimizer_class
from gradguard.analysis.values.vocabulary import (
    Activation,
    ClassInfo,
    ConditionalLoss,
    ForcedLeaf,
    Grad,
    Loss,
    LossKind,
    ModuleRef,
    evolve_module,
)

if TYPE_CHECKING:
    import ast

    from gradguard.analysis.parameters import Freeze, OptimizedParameters
    from gradguard.analysis.values.value import Value

F = TypeVar("F")


def evolve_facet(facet: F, changes: Mapping[str, Any]) -> F:
    """A copy of `facet` with `changes`: `dataclasses.replace` without its per-call cost."""
    new = object.__new__(type(facet))
    new.__dict__.update(facet.__dict__)
    new.__dict__.update(changes)
    return new


@dataclass(frozen=True)
class Autograd:
    """Whether a value takes part in autograd, and if it certainly does not, why.

    `grad` is three-valued and rules fire only on certainty: TRACKED (certainly carries
    history or requires grad), UNTRACKED (certainly does not, `loss` saying why and where it
    was lost), UNKNOWN (anything the analysis cannot prove)."""

    grad: Grad = Grad.UNKNOWN
    # Why and where history was lost (UNTRACKED); on a TRACKED value, where every path of
    # its history starts without reaching what came before: the leaf a rewrap of data with
    # history made, or an op whose gradient is zero (`LossKind.ZERO_GRADIENT`; see `combine`).
    loss: Loss | None = None
    # True: a leaf tensor (no grad_fn); with TRACKED it requires grad. False: not known to be
    # one; with TRACKED, a tensor with history (a grad_fn). None: with TRACKED only, a tensor
    # that requires grad on every path, a leaf on some and computed on others (`v = w if c
    # else w * 2`): neither "a leaf" nor "has history" is certain (see `join_leaf`).
    leaf: bool | None = False
    retains_grad: bool = False  # `x.retain_grad()` was called on this tensor
    inference: bool = False  # certainly an inference tensor (allocated under inference_mode)
    # Computed under a grad mode decided by a test of one name
    # (`torch.set_grad_enabled(phase == "train")`): where the condition fails, the value has
    # no history, lost as `unless.loss` says; where it holds, it is what the other fields say.
    unless: ConditionalLoss | None = None
    # Terms without history that certainly feed this tracked value and so contribute no
    # gradient: gradients from autograd.grad without create_graph (a gradient penalty).
    inert_terms: frozenset[Loss] = frozenset()
    # An element of the batches a training loop draws from a data source (an item of a
    # `DataLoader(...)`, see `data_sources.data_loader`, or `for x, y in loader:` over an
    # unknown iterable whose elements feed a model call, see `batches`), a part of one
    # (`x, y = batch`) or a move, cast or view of one: data, which a DataLoader never hands
    # out requiring grad. Its `grad` stays UNKNOWN unless known otherwise; `combine` reads
    # it, and so does an accumulation window (`accumulation.gathered_batches`).
    batch: bool = False
    # A leaf made by forcing requires_grad on a tensor cut from its history (see
    # `ForcedLeaf`); only with `grad` TRACKED and `leaf`, since it is that very tensor.
    forced: ForcedLeaf | None = None
    # Copies of tensors with history (`torch.tensor(task_losses)`, a REWRAP with
    # `wrapped_history`) that certainly feed this value, through any op but a loss's target
    # (a constant target is what a copy is for): no gradient reaches, through them, what
    # the copied tensors were computed from (GG105).
    copies: frozenset[Loss] = frozenset()

    def join(self, other: Autograd) -> Autograd:
        """What holds on both paths.

        The grad state survives when both agree, else it is UNKNOWN. A reason for lost
        history survives only on a join that is UNTRACKED, and then when both reasons agree
        or one is a mere literal (`total = 0.0` joined with `total += x.item()` is still
        "converted by .item()"); on a TRACKED join, the rewrap root is dropped. Leafness
        survives when both agree; a leaf joined with a tensor with history, both requiring
        grad, requires grad and its leafness is unknown (see `join_leaf`). The flags
        (retains_grad, inference) survive when both have them, the inert terms and copies
        both have survive, and `unless` survives when both paths were computed under the same
        conditional grad mode. A forced leaf survives only when both paths hold the tensor
        of the same forcing (a forward forcing on one branch only joins into nothing)."""
        if self is other and (self.loss is None or self.grad is Grad.UNTRACKED):
            return self
        grad = self.grad if self.grad is other.grad else Grad.UNKNOWN
        return Autograd(
            grad=grad,
            loss=join_loss(self.loss, other.loss) if grad is Grad.UNTRACKED else None,
            leaf=join_leaf(self.leaf, other.leaf, grad),
            retains_grad=self.retains_grad and other.retains_grad,
            inference=self.inference and other.inference,
            unless=self.unless if self.unless == other.unless else None,
            inert_terms=self.inert_terms & other.inert_terms,
            batch=self.batch and other.batch,
            forced=self.forced if self._same_forced_leaf(other) else None,
            copies=self.copies & other.copies,
        )

    def _same_forced_leaf(self, other: Autograd) -> bool:
        """Both paths hold the leaf of the same forcing (see `ForcedLeaf`)."""
        return (
            self.forced == other.forced
            and self.grad is Grad.TRACKED
            and other.grad is Grad.TRACKED
            and self.leaf is True
            and other.leaf is True
        )


def join_leaf(a: bool | None, b: bool | None, grad: Grad) -> bool | None:
    """The leafness both paths agree on; else, of a join that requires grad (TRACKED), None:
    a leaf on one path and computed on the other, so rules that need only requires_grad
    (`.numpy()` raises on both) still hold, and rules that need a grad_fn (an optimizer of
    non-leaf tensors, `.grad` of a non-leaf) do not. Of any other join, False: not known to
    be a leaf (leafness means nothing certain without TRACKED)."""
    if a is b:
        return a
    return None if grad is Grad.TRACKED else False


def join_loss(a: Loss | None, b: Loss | None) -> Loss | None:
    """Both paths lost history; keep a reason when they agree, or the one that is not a mere
    literal (`total = 0.0` joined with `total += x.item()` is still "converted by .item()")."""
    if a == b:
        return a
    if a is not None and a.kind is LossKind.LITERAL:
        return b
    if b is not None and b.kind is LossKind.LITERAL:
        return a
    return None


@dataclass(frozen=True)
class ObjectFacts:
    """Which object a value is, beyond its `Kind`: the module (of a torch.nn class or of a
    class of this file), the function or class of this file, the instance of a class of
    this file, the literal bool, int or string (flags, loop bounds, modes)."""

    module: ModuleRef | None = None
    function: ast.FunctionDef | ast.AsyncFunctionDef | None = None
    instance_of: ClassInfo | None = None
    const: object = None  # bool, int and str literal values (flags, loop bounds, modes)
    # The modules it is one of, each possibility apart (what a loop over `model.modules()`
    # binds: see `gradguard.analysis.submodules`); an `isinstance` test keeps those of the
    # class tested. None: not known apart (an unknown possibility is `UNKNOWN`).
    alternatives: tuple[Value, ...] | None = None
    # What it is unless it is None: an attribute one method stores and `__init__` sets to
    # None before it runs (`self.last_z = None`; see `gradguard.analysis.placeholders`).
    # Reading an attribute None lacks (`.grad`) succeeds only on this value.
    unless_none: Value | None = None

    def join(self, other: ObjectFacts) -> ObjectFacts:
        """What holds on both paths.

        A module survives when both paths hold the same module class, even built with other
        sizes (the shape mapping is dropped), and two torch.nn layers join into what holds
        for both (a list of layers built by a helper). A function or class survives when it
        is the very same definition on both paths; a literal when equal and of the same type
        (`1` and `True` are not one flag). The alternatives, and what it is unless None,
        survive when the same."""
        if self is other:
            return self
        same_const = self.const == other.const and type(self.const) is type(other.const)
        return ObjectFacts(
            module=_join_module(self.module, other.module),
            function=self.function if self.function is other.function else None,
            instance_of=self.instance_of if self.instance_of is other.instance_of else None,
            const=self.const if same_const else None,
            alternatives=self.alternatives if self.alternatives == other.alternatives else None,
            unless_none=self.unless_none if self.unless_none == other.unless_none else None,
        )


def _join_module(a: ModuleRef | None, b: ModuleRef | None) -> ModuleRef | None:
    """The same module class on both paths stays known even if built with other sizes."""
    if a == b:
        return a
    if a is not None and b is not None and a.local is not None and b.local is not None:
        # Two instances of one class built with other settings (`Block(8, stride=2)`,
        # `Block(8)`): the class as every instance sees it (`instance_state`).
        a, b = _as_class(a), _as_class(b)
        if a == b:
            return a
    if a is not None and b is not None and evolve_module(a, None) == evolve_module(b, None):
        # Built with other sizes: an integer buffer both hold is still held.
        joined = evolve_module(a, None)
        if a.integer_buffer and b.integer_buffer:
            joined = dataclasses.replace(joined, integer_buffer=True)
        return joined
    if _optimizer(a) and _optimizer(b):
        # Two optimizer classes (a helper given AdamW by one caller, SGD by another): an
        # optimizer whichever it is; which parameters it holds is `ParameterFacts`' join.
        return ANY_OPTIMIZER
    kind_a, kind_b = _layer_kind(a), _layer_kind(b)
    if kind_a is not None and kind_b is not None:
        # Two torch.nn layers (a list of layers built by a helper): what holds for both.
        # Owning parameters is known only when both agree; else the join may own some
        # (`nn.Linear` or `nn.ReLU` in one list: see `ModuleKind.parameters_known`).
        output = kind_a.output if kind_a.output == kind_b.output else None
        known = (
            kind_a.parameters_known
            and kind_b.parameters_known
            and kind_a.has_parameters == kind_b.has_parameters
        )
        owns = kind_a.has_parameters or kind_b.has_parameters
        return ModuleRef(kind=ModuleKind(owns, output, parameters_known=known))
    return None


def _as_class(module: ModuleRef) -> ModuleRef:
    """`module`, an instance of a class of the file, as any instance of its class: the
    class's own `ClassInfo` in place of one instance's view (`ClassInfo.general`)."""
    local = module.local
    if local is None or local.general is None:
        return module
    return dataclasses.replace(module, local=local.general)


# A torch optimizer of a class not known (`torch.optim.Optimizer` is their base class).
ANY_OPTIMIZER = ModuleRef(qualified="torch.optim.Optimizer")


def _optimizer(module: ModuleRef | None) -> bool:
    """An optimizer of a `torch.optim` class (not a class of the file)."""
    return module is not None and module.local is None and optimizer_class(module.qualified)


def _layer_kind(module: ModuleRef | None) -> ModuleKind | None:
    """The kind of a torch.nn layer (or of a join of layers), when known."""
    if module is None or module.local is not None:
        return None
    if module.kind is not None:
        return module.kind
    return nn_module_kind(module.qualified) if module.qualified else None


@dataclass(frozen=True)
class ParameterFacts:
    """What was done here to the parameters of a module: every one frozen
    (`requires_grad_(False)` on all of them), or handed to an optimizer (the value is that
    optimizer); see `gradguard.analysis.parameters`."""

    frozen: Freeze | None = None  # a module whose every parameter was frozen here
    optimizes: OptimizedParameters | None = None  # an optimizer built on a module's parameters

    def join(self, other: ParameterFacts) -> ParameterFacts:
        """A freeze or an optimizer's parameters survive only when both paths hold the very
        same one (the same statement froze them, the same construction built the
        optimizer): two different freezes may have frozen different parameters."""
        if self is other:
            return self
        return ParameterFacts(
            frozen=self.frozen if self.frozen is other.frozen else None,
            optimizes=_joined_optimizer(self.optimizes, other.optimizes),
        )


def _joined_optimizer(
    a: OptimizedParameters | None, b: OptimizedParameters | None
) -> OptimizedParameters | None:
    """The same optimizer on both paths, stale on one of them (`if num_classes != ...:
    model.fc = nn.Linear(...)`): stale, with that replacement. Whenever the replacing
    statement runs, the optimizer does not hold what it made; that is the statement GG604
    reports. Any other difference: nothing is known."""
    if a is b:
        return a
    if a is None or b is None or (a.stale is None) == (b.stale is None):
        return None
    same = a.call is b.call and a.stmt is b.stmt and a.key == b.key and a.module is b.module
    if not same:
        return None
    return a if a.stale is not None else b


@dataclass(frozen=True)
class Structure:
    """What a tuple, list or dict holds.

    `elements`: the values of a tuple/list of known length (`()` for an empty list literal),
    or of a MAPPING's values in key order. `fields`: the field names of a named tuple of
    known structure (`torch.max(x, 1)` returns `(values, indices)`, so `result.indices` is
    `elements[1]`), or the keys of a MAPPING. `items`: a list of unknown length whose every
    element is (at most) this value, built by `xs.append(v)` or a comprehension.
    `members`: values a list of unknown length certainly holds among others, each as one
    of its elements (`list(model.parameters()) + [w]` holds `w`: see
    `gradguard.analysis.list_members`)."""

    elements: tuple[Value, ...] | None = None
    fields: tuple[str, ...] | None = None
    items: Value | None = None
    members: tuple[Value, ...] | None = None

    def join(
        self, other: Structure, join_value: Callable[[Value, Value], Value], *, mapping: bool
    ) -> Structure:
        """What holds on both paths (the list rules aside, see `absorbs` and `mixed`).

        Elements survive, joined one by one, when both paths hold as many and (for a
        `mapping` on either path) the same keys; field names survive with the elements
        when equal; items survive, joined, when both paths built them."""
        if self is other and (self.fields is None or self.elements is not None):
            return self
        elements: tuple[Value, ...] | None = None
        a, b = self.elements, other.elements
        same_keys = self.fields == other.fields or not mapping
        if a is not None and b is not None and len(a) == len(b) and same_keys:
            elements = tuple(join_value(x, y) for x, y in zip(a, b, strict=True))
        items = None
        if self.items is not None and other.items is not None:
            items = join_value(self.items, other.items)
        return Structure(
            elements=elements,
            fields=self.fields if self.fields == other.fields and elements is not None else None,
            items=items,
            members=self.members if self.members == other.members else None,
        )

    def absorbs(self, other: Structure) -> bool:
        """Of two lists: `other` is the empty list literal and this one a list of items, so
        their join is this list (no element breaks it: `xs = []` before a loop appending to
        it)."""
        return other.elements == () and self.items is not None

    def mixed(
        self, other: Structure, join_value: Callable[[Value, Value], Value]
    ) -> Structure | None:
        """Of two lists, one of known elements and one of known items: a list of items, every
        one at most the join of them all; None for any other pair."""
        if not (
            (self.items is not None and other.elements)
            or (other.items is not None and self.elements)
        ):
            return None
        held: Value | None = None
        for part in (*(self.elements or ()), *(other.elements or ()), self.items, other.items):
            if part is not None:
                held = part if held is None else join_value(held, part)
        return Structure(items=held)


@dataclass(frozen=True)
class GraphFacts:
    """Graph nodes that saved tensors and that this value's history certainly passes
    through (`graph`), and the nodes that saved this very tensor (`saved_in`); see
    `gradguard.analysis.graph`."""

    graph: frozenset[SavedNode] = frozenset()
    saved_in: frozenset[SavedNode] = frozenset()
    # On a list whose items are each computed afresh (a comprehension's, see
    # `gradguard.analysis.item_graphs`): the nodes that saved each item itself, one per
    # item; its `graph` holds the nodes each item's history runs through, one per item.
    items_saved: frozenset[SavedNode] = frozenset()

    def join(self, other: GraphFacts) -> GraphFacts:
        """Only the nodes both paths run through (or were saved by) are certain."""
        if self is other:
            return self
        return GraphFacts(
            graph=self.graph & other.graph,
            saved_in=self.saved_in & other.saved_in,
            items_saved=self.items_saved & other.items_saved,
        )


@dataclass(frozen=True)
class TensorFacts:
    """What is certain about a tensor's data: its shape (see `gradguard.analysis.shapes`)
    and the last activation certainly applied to it (see `Activation`; None: none, or not
    known)."""

    shape: Shape = UNKNOWN_SHAPE
    activation: Activation | None = None
    # Certainly of an integer or bool dtype (see `gradguard.analysis.dtypes`).
    integer_dtype: bool = False
    # The floating dtype it certainly has (`"torch.float32"`; see `dtypes.float_dtype`).
    float_dtype: str | None = None
    # Certainly of dtype int64 or int32, the integer dtypes torch indexes with (not bool or
    # uint8, which index as masks): `x[idx]` picks one slice of `x` per element of `idx`.
    index_dtype: bool = False
    # Certainly contiguous: made by an op that always allocates a contiguous result
    # (`softmax`, `log_softmax`, `.contiguous()`), so `flatten`/`reshape` of it is a view.
    contiguous: bool = False

    def join(self, other: TensorFacts) -> TensorFacts:
        """The shape both paths certainly have (dimension by dimension, see `join_shapes`);
        the activation when both paths applied the same one at the same expression; an
        integer (or index) dtype when both paths made one; a floating dtype both paths have;
        contiguity when both paths have it."""
        if self is other:
            return self
        return TensorFacts(
            shape=join_shapes(self.shape, other.shape),
            activation=self.activation if self.activation == other.activation else None,
            integer_dtype=self.integer_dtype and other.integer_dtype,
            float_dtype=self.float_dtype if self.float_dtype == other.float_dtype else None,
            index_dtype=self.index_dtype and other.index_dtype,
            contiguous=self.contiguous and other.contiguous,
        )


NO_AUTOGRAD = Autograd()
NO_OBJECT = ObjectFacts()
NO_PARAMETERS = ParameterFacts()
NO_STRUCTURE = Structure()
NO_GRAPH = GraphFacts()
NO_TENSOR = TensorFacts()
