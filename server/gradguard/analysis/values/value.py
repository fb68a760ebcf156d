"""The abstract values of the dataflow pass.

A `Value` is composed of facets (see `gradguard.analysis.values.facets`), each the facts
about one concept with its own join: `Autograd` (does it take part in autograd, and if not
why), `ObjectFacts` (which module, function, class instance or literal it is),
`ParameterFacts` (what was done to a module's parameters), `Structure` (what a tuple, list
or dict holds), `GraphFacts` (which saving graph nodes its history runs through) and
`TensorFacts` (what is certain about a tensor's data: shape, last activation).

Three facts stay on the value itself rather than in a facet:

* `kind`, what sort of Python object it is: it says which facets can hold anything (a
  tensor has autograd and tensor facts, a module object facts, a list a structure) and the
  structure's join needs it (the list rules, a dict's keys); it is also the most read fact.
* `origin` and `carries`, the dataflow's bookkeeping (the statement that bound the value,
  the loop-carried values it depends on): facts about where the value flowed, not about the
  object, and changed on nearly every binding (`with_origin`), so changing them copies no
  facet.

Values are built from flat facts, `Value(grad=Grad.TRACKED, kind=Kind.TENSOR, leaf=True)`,
and changed with `evolve(value, shape=...)`: each flat fact is routed to its facet (see
`_FACET_OF`), facets left alone are shared. They are read through the facets
(`value.autograd`) or through the flat read-only names (`value.grad`), which read the facet.
`join` is the composition of the facet joins.
"""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import reduce
from typing import TYPE_CHECKING, Any, TypedDict

from gradguard.analysis.graph import SavedNode
from gradguard.analysis.shapes import UNKNOWN_SHAPE, Shape
from gradguard.analysis.values.facets import (
    NO_AUTOGRAD,
    NO_GRAPH,
    NO_OBJECT,
    NO_PARAMETERS,
    NO_STRUCTURE,
    NO_TENSOR,
    Autograd,
    GraphFacts,
    ObjectFacts,
    ParameterFacts,
    Structure,
    TensorFacts,
    evolve_facet,
)
from gradguard.analysis.values.vocabulary import (
    Activation,
    Carry,
    ClassInfo,
    ConditionalLoss,
    ForcedLeaf,
    Grad,
    Kind,
    Loss,
    LossKind,
    ModuleRef,
)

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from gradguard.analysis.parameters import Freeze, OptimizedParameters


class ValueChanges(TypedDict, total=False):
    """What `evolve` changes: a fact of the value itself, a whole facet, or a flat fact of
    one facet (the same names `Value()` takes and the flat properties read)."""

    kind: Kind
    origin: ast.stmt | None
    carries: frozenset[Carry]
    autograd: Autograd
    object_facts: ObjectFacts
    parameter_facts: ParameterFacts
    structure: Structure
    graph_facts: GraphFacts
    tensor_facts: TensorFacts
    # Autograd
    grad: Grad
    loss: Loss | None
    leaf: bool | None
    retains_grad: bool
    inference: bool
    unless: ConditionalLoss | None
    inert_terms: frozenset[Loss]
    batch: bool
    forced: ForcedLeaf | None
    copies: frozenset[Loss]
    # ObjectFacts
    module: ModuleRef | None
    function: ast.FunctionDef | ast.AsyncFunctionDef | None
    instance_of: ClassInfo | None
    const: object
    alternatives: tuple[Value, ...] | None
    unless_none: Value | None
    # ParameterFacts
    frozen: Freeze | None
    optimizes: OptimizedParameters | None
    # Structure
    elements: tuple[Value, ...] | None
    fields: tuple[str, ...] | None
    items: Value | None
    members: tuple[Value, ...] | None
    # GraphFacts
    graph: frozenset[SavedNode]
    saved_in: frozenset[SavedNode]
    items_saved: frozenset[SavedNode]
    # TensorFacts
    shape: Shape
    activation: Activation | None
    integer_dtype: bool
    float_dtype: str | None
    index_dtype: bool
    contiguous: bool


@dataclass(frozen=True, init=False)
class Value:
    """An abstract value; immutable, so environments can share them freely."""

    kind: Kind
    origin: ast.stmt | None  # the statement that bound it
    carries: frozenset[Carry]  # the loop-carried values it depends on
    autograd: Autograd
    object_facts: ObjectFacts
    parameter_facts: ParameterFacts
    structure: Structure
    graph_facts: GraphFacts
    tensor_facts: TensorFacts

    def __init__(
        self,
        grad: Grad = Grad.UNKNOWN,
        kind: Kind = Kind.UNKNOWN,
        loss: Loss | None = None,
        *,
        origin: ast.stmt | None = None,
        carries: frozenset[Carry] = frozenset(),
        # Autograd (with `grad` and `loss`)
        leaf: bool | None = False,
        retains_grad: bool = False,
        inference: bool = False,
        unless: ConditionalLoss | None = None,
        inert_terms: frozenset[Loss] = frozenset(),
        batch: bool = False,
        forced: ForcedLeaf | None = None,
        copies: frozenset[Loss] = frozenset(),
        # ObjectFacts
        module: ModuleRef | None = None,
        function: ast.FunctionDef | ast.AsyncFunctionDef | None = None,
        instance_of: ClassInfo | None = None,
        const: object = None,
        alternatives: tuple[Value, ...] | None = None,
        unless_none: Value | None = None,
        # ParameterFacts
        frozen: Freeze | None = None,
        optimizes: OptimizedParameters | None = None,
        # Structure
        elements: tuple[Value, ...] | None = None,
        fields: tuple[str, ...] | None = None,
        items: Value | None = None,
        members: tuple[Value, ...] | None = None,
        # GraphFacts
        graph: frozenset[SavedNode] = frozenset(),
        saved_in: frozenset[SavedNode] = frozenset(),
        items_saved: frozenset[SavedNode] = frozenset(),
        # TensorFacts
        shape: Shape = UNKNOWN_SHAPE,
        activation: Activation | None = None,
        integer_dtype: bool = False,
        float_dtype: str | None = None,
        index_dtype: bool = False,
        contiguous: bool = False,
    ) -> None:
        """A value from flat facts, each given to its facet; a facet given none of its
        facts is the shared default."""
        autograd = NO_AUTOGRAD
        if (
            grad is not Grad.UNKNOWN
            or loss is not None
            or leaf
            or retains_grad
            or inference
            or forced is not None
        ):
            autograd = Autograd(
                grad,
                loss,
                leaf,
                retains_grad,
                inference,
                unless,
                inert_terms,
                batch,
                forced,
                copies,
            )
        elif unless is not None or inert_terms or batch or copies:
            autograd = Autograd(unless=unless, inert_terms=inert_terms, batch=batch, copies=copies)
        object_facts = NO_OBJECT
        if (
            module is not None
            or function is not None
            or instance_of is not None
            or alternatives is not None
            or unless_none is not None
        ):
            object_facts = ObjectFacts(
                module, function, instance_of, const, alternatives, unless_none
            )
        elif const is not None:
            object_facts = ObjectFacts(const=const)
        parameter_facts = NO_PARAMETERS
        if frozen is not None or optimizes is not None:
            parameter_facts = ParameterFacts(frozen, optimizes)
        structure = NO_STRUCTURE
        if elements is not None or fields is not None or items is not None or members:
            structure = Structure(elements, fields, items, members)
        graph_facts = NO_GRAPH
        if graph or saved_in or items_saved:
            graph_facts = GraphFacts(graph, saved_in, items_saved)
        tensor_facts = NO_TENSOR
        if (
            shape is not UNKNOWN_SHAPE
            or activation is not None
            or integer_dtype
            or float_dtype is not None
            or index_dtype
            or contiguous
        ):
            tensor_facts = TensorFacts(
                shape, activation, integer_dtype, float_dtype, index_dtype, contiguous
            )
        self.__dict__.update(
            kind=kind,
            origin=origin,
            carries=carries,
            autograd=autograd,
            object_facts=object_facts,
            parameter_facts=parameter_facts,
            structure=structure,
            graph_facts=graph_facts,
            tensor_facts=tensor_facts,
        )

    @classmethod
    def composed(
        cls,
        kind: Kind = Kind.UNKNOWN,
        *,
        origin: ast.stmt | None = None,
        carries: frozenset[Carry] = frozenset(),
        autograd: Autograd = NO_AUTOGRAD,
        object_facts: ObjectFacts = NO_OBJECT,
        parameter_facts: ParameterFacts = NO_PARAMETERS,
        structure: Structure = NO_STRUCTURE,
        graph_facts: GraphFacts = NO_GRAPH,
        tensor_facts: TensorFacts = NO_TENSOR,
    ) -> Value:
        """A value from its facets."""
        new = object.__new__(cls)
        new.__dict__.update(
            kind=kind,
            origin=origin,
            carries=carries,
            autograd=autograd,
            object_facts=object_facts,
            parameter_facts=parameter_facts,
            structure=structure,
            graph_facts=graph_facts,
            tensor_facts=tensor_facts,
        )
        return new

    # --- autograd (flat, read-only) ---
    @property
    def grad(self) -> Grad:
        """Whether it takes part in autograd (`autograd.grad`)."""
        return self.autograd.grad

    @property
    def loss(self) -> Loss | None:
        """Why and where it lost (or never had) history (`autograd.loss`)."""
        return self.autograd.loss

    @property
    def leaf(self) -> bool | None:
        """True: a leaf tensor (no grad_fn), with TRACKED one that requires grad; None: with
        TRACKED, a leaf on some paths only (`autograd.leaf`). Test it for truth ("certainly
        a leaf"); "certainly computed" is `has_history`."""
        return self.autograd.leaf

    @property
    def retains_grad(self) -> bool:
        """`x.retain_grad()` was called on this tensor (`autograd.retains_grad`)."""
        return self.autograd.retains_grad

    @property
    def inference(self) -> bool:
        """Certainly an inference tensor (allocated under inference_mode) (`autograd.inference`)."""
        return self.autograd.inference

    @property
    def unless(self) -> ConditionalLoss | None:
        """No history exactly where this condition fails (`autograd.unless`)."""
        return self.autograd.unless

    @property
    def inert_terms(self) -> frozenset[Loss]:
        """Terms without history that certainly feed it (`autograd.inert_terms`)."""
        return self.autograd.inert_terms

    @property
    def copies(self) -> frozenset[Loss]:
        """Copies of tensors with history that certainly feed it (`autograd.copies`)."""
        return self.autograd.copies

    @property
    def batch(self) -> bool:
        """An element of a training loop's batches, or a move, cast or view of one
        (`autograd.batch`)."""
        return self.autograd.batch

    @property
    def forced(self) -> ForcedLeaf | None:
        """The forcing of requires_grad after a real cut that made it a leaf
        (`autograd.forced`; read it through `forced_after_cut`, which checks that the value
        is still that leaf)."""
        return self.autograd.forced

    # --- object_facts (flat, read-only) ---
    @property
    def module(self) -> ModuleRef | None:
        """The nn.Module it is (`object_facts.module`)."""
        return self.object_facts.module

    @property
    def function(self) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        """The function of this file it is (`object_facts.function`)."""
        return self.object_facts.function

    @property
    def instance_of(self) -> ClassInfo | None:
        """The class of this file it is, or is an instance of (`object_facts.instance_of`)."""
        return self.object_facts.instance_of

    @property
    def local_class(self) -> ClassInfo | None:
        """The class of this file whose methods it runs: the class it is an instance of, or
        the class of the file a module it holds was built from."""
        if self.instance_of is not None:
            return self.instance_of
        return self.module.local if self.module is not None else None

    @property
    def const(self) -> object:
        """Its bool, int, float or str literal value (`object_facts.const`)."""
        return self.object_facts.const

    @property
    def alternatives(self) -> tuple[Value, ...] | None:
        """The modules it is one of, each apart (`object_facts.alternatives`)."""
        return self.object_facts.alternatives

    @property
    def unless_none(self) -> Value | None:
        """What it is unless it is None (`object_facts.unless_none`)."""
        return self.object_facts.unless_none

    # --- parameter_facts (flat, read-only) ---
    @property
    def frozen(self) -> Freeze | None:
        """The freeze of every parameter of this module (`parameter_facts.frozen`)."""
        return self.parameter_facts.frozen

    @property
    def optimizes(self) -> OptimizedParameters | None:
        """The parameters this optimizer was built on (`parameter_facts.optimizes`)."""
        return self.parameter_facts.optimizes

    # --- structure (flat, read-only) ---
    @property
    def elements(self) -> tuple[Value, ...] | None:
        """The values a tuple, list or dict of known length holds (`structure.elements`)."""
        return self.structure.elements

    @property
    def fields(self) -> tuple[str, ...] | None:
        """A named tuple's field names, a dict's keys (`structure.fields`)."""
        return self.structure.fields

    @property
    def items(self) -> Value | None:
        """What every element of a list of unknown length is (`structure.items`)."""
        return self.structure.items

    @property
    def members(self) -> tuple[Value, ...] | None:
        """Values a list of unknown length certainly holds (`structure.members`)."""
        return self.structure.members

    # --- graph_facts (flat, read-only) ---
    @property
    def graph(self) -> frozenset[SavedNode]:
        """Saving graph nodes its history certainly runs through (`graph_facts.graph`)."""
        return self.graph_facts.graph

    @property
    def saved_in(self) -> frozenset[SavedNode]:
        """Graph nodes that saved this very tensor (`graph_facts.saved_in`)."""
        return self.graph_facts.saved_in

    @property
    def items_saved(self) -> frozenset[SavedNode]:
        """On a list of items each computed afresh, the nodes that saved each item itself
        (`graph_facts.items_saved`)."""
        return self.graph_facts.items_saved

    # --- tensor_facts (flat, read-only) ---
    @property
    def shape(self) -> Shape:
        """What is certain about the tensor's shape (`tensor_facts.shape`)."""
        return self.tensor_facts.shape

    @property
    def activation(self) -> Activation | None:
        """The last activation certainly applied to it (`tensor_facts.activation`)."""
        return self.tensor_facts.activation

    @property
    def integer_dtype(self) -> bool:
        """Certainly a tensor of an integer or bool dtype (`tensor_facts.integer_dtype`)."""
        return self.tensor_facts.integer_dtype

    @property
    def float_dtype(self) -> str | None:
        """The floating dtype it certainly has (`tensor_facts.float_dtype`)."""
        return self.tensor_facts.float_dtype

    @property
    def index_dtype(self) -> bool:
        """Certainly of dtype int64 or int32 (`tensor_facts.index_dtype`)."""
        return self.tensor_facts.index_dtype

    @property
    def contiguous(self) -> bool:
        """Certainly contiguous in memory (`tensor_facts.contiguous`)."""
        return self.tensor_facts.contiguous

    @property
    def integer_valued(self) -> bool:
        """True for a tensor certainly of an integer or bool dtype: bound straight from what
        argmax, argsort, comparisons, integer casts (`.long()`) or the index half of
        `max`/`sort`/`topk` with a dim make (see `torch_api.NON_DIFFERENTIABLE`). Anything
        computed from it afterwards (`.float()`, `* 1.5`) may be floating point again: the
        binding statement must hold the very expression that made it. Or a tensor of the
        `integer_dtype` fact (a factory of known ints, `nn.Parameter` of one)."""
        if self.kind is Kind.TENSOR and self.integer_dtype:
            return True
        loss = self.loss
        if self.kind is not Kind.TENSOR or loss is None:
            return False
        if loss.kind is not LossKind.NON_DIFFERENTIABLE:
            return False
        origin = self.origin
        return isinstance(origin, ast.Assign | ast.AnnAssign) and origin.value is loss.node

    @property
    def historyless(self) -> bool:
        """True when the value is a tensor or a Python number that certainly carries no
        autograd history on any path (computed under no_grad, detached, converted, a fresh
        factory tensor...; see `gradguard.analysis.historyless_names`)."""
        return (
            self.kind in (Kind.TENSOR, Kind.SCALAR)
            and self.grad is Grad.UNTRACKED
            and self.unless is None
        )

    @property
    def has_history(self) -> bool:
        """True when the value certainly has a grad_fn (a non-leaf tracked tensor): not a
        leaf on any path (`leaf` False, not None)."""
        return self.grad is Grad.TRACKED and self.leaf is False

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
        structure = self.structure
        elements, items = structure.elements, structure.items
        if not self.carries and not elements and items is None:
            return self
        carries = frozenset().union(*(mapping.get(c, frozenset()) for c in self.carries))
        if elements or items is not None:
            structure = Structure(
                tuple(e.retagged(mapping) for e in elements) if elements else elements,
                structure.fields,
                items.retagged(mapping) if items is not None else None,
            )
        return evolve(self, carries=carries, structure=structure)

    def all_carries(self) -> frozenset[Carry]:
        """Carries of this value and of its elements."""
        found = self.carries
        structure = self.structure
        if structure is NO_STRUCTURE:
            return found
        for element in structure.elements or ():
            found = found | element.all_carries()
        if structure.items is not None:
            found = found | structure.items.all_carries()
        return found


def evolve(value: Value, **changes: Unpack[ValueChanges]) -> Value:
    """A copy of `value` with `changes`, each flat fact routed to its facet: a
    `dataclasses.replace` without its per-call cost (this runs for nearly every assignment
    the analysis interprets)."""
    new = object.__new__(Value)
    state = new.__dict__
    state.update(value.__dict__)
    if changes.keys() <= _OWN:
        state.update(changes)
    else:
        _route(state, changes)
    return new


# The facts held by the value itself, and its facets: `evolve` sets them as given.
_OWN = frozenset(
    {
        "kind",
        "origin",
        "carries",
        "autograd",
        "object_facts",
        "parameter_facts",
        "structure",
        "graph_facts",
        "tensor_facts",
    }
)
# The facet holding each flat fact (None: held by the value itself).
_FACETS: dict[str, type] = {
    "autograd": Autograd,
    "object_facts": ObjectFacts,
    "parameter_facts": ParameterFacts,
    "structure": Structure,
    "graph_facts": GraphFacts,
    "tensor_facts": TensorFacts,
}
_FACET_OF: dict[str, str | None] = {
    **dict.fromkeys(_OWN),
    **{f.name: name for name, facet in _FACETS.items() for f in dataclasses.fields(facet)},
}


def _route(state: dict[str, Any], changes: Mapping[str, Any]) -> None:
    """Set each flat fact of `changes` in `state` (a value's `__dict__`): on the value itself,
    or on a copy of its facet (one copy per facet changed)."""
    touched: dict[str, dict[str, Any]] = {}
    for name, change in changes.items():
        facet = _FACET_OF[name]
        if facet is None:
            state[name] = change
        elif facet in touched:
            touched[facet][name] = change
        else:
            touched[facet] = {name: change}
    for facet, facet_changes in touched.items():
        state[facet] = evolve_facet(state[facet], facet_changes)


UNKNOWN = Value()
NONE = Value(grad=Grad.UNTRACKED, kind=Kind.NONE, const=None)


def instance_value(info: ClassInfo) -> Value:
    """`self` in a method of the class `info`: an instance of it (a module for an
    `nn.Module` subclass), whose attributes are what `info` knows."""
    kind = Kind.MODULE if info.is_module else Kind.INSTANCE
    return Value(kind=kind, module=ModuleRef(local=info), instance_of=info)


def literal(node: ast.Constant) -> Value:
    """The value of a literal constant."""
    kind = Kind.OTHER
    if isinstance(node.value, bool | int | float | complex):
        kind = Kind.SCALAR
    elif node.value is None:
        return NONE
    loss = Loss(LossKind.LITERAL, node, "a literal")
    const = node.value if isinstance(node.value, bool | int | float | str) else None
    return Value(grad=Grad.UNTRACKED, kind=kind, loss=loss, const=const)


def join(a: Value | None, b: Value | None) -> Value:
    """Merge the values of two control-flow paths: keep only what holds on both, facet by
    facet (see each facet's `join`), the structure's list rules first."""
    if a is None:
        return b if b is not None else UNKNOWN
    if b is None or a is b:
        return a
    if a == b:
        return a
    carries = a.carries | b.carries
    origin = a.origin if a.origin is b.origin else None
    if a.kind is b.kind and a.kind in (Kind.SEQUENCE, Kind.MAPPING):
        listed = _join_lists(a, b, carries, origin)
        if listed is not None:
            return listed
    return Value.composed(
        a.kind if a.kind is b.kind else Kind.UNKNOWN,
        origin=origin,
        carries=carries,
        autograd=a.autograd.join(b.autograd),
        object_facts=a.object_facts.join(b.object_facts),
        parameter_facts=a.parameter_facts.join(b.parameter_facts),
        structure=a.structure.join(b.structure, join, mapping=Kind.MAPPING in (a.kind, b.kind)),
        graph_facts=a.graph_facts.join(b.graph_facts),
        tensor_facts=a.tensor_facts.join(b.tensor_facts),
    )


def _join_lists(
    a: Value, b: Value, carries: frozenset[Carry], origin: ast.stmt | None
) -> Value | None:
    """The structure's rules for two lists, which decide the whole value: an empty list
    joined with a list of items is that list (`Structure.absorbs`); a list of known elements
    joined with one of known items is a list of items and nothing more (`Structure.mixed`).
    None: neither rule applies."""
    if b.structure.absorbs(a.structure):
        return evolve(b, carries=carries, origin=origin)
    if a.structure.absorbs(b.structure):
        return evolve(a, carries=carries, origin=origin)
    mixed = a.structure.mixed(b.structure, join)
    if mixed is not None:
        return Value.composed(Kind.SEQUENCE, origin=origin, carries=carries, structure=mixed)
    return None


def element_of(iterable: Value) -> Value:
    """What one iteration over `iterable` binds: a slice of a tensor along its first
    dimension, or an item of a list whose items are known (built by appends, a
    comprehension, `zip` or `enumerate` of such lists), or what every element of a list or
    tuple written out (`[loss_a, loss_b]`) has in common: each iteration binds one of them.
    Modules of different kinds written out (`[self.stem, self.layer1]`) are also kept apart
    (`Value.alternatives`): each iteration binds one of them, whatever it does is what one
    of them does. Anything else (a mapping, whose iteration yields its keys) is unknown."""
    if iterable.kind is Kind.TENSOR:
        return evolve(iterable, leaf=False, elements=None, shape=UNKNOWN_SHAPE)
    if iterable.kind is not Kind.SEQUENCE:
        return UNKNOWN
    if iterable.items is not None:
        return iterable.items
    if iterable.elements and iterable.fields is None:
        joined = reduce(join, iterable.elements).with_origin(None)
        if joined.kind is Kind.MODULE and all(
            e.kind is Kind.MODULE and e.module is not None for e in iterable.elements
        ):
            each = tuple(dict.fromkeys(e.with_origin(None) for e in iterable.elements))
            return evolve(joined, alternatives=each) if len(each) > 1 else joined
        return joined
    return UNKNOWN


def with_item(container: Value, stored: Value) -> Value | None:
    """A dict after `cache[key] = stored` with a key that is not a known string: a mapping
    whose every value is at most what it held and `stored` (`Structure.items`); None for
    anything else. Reading `cache[k]` then gives at most that (a missing key raises)."""
    if container.kind is not Kind.MAPPING:
        return None
    parts = (*(container.elements or ()), container.items)
    if container.elements is None and container.items is None:
        return None
    held = stored
    for part in parts:
        if part is not None:
            held = join(part, held)
    carries = container.carries | stored.all_carries()
    return Value(kind=Kind.MAPPING, items=held.with_origin(None), carries=carries)


def input_or_result(given: Value, result: Value) -> Value:
    """What an op that may return its input object itself, or may compute `result` from
    it, gives (`F.dropout(w, p, training=flag)`): what holds for both. A tensor requiring
    grad that is a leaf on one path only may or may not have a grad_fn; the join says so
    (`leaf` None), but this keeps its grad unknown, as before that state existed."""
    joined = join(given, result)
    if joined.grad is Grad.TRACKED and given.leaf != result.leaf:
        return evolve(joined, grad=Grad.UNKNOWN, loss=None, leaf=False)
    return joined


def forced_leaf(tensor: Value, forcing: tuple[ast.AST, ast.stmt, ast.expr] | None = None) -> Value:
    """`t.requires_grad = True` (or `t.requires_grad_()`) that did not raise: `t` is a leaf
    that now requires grad. A tensor made by re-wrapping a list or tuple of tensors with
    history (`torch.as_tensor((a, b))`) keeps that creation as its root, as
    `torch.tensor([a, b], requires_grad=True)` does: what grows from it still lost the
    wrapped values' history (GG105). Any other forced leaf starts afresh.

    `forcing` is the forcing node, its statement and the forced expression: when `tensor`
    certainly lost its history at a real cut (`cut_before_forcing`), the leaf carries
    `ForcedLeaf` (GG109 tells a backward run on such a leaf)."""
    loss = tensor.loss
    if loss is None or not (
        loss.kind is LossKind.REWRAP and loss.wrapped_sequence and loss.wrapped_history
    ):
        loss = None
    cut = cut_before_forcing(tensor) if forcing is not None else None
    forced = ForcedLeaf(*forcing, cut) if forcing is not None and cut is not None else None
    return Value(grad=Grad.TRACKED, kind=Kind.TENSOR, loss=loss, leaf=True, forced=forced)


def forced_after_cut(value: Value) -> ForcedLeaf | None:
    """The forcing of requires_grad after a real cut whose leaf `value` certainly is: a
    tensor still a leaf that requires grad (a value evolved into something else, a tensor
    that is no longer a leaf, has dropped out of the fact)."""
    forced = value.forced
    if forced is None or value.kind is not Kind.TENSOR:
        return None
    return forced if value.leaf and value.grad is Grad.TRACKED else None


# Reasons for a missing history that are a cut of a computation the code meant to train:
# a fresh factory tensor or a literal is a real leaf, and forcing grad on it is legitimate.
_CUTS = frozenset(
    {
        LossKind.NO_GRAD,
        LossKind.DETACH,
        LossKind.NON_DIFFERENTIABLE,
        LossKind.FROZEN,
        LossKind.NO_CREATE_GRAPH,
        LossKind.CONVERSION,
    }
)


def real_cut(loss: Loss | None) -> Loss | None:
    """The cut that explains a missing history, or None for a genuine leaf (a fresh factory
    tensor, a literal, data wrapped by `torch.tensor(array)`) or an unknown reason."""
    if loss is None:
        return None
    if loss.kind in _CUTS:
        return loss
    if loss.kind is LossKind.REWRAP and (loss.wrapped_history or real_cut(loss.inner)):
        return loss
    return None


def rewrap_root(loss: Loss) -> bool:
    """`loss` is the making of a leaf by `torch.tensor(data, requires_grad=True)` (or
    `Variable(data, requires_grad=True)`) where `data` had a history of its own (tensors with
    history) or may have had one (data whose history is not known and no cut explains). A
    history grown from such a leaf starts there. Data known never to have had a history (a
    literal, `np.ones(3)`) makes a genuine leaf, and so may data cut before (`np.log(alpha)`
    of a number, the learnable temperature of SAC): neither is a root."""
    if loss.kind is not LossKind.REWRAP:
        return False
    return loss.wrapped_history or (loss.wrapped_unknown and loss.inner is None)


def never_had_history(value: Value) -> bool:
    """A tensor certainly without autograd history on every path that no cut explains: a
    fresh factory tensor, a literal's tensor, data (`torch.randn(3)`). Turning it into
    numbers and wrapping them again (`torch.tensor(t.numpy(), requires_grad=True)`) loses
    nothing: the new leaf is what the code means to differentiate."""
    if value.kind is not Kind.TENSOR or value.grad is not Grad.UNTRACKED:
        return False
    loss = value.loss
    if value.unless is not None or (loss is not None and loss.grad_off is not None):
        return False
    return real_cut(loss) is None


def cut_before_forcing(value: Value) -> Loss | None:
    """Why a tensor about to be forced to require grad certainly has no history, when that
    is a real cut: on every path (no conditional grad mode), of a tensor that can require
    grad (not of an integer dtype, which cannot: GG402's business)."""
    if value.kind is not Kind.TENSOR or value.grad is not Grad.UNTRACKED:
        return None
    if value.integer_valued or value.unless is not None:
        return None
    loss = value.loss
    if loss is not None and loss.grad_off is not None and loss.grad_off.conditional:
        return None
    return real_cut(loss)


def _rank(loss: Loss | None) -> int:
    """How much a reason explains a lost history: a cut (detach, no_grad, conversion) says
    more than a fresh factory tensor, which says more than a literal. Re-wrapping data that
    never had a history (`torch.tensor([1.0, 0.5])`) makes a fresh tensor too; re-wrapping
    values that had one (`torch.tensor([loss_a, loss_b])`) says the most."""
    if loss is None:
        return 0
    if loss.kind is LossKind.REWRAP and loss.wrapped_history:
        return _CUT + 1  # a history certainly cut right there
    if loss.kind is LossKind.REWRAP and _fresh_data(loss):
        return 2
    return {LossKind.LITERAL: 1, LossKind.FACTORY: 2}.get(loss.kind, _CUT)


def _fresh_data(rewrap: Loss) -> bool:
    """A re-wrap of data known to have had no history and not to have been cut."""
    return not rewrap.wrapped_history and not rewrap.wrapped_unknown and rewrap.inner is None


_CUT = 3  # the rank of a reason that cut a history (see `_rank`)


def _converted_array(loss: Loss | None) -> bool:
    """An array (or Python data) that a conversion made of a tensor (`.numpy()`,
    `.tolist()`, `np.asarray(t)`)."""
    return loss is not None and loss.kind is LossKind.CONVERSION


# Reasons for lost history that make a term of a tracked loss certainly useless.
_INERT = frozenset({LossKind.NO_CREATE_GRAPH})


def added_inert_terms(values: Iterable[Value]) -> frozenset[Loss]:
    """The terms without history that a sum of `values` certainly holds, whatever the
    other terms are: the gradients of `torch.autograd.grad` without create_graph, and the
    terms the values already held (`cost + penalty` of an unknown `cost`)."""
    found: frozenset[Loss] = frozenset()
    for value in values:
        found |= value.inert_terms
        loss = value.loss
        if value.grad is Grad.UNTRACKED and loss is not None and loss.kind in _INERT:
            found |= {loss}
    return found


def combine(values: Iterable[Value], *, result_kind: Kind = Kind.TENSOR) -> Value:
    """The value of a differentiable op on `values` with gradient recording on.

    Python scalars and literals never require grad; any tracked input makes the result
    tracked; otherwise an unknown input makes it unknown; all-untracked stays untracked.

    Unknown inputs that are all batch data (`Autograd.batch`) are the exception: the result
    of batch data alone is batch data, and with a cut input (`F.cross_entropy(out.detach(),
    y)`) it has no history, for the reason of the cut. Were a batch to require grad, the
    backward pass would still not reach what the cut cut off.
    """
    carries: frozenset[Carry] = frozenset()
    graph: frozenset[SavedNode] = frozenset()
    inert: frozenset[Loss] = frozenset()
    carried: frozenset[Loss] = frozenset()  # the inert terms operands already held
    copied: frozenset[Loss] = frozenset()  # copies of tensors with history (`Autograd.copies`)
    tracked = unknown = history = False
    batch = True  # every unknown input is batch data
    first_loss: Loss | None = None
    rewrapped: Loss | None = None
    flat: Loss | None = None  # a zero-gradient op a tracked input's history runs through
    for value in values:
        carries |= value.all_carries()
        autograd, kind = value.autograd, value.kind
        if value.graph_facts.graph:
            graph |= value.graph_facts.graph
        if autograd.inert_terms:
            inert |= autograd.inert_terms
            carried |= autograd.inert_terms
        grad, loss = autograd.grad, autograd.loss
        copied |= autograd.copies
        if grad is Grad.UNTRACKED and loss and loss.kind in _INERT:
            inert |= {loss}
        if kind in (Kind.SCALAR, Kind.NONE) or (kind is Kind.OTHER and loss):
            if kind is Kind.OTHER and _converted_array(loss) and _rank(loss) > _rank(first_loss):
                # `arr - y.numpy()`: an array converted from a tensor is data without
                # history, and says why whatever is computed from it alone has none.
                first_loss = loss
            continue
        structure = value.structure
        if kind is Kind.SEQUENCE and (structure.elements is not None or structure.items):
            parts = structure.elements
            inner = combine(parts if parts is not None else (structure.items or UNKNOWN,))
            grad = inner.grad
            loss = inner.loss
            graph |= inner.graph
            inert |= inner.inert_terms
            carried |= inner.inert_terms
            copied |= inner.copies
        if grad is Grad.TRACKED:
            tracked = True
            if loss is not None and rewrap_root(loss):
                rewrapped = rewrapped or loss
            elif loss is not None and loss.kind is LossKind.ZERO_GRADIENT:
                flat = flat or loss
            else:
                history = True
        elif grad is Grad.UNKNOWN:
            unknown = True
            batch = batch and autograd.batch and kind is not Kind.SEQUENCE
        elif first_loss is None or _rank(loss) > _rank(first_loss):
            first_loss = loss
    if tracked:
        # Tracked only through leaves that `torch.tensor(..., requires_grad=True)` made of
        # data that had (or may have had) a history (`rewrap_root`), or through ops whose
        # gradient is zero (`torch.round`): the result's history starts there, and no
        # gradient reaches what came before.
        root = (rewrapped or flat) if not history and not unknown else None
        return Value(
            grad=Grad.TRACKED,
            kind=result_kind,
            loss=root,
            carries=carries,
            graph=graph,
            inert_terms=inert,
            copies=copied,
        )
    if unknown and batch:
        if first_loss is not None and _rank(first_loss) >= _CUT:
            return Value(grad=Grad.UNTRACKED, kind=result_kind, loss=first_loss, copies=copied)
        return Value(kind=result_kind, carries=carries, graph=graph, batch=True, copies=copied)
    if unknown:
        # (The graph nodes stay: if the result has history, it runs through them. So do the
        # inert terms an operand already carried: an op on a sum holding one still holds it.
        # A value without history becomes a term only where it is added, see
        # `added_inert_terms`: multiplied by an unknown factor, it may be that factor's
        # gradient.)
        return Value(
            grad=Grad.UNKNOWN,
            kind=result_kind,
            carries=carries,
            graph=graph,
            inert_terms=carried,
            copies=copied,
        )
    return Value(grad=Grad.UNTRACKED, kind=result_kind, loss=first_loss, copies=copied)
