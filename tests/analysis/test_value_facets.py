"""The facets of a `Value`, tested directly.

1. Each facet's join on constructed facts: what survives, what is dropped, and that the
   join is commutative and (where it should be) idempotent; the value join is the
   composition of the facet joins, the structure's list rules first.
2. Building and evolving a value routes each flat fact to its facet.
3. What the interpreter binds to a name: a snippet with a line marked `# <- name`, and the
   facts expected of that name's value once the marked statement has run.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import re
import textwrap
from collections.abc import Callable
from typing import Any

import pytest

from gradguard.analysis.graph import SavedNode, Saves
from gradguard.analysis.interpreter.statements import FunctionInterpreter
from gradguard.analysis.model import analyse_module
from gradguard.analysis.narrowing import Condition
from gradguard.analysis.parameters import Freeze, OptimizedParameters
from gradguard.analysis.shapes import UNKNOWN_SHAPE, Layer, Shape
from gradguard.analysis.torch_api import ModuleKind
from gradguard.analysis.values import (
    NO_AUTOGRAD,
    NO_GRAPH,
    NO_OBJECT,
    NO_PARAMETERS,
    NO_STRUCTURE,
    NO_TENSOR,
    UNKNOWN,
    Activation,
    ActivationKind,
    Autograd,
    ClassInfo,
    ConditionalLoss,
    ForcedLeaf,
    Grad,
    GraphFacts,
    Kind,
    Loss,
    LossKind,
    ModuleRef,
    ObjectFacts,
    ParameterFacts,
    Structure,
    TensorFacts,
    Value,
    ValueChanges,
    evolve,
    join,
)

# --- constructed facts ------------------------------------------------------------------

STMT = ast.parse("y = f(x)").body[0]
CALL = ast.parse("f(x)", mode="eval").body
assert isinstance(STMT, ast.stmt) and isinstance(CALL, ast.Call)


def _loss(kind: LossKind) -> Loss:
    return Loss(kind, ast.Constant(0), kind.value)


DETACH, NO_GRAD, LITERAL, CONVERSION = map(
    _loss, (LossKind.DETACH, LossKind.NO_GRAD, LossKind.LITERAL, LossKind.CONVERSION)
)
REWRAP = Loss(LossKind.REWRAP, ast.Constant(0), "torch.tensor(...)", wrapped_history=True)
INERT_A, INERT_B = _loss(LossKind.NO_CREATE_GRAPH), _loss(LossKind.NO_CREATE_GRAPH)
FORCED = ForcedLeaf(STMT, STMT, ast.Name("loss"), DETACH)
OTHER_FORCED = ForcedLeaf(CALL, STMT, ast.Name("loss"), DETACH)
PHASE = ConditionalLoss(Condition("phase", "train", when=True), NO_GRAD)
OTHER_PHASE = ConditionalLoss(Condition("mode", "train", when=True), NO_GRAD)

TRACKED = Value(Grad.TRACKED, Kind.TENSOR)
DETACHED = Value(Grad.UNTRACKED, Kind.TENSOR, DETACH)
UNKNOWN_TENSOR = Value(kind=Kind.TENSOR)

LINEAR = ModuleRef("torch.nn.Linear", layer=Layer("last", 3), self_contained=True)
WIDER_LINEAR = ModuleRef("torch.nn.Linear", layer=Layer("last", 5), self_contained=True)
RELU = ModuleRef("torch.nn.ReLU")
NET = ClassInfo(ast.ClassDef(name="Net"), is_module=True)
OTHER_NET = ClassInfo(ast.ClassDef(name="Other"), is_module=True)
LOCAL_NET = ModuleRef(local=NET)
FUNCTION = ast.FunctionDef(name="f")
OTHER_FUNCTION = ast.FunctionDef(name="g")

FREEZE = Freeze(ast.Constant(0), STMT, "model", "`model.requires_grad_(False)`")
OTHER_FREEZE = Freeze(ast.Constant(0), STMT, "model", "`model.requires_grad_(False)`")
OPTIMIZES = OptimizedParameters(CALL, STMT, "model", LINEAR)
OTHER_OPTIMIZES = OptimizedParameters(CALL, STMT, "model", LINEAR)

NODE_A, NODE_B, NODE_C = (SavedNode(ast.Constant(i), Saves.OUTPUT) for i in range(3))

SOFTMAX = Activation(ActivationKind.SOFTMAX, ast.Constant(0), "F.softmax()")
SIGMOID = Activation(ActivationKind.SIGMOID, ast.Constant(0), "torch.sigmoid()")


def _ids(rows: list[tuple[Any, ...]]) -> list[str]:
    return [row[0] for row in rows]


# --- 1. each facet's join ---------------------------------------------------------------

AUTOGRAD_JOINS = [
    ("agreeing tracked", Autograd(Grad.TRACKED), Autograd(Grad.TRACKED), Autograd(Grad.TRACKED)),
    ("tracked or cut is unknown", Autograd(Grad.TRACKED), Autograd(Grad.UNTRACKED, DETACH),
     NO_AUTOGRAD),
    ("the same cut stays", Autograd(Grad.UNTRACKED, DETACH), Autograd(Grad.UNTRACKED, DETACH),
     Autograd(Grad.UNTRACKED, DETACH)),
    ("a literal yields to a conversion", Autograd(Grad.UNTRACKED, LITERAL),
     Autograd(Grad.UNTRACKED, CONVERSION), Autograd(Grad.UNTRACKED, CONVERSION)),
    ("two different cuts give no reason", Autograd(Grad.UNTRACKED, DETACH),
     Autograd(Grad.UNTRACKED, NO_GRAD), Autograd(Grad.UNTRACKED)),
    ("a tracked rewrap root is dropped", Autograd(Grad.TRACKED, REWRAP),
     Autograd(Grad.TRACKED, REWRAP), Autograd(Grad.TRACKED)),
    ("a leaf on both paths", Autograd(Grad.TRACKED, leaf=True), Autograd(Grad.TRACKED, leaf=True),
     Autograd(Grad.TRACKED, leaf=True)),
    # Requires grad on both paths, a leaf on one only: requires grad, leafness unknown
    # (neither `leaf` nor `has_history`; see `join_leaf`).
    ("a leaf on one path", Autograd(Grad.TRACKED, leaf=True), Autograd(Grad.TRACKED),
     Autograd(Grad.TRACKED, leaf=None)),
    ("leafness unknown joined with a leaf", Autograd(Grad.TRACKED, leaf=None),
     Autograd(Grad.TRACKED, leaf=True), Autograd(Grad.TRACKED, leaf=None)),
    ("leafness unknown joined with history", Autograd(Grad.TRACKED, leaf=None),
     Autograd(Grad.TRACKED), Autograd(Grad.TRACKED, leaf=None)),
    ("leafness unknown on both paths", Autograd(Grad.TRACKED, leaf=None),
     Autograd(Grad.TRACKED, leaf=None), Autograd(Grad.TRACKED, leaf=None)),
    # Without requires_grad on both paths leafness says nothing: not known to be a leaf.
    ("leafness unknown joined with an unknown grad", Autograd(Grad.TRACKED, leaf=None),
     Autograd(leaf=True), NO_AUTOGRAD),
    ("a leaf joined with a tensor without grad", Autograd(Grad.TRACKED, leaf=True),
     Autograd(Grad.UNTRACKED, DETACH), NO_AUTOGRAD),
    ("retain_grad on one path", Autograd(Grad.TRACKED, retains_grad=True),
     Autograd(Grad.TRACKED), Autograd(Grad.TRACKED)),
    ("inference tensors on both paths", Autograd(Grad.UNTRACKED, NO_GRAD, inference=True),
     Autograd(Grad.UNTRACKED, NO_GRAD, inference=True),
     Autograd(Grad.UNTRACKED, NO_GRAD, inference=True)),
    ("an inference tensor on one path", Autograd(Grad.UNTRACKED, NO_GRAD, inference=True),
     Autograd(Grad.UNTRACKED, NO_GRAD), Autograd(Grad.UNTRACKED, NO_GRAD)),
    ("inert terms of both paths", Autograd(Grad.TRACKED, inert_terms=frozenset({INERT_A, INERT_B})),
     Autograd(Grad.TRACKED, inert_terms=frozenset({INERT_B})),
     Autograd(Grad.TRACKED, inert_terms=frozenset({INERT_B}))),
    ("copies of both paths", Autograd(Grad.TRACKED, copies=frozenset({INERT_A, INERT_B})),
     Autograd(Grad.TRACKED, copies=frozenset({INERT_A})),
     Autograd(Grad.TRACKED, copies=frozenset({INERT_A}))),
    ("batch data on both paths", Autograd(batch=True), Autograd(batch=True),
     Autograd(batch=True)),
    ("batch data on one path", Autograd(batch=True), Autograd(), Autograd()),
    ("the leaf of one forcing on both paths", Autograd(Grad.TRACKED, leaf=True, forced=FORCED),
     Autograd(Grad.TRACKED, leaf=True, forced=FORCED),
     Autograd(Grad.TRACKED, leaf=True, forced=FORCED)),
    ("a forced leaf on one path", Autograd(Grad.TRACKED, leaf=True, forced=FORCED),
     Autograd(Grad.TRACKED, leaf=True), Autograd(Grad.TRACKED, leaf=True)),
    ("the leaves of two forcings", Autograd(Grad.TRACKED, leaf=True, forced=FORCED),
     Autograd(Grad.TRACKED, leaf=True, forced=OTHER_FORCED), Autograd(Grad.TRACKED, leaf=True)),
    ("a forcing whose tensor is no longer a leaf",
     Autograd(Grad.TRACKED, leaf=True, forced=FORCED), Autograd(Grad.TRACKED, forced=FORCED),
     Autograd(Grad.TRACKED, leaf=None)),
    ("the same conditional grad mode", Autograd(unless=PHASE), Autograd(unless=PHASE),
     Autograd(unless=PHASE)),
    ("different conditional grad modes", Autograd(unless=PHASE), Autograd(unless=OTHER_PHASE),
     NO_AUTOGRAD),
]  # fmt: skip


@pytest.mark.parametrize(("case", "a", "b", "joined"), AUTOGRAD_JOINS, ids=_ids(AUTOGRAD_JOINS))
def test_autograd_join(case: str, a: Autograd, b: Autograd, joined: Autograd) -> None:
    assert a.join(b) == joined
    assert b.join(a) == joined


OBJECT_JOINS = [
    ("the same module", ObjectFacts(LINEAR), ObjectFacts(LINEAR), ObjectFacts(LINEAR)),
    ("one class built with other sizes", ObjectFacts(LINEAR), ObjectFacts(WIDER_LINEAR),
     ObjectFacts(ModuleRef("torch.nn.Linear"))),
    # A layer with parameters and one without: may own some (not "owns none").
    ("two torch.nn layers", ObjectFacts(LINEAR), ObjectFacts(RELU),
     ObjectFacts(ModuleRef(kind=ModuleKind(True, "tensor", parameters_known=False)))),
    ("two torch.nn layers without parameters", ObjectFacts(RELU),
     ObjectFacts(ModuleRef("torch.nn.Tanh")),
     ObjectFacts(ModuleRef(kind=ModuleKind(False, "tensor")))),
    ("a local module and a layer", ObjectFacts(LOCAL_NET), ObjectFacts(RELU), NO_OBJECT),
    # Two optimizer classes: an optimizer, whichever; a scheduler is not one.
    ("two optimizers", ObjectFacts(ModuleRef("torch.optim.SGD")),
     ObjectFacts(ModuleRef("torch.optim.AdamW")), ObjectFacts(ModuleRef("torch.optim.Optimizer"))),
    ("an optimizer and a scheduler", ObjectFacts(ModuleRef("torch.optim.SGD")),
     ObjectFacts(ModuleRef("torch.optim.lr_scheduler.StepLR")), NO_OBJECT),
    ("the same function", ObjectFacts(function=FUNCTION), ObjectFacts(function=FUNCTION),
     ObjectFacts(function=FUNCTION)),
    ("two functions", ObjectFacts(function=FUNCTION), ObjectFacts(function=OTHER_FUNCTION),
     NO_OBJECT),
    ("the same class", ObjectFacts(instance_of=NET), ObjectFacts(instance_of=NET),
     ObjectFacts(instance_of=NET)),
    ("two classes", ObjectFacts(instance_of=NET), ObjectFacts(instance_of=OTHER_NET), NO_OBJECT),
    ("the same flag", ObjectFacts(const=True), ObjectFacts(const=True), ObjectFacts(const=True)),
    ("1 is not True", ObjectFacts(const=1), ObjectFacts(const=True), NO_OBJECT),
    # The modules a loop binds in turn, kept apart only when both paths agree.
    ("the same alternatives", ObjectFacts(alternatives=(TRACKED,)),
     ObjectFacts(alternatives=(TRACKED,)), ObjectFacts(alternatives=(TRACKED,))),
    ("other alternatives", ObjectFacts(alternatives=(TRACKED,)), ObjectFacts(), NO_OBJECT),
    # None or a tensor one method keeps: only while both paths agree.
    ("the same unless None", ObjectFacts(unless_none=TRACKED), ObjectFacts(unless_none=TRACKED),
     ObjectFacts(unless_none=TRACKED)),
    ("None on one path only", ObjectFacts(unless_none=TRACKED), ObjectFacts(), NO_OBJECT),
    ("two numbers", ObjectFacts(const=1), ObjectFacts(const=2), NO_OBJECT),
]  # fmt: skip


@pytest.mark.parametrize(("case", "a", "b", "joined"), OBJECT_JOINS, ids=_ids(OBJECT_JOINS))
def test_object_facts_join(case: str, a: ObjectFacts, b: ObjectFacts, joined: ObjectFacts) -> None:
    assert a.join(b) == joined
    assert b.join(a) == joined


PARAMETER_JOINS = [
    ("the same freeze", ParameterFacts(FREEZE), ParameterFacts(FREEZE), ParameterFacts(FREEZE)),
    ("two freezes", ParameterFacts(FREEZE), ParameterFacts(OTHER_FREEZE), NO_PARAMETERS),
    ("frozen on one path", ParameterFacts(FREEZE), NO_PARAMETERS, NO_PARAMETERS),
    ("the same optimizer", ParameterFacts(optimizes=OPTIMIZES), ParameterFacts(optimizes=OPTIMIZES),
     ParameterFacts(optimizes=OPTIMIZES)),
    ("two optimizers", ParameterFacts(optimizes=OPTIMIZES),
     ParameterFacts(optimizes=OTHER_OPTIMIZES), NO_PARAMETERS),
    ("an optimizer on one path", ParameterFacts(optimizes=OPTIMIZES), NO_PARAMETERS,
     NO_PARAMETERS),
    ("each kept apart", ParameterFacts(FREEZE, OPTIMIZES), ParameterFacts(FREEZE),
     ParameterFacts(FREEZE)),
    ("nothing known", NO_PARAMETERS, NO_PARAMETERS, NO_PARAMETERS),
]  # fmt: skip


@pytest.mark.parametrize(("case", "a", "b", "joined"), PARAMETER_JOINS, ids=_ids(PARAMETER_JOINS))
def test_parameter_facts_join(
    case: str, a: ParameterFacts, b: ParameterFacts, joined: ParameterFacts
) -> None:
    assert a.join(b) == joined
    assert b.join(a) == joined


JOINED = join(TRACKED, DETACHED)  # a tensor whose grad is unknown
STRUCTURE_JOINS = [
    ("elements joined one by one", Structure((TRACKED, DETACHED)), Structure((TRACKED, TRACKED)),
     False, Structure((TRACKED, JOINED))),
    ("tuples of other lengths", Structure((TRACKED,)), Structure((TRACKED, TRACKED)), False,
     NO_STRUCTURE),
    ("a named tuple's fields", Structure((TRACKED, DETACHED), ("values", "indices")),
     Structure((TRACKED, DETACHED), ("values", "indices")), False,
     Structure((TRACKED, DETACHED), ("values", "indices"))),
    ("fields known on one path", Structure((TRACKED, DETACHED), ("values", "indices")),
     Structure((TRACKED, DETACHED)), False, Structure((TRACKED, DETACHED))),
    ("dicts with other keys", Structure((TRACKED,), ("loss",)), Structure((TRACKED,), ("acc",)),
     True, NO_STRUCTURE),
    ("dicts with the same keys", Structure((TRACKED,), ("loss",)),
     Structure((DETACHED,), ("loss",)), True, Structure((JOINED,), ("loss",))),
    ("items on both paths", Structure(items=TRACKED), Structure(items=DETACHED), False,
     Structure(items=JOINED)),
    ("items on one path", Structure(items=TRACKED), NO_STRUCTURE, False, NO_STRUCTURE),
    # What a list certainly holds (`list(ps) + [w]`): only when both paths hold the same.
    ("the same members", Structure(members=(TRACKED,)), Structure(members=(TRACKED,)), False,
     Structure(members=(TRACKED,))),
    ("other members", Structure(members=(TRACKED,)), Structure(members=(DETACHED,)), False,
     NO_STRUCTURE),
    ("fields without elements", Structure(fields=("a",)), Structure(fields=("a",)), False,
     NO_STRUCTURE),
]  # fmt: skip


@pytest.mark.parametrize(
    ("case", "a", "b", "mapping", "joined"), STRUCTURE_JOINS, ids=_ids(STRUCTURE_JOINS)
)
def test_structure_join(
    case: str, a: Structure, b: Structure, mapping: bool, joined: Structure
) -> None:
    assert a.join(b, join, mapping=mapping) == joined
    assert b.join(a, join, mapping=mapping) == joined


def test_the_list_rules_of_structure() -> None:
    """An empty list absorbs into a list of items; known elements and known items mix into
    items; two lists of elements do not mix."""
    empty, appended = Structure(elements=()), Structure(items=TRACKED)
    assert appended.absorbs(empty)
    assert not empty.absorbs(appended)
    assert not appended.absorbs(Structure(items=DETACHED))
    mixed = Structure(elements=(TRACKED,)).mixed(Structure(items=DETACHED), join)
    assert mixed == Structure(items=JOINED)
    assert Structure(items=DETACHED).mixed(Structure(elements=(TRACKED,)), join) == mixed
    assert Structure(elements=(TRACKED,)).mixed(Structure(elements=(DETACHED,)), join) is None


def test_the_list_rules_decide_the_joined_value() -> None:
    """`xs = []` before a loop appending to it: the join is the appended list, other facts
    and all; a list of elements on one path and of items on the other: a list of items."""
    empty = Value(Grad.UNTRACKED, Kind.SEQUENCE, LITERAL, elements=(), origin=STMT)
    appended = Value(kind=Kind.SEQUENCE, items=TRACKED, origin=STMT)
    assert join(empty, appended) == appended
    assert join(appended, empty) == appended
    listed = Value(Grad.UNTRACKED, Kind.SEQUENCE, LITERAL, elements=(DETACHED,))
    assert join(listed, appended) == Value(kind=Kind.SEQUENCE, items=JOINED)


GRAPH_JOINS = [
    ("nodes of both paths", GraphFacts(frozenset({NODE_A, NODE_B})),
     GraphFacts(frozenset({NODE_B})), GraphFacts(frozenset({NODE_B}))),
    ("disjoint paths", GraphFacts(frozenset({NODE_A})), GraphFacts(frozenset({NODE_B})), NO_GRAPH),
    ("saved on both paths", GraphFacts(saved_in=frozenset({NODE_C})),
     GraphFacts(saved_in=frozenset({NODE_C, NODE_A})), GraphFacts(saved_in=frozenset({NODE_C}))),
    ("each kept apart", GraphFacts(frozenset({NODE_A}), frozenset({NODE_C})),
     GraphFacts(frozenset({NODE_A}), frozenset()), GraphFacts(frozenset({NODE_A}))),
    ("a path with no graph", GraphFacts(frozenset({NODE_A})), NO_GRAPH, NO_GRAPH),
]  # fmt: skip


@pytest.mark.parametrize(("case", "a", "b", "joined"), GRAPH_JOINS, ids=_ids(GRAPH_JOINS))
def test_graph_facts_join(case: str, a: GraphFacts, b: GraphFacts, joined: GraphFacts) -> None:
    assert a.join(b) == joined
    assert b.join(a) == joined


TENSOR_JOINS = [
    ("the same shape", TensorFacts(Shape((4, 10), exact=True)),
     TensorFacts(Shape((4, 10), exact=True)), TensorFacts(Shape((4, 10), exact=True))),
    ("batches of other sizes", TensorFacts(Shape((4, 10), exact=True)),
     TensorFacts(Shape((5, 10), exact=True)), TensorFacts(Shape((None, 10), exact=True))),
    ("other ranks", TensorFacts(Shape((4, 10), exact=True)), TensorFacts(Shape((10,), exact=True)),
     TensorFacts(Shape((10,)))),
    ("a shape on one path", TensorFacts(Shape((4, 10), exact=True)), NO_TENSOR, NO_TENSOR),
    ("integer on both paths", TensorFacts(integer_dtype=True), TensorFacts(integer_dtype=True),
     TensorFacts(integer_dtype=True)),
    ("integer on one path", TensorFacts(integer_dtype=True), NO_TENSOR, NO_TENSOR),
    ("the same activation", TensorFacts(activation=SOFTMAX), TensorFacts(activation=SOFTMAX),
     TensorFacts(activation=SOFTMAX)),
    ("two activations", TensorFacts(activation=SOFTMAX), TensorFacts(activation=SIGMOID),
     NO_TENSOR),
    ("an activation on one path", TensorFacts(activation=SOFTMAX), NO_TENSOR, NO_TENSOR),
    ("float32 on both paths", TensorFacts(float_dtype="torch.float32"),
     TensorFacts(float_dtype="torch.float32"), TensorFacts(float_dtype="torch.float32")),
    ("two float dtypes", TensorFacts(float_dtype="torch.float32"),
     TensorFacts(float_dtype="torch.float64"), NO_TENSOR),
    ("an index dtype on both paths", TensorFacts(integer_dtype=True, index_dtype=True),
     TensorFacts(integer_dtype=True, index_dtype=True),
     TensorFacts(integer_dtype=True, index_dtype=True)),
    ("an index dtype and a mask", TensorFacts(integer_dtype=True, index_dtype=True),
     TensorFacts(integer_dtype=True), TensorFacts(integer_dtype=True)),
    ("contiguous on both paths", TensorFacts(contiguous=True), TensorFacts(contiguous=True),
     TensorFacts(contiguous=True)),
    ("contiguous on one path", TensorFacts(contiguous=True), NO_TENSOR, NO_TENSOR),
]  # fmt: skip


@pytest.mark.parametrize(("case", "a", "b", "joined"), TENSOR_JOINS, ids=_ids(TENSOR_JOINS))
def test_tensor_facts_join(case: str, a: TensorFacts, b: TensorFacts, joined: TensorFacts) -> None:
    assert a.join(b) == joined
    assert b.join(a) == joined


FACET_JOINS: list[tuple[str, Any, Any, Any]] = [
    *AUTOGRAD_JOINS,
    *OBJECT_JOINS,
    *PARAMETER_JOINS,
    *GRAPH_JOINS,
    *TENSOR_JOINS,
]


@pytest.mark.parametrize(("case", "a", "b", "joined"), FACET_JOINS, ids=_ids(FACET_JOINS))
def test_a_join_is_idempotent(case: str, a: Any, b: Any, joined: Any) -> None:
    """Joining a path with itself keeps what it has, except a tracked value's rewrap root
    (see `Autograd.join`)."""
    expected = a
    if isinstance(a, Autograd) and a.grad is not Grad.UNTRACKED:
        expected = dataclasses.replace(a, loss=None)
    assert a.join(a) == expected
    assert joined.join(joined) == joined


def _values() -> list[Value]:
    return [
        TRACKED,
        DETACHED,
        UNKNOWN_TENSOR,
        Value(Grad.TRACKED, Kind.TENSOR, leaf=True, shape=Shape((3,), exact=True)),
        Value(kind=Kind.MODULE, module=LINEAR, instance_of=NET, frozen=FREEZE),
        Value(kind=Kind.OTHER, optimizes=OPTIMIZES, origin=STMT),
        Value(Grad.UNTRACKED, Kind.SEQUENCE, LITERAL, elements=(TRACKED, DETACHED)),
        Value(Grad.TRACKED, Kind.TENSOR, graph=frozenset({NODE_A}), activation=SOFTMAX),
        Value(Grad.UNTRACKED, Kind.SCALAR, CONVERSION, const=3),
    ]


@pytest.mark.parametrize("a", _values())
@pytest.mark.parametrize("b", _values())
def test_the_value_join_is_the_composition_of_the_facet_joins(a: Value, b: Value) -> None:
    joined = join(a, b)
    if a == b:
        assert joined is a
        return
    assert joined == Value.composed(
        a.kind if a.kind is b.kind else Kind.UNKNOWN,
        origin=a.origin if a.origin is b.origin else None,
        carries=a.carries | b.carries,
        autograd=a.autograd.join(b.autograd),
        object_facts=a.object_facts.join(b.object_facts),
        parameter_facts=a.parameter_facts.join(b.parameter_facts),
        structure=a.structure.join(b.structure, join, mapping=False),
        graph_facts=a.graph_facts.join(b.graph_facts),
        tensor_facts=a.tensor_facts.join(b.tensor_facts),
    )
    assert join(b, a) == joined


def test_a_leaf_joined_with_history_is_neither() -> None:
    """Both paths require grad, one is a leaf: requires grad still (what `.numpy()` or
    `.item()` rules need), but neither certainly a leaf nor certainly with a grad_fn (what
    an optimizer's or `.grad`'s rules need); anything computed from it has history."""
    leaf = Value(Grad.TRACKED, Kind.TENSOR, leaf=True)
    computed = Value(Grad.TRACKED, Kind.TENSOR)
    for joined in (join(leaf, computed), join(computed, leaf)):
        assert joined.grad is Grad.TRACKED and joined.leaf is None
        assert not joined.leaf and not joined.has_history and not joined.holds_history()
        assert join(joined, computed).leaf is None and join(joined, leaf).leaf is None
    assert join(leaf, leaf).leaf is True and join(computed, computed).has_history
    assert join(leaf, Value(kind=Kind.TENSOR)).leaf is False


def test_a_missing_path_is_the_other_one() -> None:
    assert join(None, TRACKED) is TRACKED
    assert join(TRACKED, None) is TRACKED
    assert join(None, None) is UNKNOWN


# --- 2. building and evolving route each flat fact to its facet --------------------------

# A non-default sample of every flat fact, and the facet holding it.
FLAT_FACTS: list[tuple[str, str, object]] = [
    ("grad", "autograd", Grad.TRACKED),
    ("loss", "autograd", DETACH),
    ("leaf", "autograd", True),
    ("retains_grad", "autograd", True),
    ("inference", "autograd", True),
    ("unless", "autograd", PHASE),
    ("inert_terms", "autograd", frozenset({INERT_A})),
    ("batch", "autograd", True),
    ("forced", "autograd", FORCED),
    ("copies", "autograd", frozenset({INERT_A})),
    ("module", "object_facts", LINEAR),
    ("function", "object_facts", FUNCTION),
    ("instance_of", "object_facts", NET),
    ("const", "object_facts", 0),
    ("alternatives", "object_facts", (TRACKED,)),
    ("unless_none", "object_facts", TRACKED),
    ("frozen", "parameter_facts", FREEZE),
    ("optimizes", "parameter_facts", OPTIMIZES),
    ("elements", "structure", ()),
    ("fields", "structure", ("loss",)),
    ("items", "structure", TRACKED),
    ("members", "structure", (TRACKED,)),
    ("graph", "graph_facts", frozenset({NODE_A})),
    ("saved_in", "graph_facts", frozenset({NODE_B})),
    ("items_saved", "graph_facts", frozenset({NODE_C})),
    ("shape", "tensor_facts", Shape((2,), exact=True)),
    ("activation", "tensor_facts", SIGMOID),
    ("integer_dtype", "tensor_facts", True),
    ("float_dtype", "tensor_facts", "torch.float64"),
    ("index_dtype", "tensor_facts", True),
    ("contiguous", "tensor_facts", True),
]
FACETS = {
    "autograd": NO_AUTOGRAD,
    "object_facts": NO_OBJECT,
    "parameter_facts": NO_PARAMETERS,
    "structure": NO_STRUCTURE,
    "graph_facts": NO_GRAPH,
    "tensor_facts": NO_TENSOR,
}
OWN = {"kind", "origin", "carries"}


def test_every_flat_fact_has_one_facet_a_property_and_a_keyword() -> None:
    """Adding a fact to a facet means adding its flat name everywhere it is routed."""
    facet_fields = {
        f.name: facet for facet, default in FACETS.items() for f in dataclasses.fields(default)
    }
    assert facet_fields == {name: facet for name, facet, _ in FLAT_FACTS}
    assert {f.name for f in dataclasses.fields(Value)} == OWN | set(FACETS)
    keywords = set(inspect.signature(Value.__init__).parameters) - {"self"}
    assert keywords == OWN | set(facet_fields)
    assert set(ValueChanges.__annotations__) == OWN | set(facet_fields) | set(FACETS)
    for name in facet_fields:
        assert isinstance(inspect.getattr_static(Value, name), property), name


@pytest.mark.parametrize(("name", "facet", "sample"), FLAT_FACTS, ids=[f[0] for f in FLAT_FACTS])
def test_building_and_evolving_route_a_flat_fact_to_its_facet(
    name: str, facet: str, sample: object
) -> None:
    built = Value(kind=Kind.TENSOR, **{name: sample})
    evolved = evolve(UNKNOWN_TENSOR, **{name: sample})  # type: ignore[misc]
    for value in (built, evolved):
        assert getattr(value, name) == sample
        assert getattr(getattr(value, facet), name) == sample
        for other, default in FACETS.items():
            if other != facet:
                assert getattr(value, other) is default
    assert getattr(UNKNOWN_TENSOR, facet) is FACETS[facet]  # (not changed in place)


def test_evolve_keeps_facets_it_does_not_change() -> None:
    value = Value(Grad.TRACKED, Kind.TENSOR, module=LINEAR, shape=Shape((3,), exact=True))
    moved = evolve(value, origin=STMT, carries=frozenset())
    assert moved.origin is STMT and value.origin is None
    assert all(getattr(moved, facet) is getattr(value, facet) for facet in FACETS)
    reshaped = evolve(value, shape=UNKNOWN_SHAPE, grad=Grad.UNKNOWN, leaf=False)
    assert reshaped.object_facts is value.object_facts
    assert reshaped.autograd == NO_AUTOGRAD and reshaped.tensor_facts == NO_TENSOR
    whole = evolve(value, structure=Structure(items=TRACKED), items=DETACHED)
    assert whole.structure == Structure(items=DETACHED)


def test_a_value_of_defaults_shares_the_default_facets() -> None:
    assert all(getattr(Value(), facet) is default for facet, default in FACETS.items())
    assert Value() == UNKNOWN and hash(Value()) == hash(UNKNOWN)


# --- 3. the facts the interpreter binds to a name ----------------------------------------

PRELUDE = (
    "import torch\nfrom torch import nn\nimport torch.nn.functional as F\n"
    "model = nn.Linear(2, 2)\nx = torch.randn(3, 2)\n"
)
_MARK = re.compile(r"#\s*<-\s*(\w+)")


def fact_at(snippet: str, monkeypatch: pytest.MonkeyPatch) -> Value:
    """The value bound to the name marked `# <- name` on one line of `snippet` (after a
    prelude defining `model = nn.Linear(2, 2)` and `x`), once the interpreter has run the
    statement starting on that line, the last time it ran it (loops run more than once), a
    pass run for one element of a loop aside (`element_passes`)."""
    source = PRELUDE + textwrap.dedent(snippet)
    marks = [
        (number, found.group(1))
        for number, line in enumerate(source.splitlines(), 1)
        if (found := _MARK.search(line))
    ]
    assert len(marks) == 1, marks
    ((line, name),) = marks
    seen: list[Value] = []
    run_stmt = FunctionInterpreter.run_stmt

    def recording(self: FunctionInterpreter, stmt: ast.stmt) -> None:
        run_stmt(self, stmt)
        if self.in_element_pass:
            return
        if stmt.lineno == line and self.env is not None and name in self.env:
            seen.append(self.env[name])

    monkeypatch.setattr(FunctionInterpreter, "run_stmt", recording)
    analyse_module(ast.parse(source), source)
    assert seen, f"`{name}` is not bound after line {line}"
    return seen[-1]


def _read(facet: object, path: str) -> object:
    """`loss.kind`, `elements.0.grad`: attributes and tuple indices from `facet`."""
    found = facet
    for part in path.split("."):
        found = found[int(part)] if part.isdigit() else getattr(found, part)  # type: ignore[index]
    return found


def _check(value: Value, facet: str, kind: Kind, expected: dict[str, object]) -> None:
    assert value.kind is kind
    for path, want in expected.items():
        got = _read(getattr(value, facet), path)
        if callable(want) and not isinstance(want, type):
            assert want(got), (path, got)
        else:
            assert got == want, (path, got)


def _saves(*kinds: Saves) -> Callable[[frozenset[SavedNode]], bool]:
    """The nodes are one per kind given, saving that."""
    return lambda nodes: sorted(n.saves.value for n in nodes) == sorted(k.value for k in kinds)


def _stand_in(node: SavedNode) -> bool:
    """A parameter's stand-in (`graph_inputs.is_stand_in`)."""
    return isinstance(node.node, ast.arg)


def _no_create_graph(terms: frozenset[Loss]) -> bool:
    return [term.kind for term in terms] == [LossKind.NO_CREATE_GRAPH]


def _one_copy(copies: frozenset[Loss]) -> bool:
    """One copy of tensors with history (`Autograd.copies`)."""
    return [(c.kind, c.wrapped_history) for c in copies] == [(LossKind.REWRAP, True)]


T, U, N = Grad.TRACKED, Grad.UNTRACKED, Grad.UNKNOWN
# A module keeping its hidden layer's output on itself in `forward`, run with grad on, and a
# function reading it through the instance.
_KEPT = (
    "class Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
    "        self.fc = nn.Linear(2, 2)\n    def forward(self, a):\n"
    "        self.hidden = self.fc(a)\n        return self.hidden.sum()\n"
)
_KEEP_RUN = "def main():\n    net = Net()\n    net(x).backward()\n    read(net)\n"
# A plain class whose `__init__` scales a leaf after asking for gradients, and a method
# reading the attribute.
_SCALED = (
    "class Fit:\n    def __init__(self, fit=True):\n"
    "        self.w = torch.ones(3, requires_grad=True)\n{store}"
    "        self.w = self.w * 2\n    def opt(self):\n        k = self.w  # <- k\n"
    "        return torch.optim.SGD([self.w], lr=0.1)\n{more}"
    "def main():\n    Fit().opt()\n"
)
_READ = "def read(m):\n    k = m.hidden  # <- k\n    return m.hidden.grad\n"
_LOADER_LOOP = "def f(net, loader):\n    for xb, yb in loader:\n        out = net(xb)\n"
# A function building a loader, whatever its name, over a dataset it is handed.
_DL = "from torch.utils.data import DataLoader\ndef f(ds):\n    dl = DataLoader(ds, batch_size=4)\n"

AUTOGRAD_FACTS = [
    # A tensor a method other than `__init__` stores (its only store in the file) is what
    # other methods, and code holding the instance, read: a non-leaf when that method
    # computes it with history on every call (`_collect_computed_in_methods`).
    ("kept by forward, read through the instance", _KEPT + _KEEP_RUN + _READ, Kind.TENSOR,
     {"grad": T, "leaf": False}),
    ("kept by a setup method, read by another",
     "class Tuner:\n    def setup(self):\n        w = torch.ones(3, requires_grad=True)\n"
     "        self.part = w[1:]\n    def opt(self):\n        k = self.part  # <- k\n"
     "t = Tuner()\nt.setup()\nt.opt()", Kind.TENSOR, {"grad": T, "leaf": False}),
    # `__init__` making every store of an attribute (in a branch too) leaves what its last
    # store computed: a leaf scaled after `requires_grad=True` is not one.
    ("rescaled by __init__", _SCALED.format(store="", more=""), Kind.TENSOR,
     {"grad": T, "leaf": False}),
    ("rescaled by __init__ in a branch",
     _SCALED.replace("        self.w = torch", "        if fit:\n            self.w = torch")
     .replace("        self.w = self.w", "            self.w = self.w").format(store="", more=""),
     Kind.TENSOR, {"grad": T, "leaf": False}),
    # Look-alikes: `__init__` calls a method (which could read `self.w` half-made), another
    # method stores `self.w` too, a leaf made again. (Every store is a tensor of a known
    # shape, so a tensor it is, history unknown: `shaped_state`.)
    ("rescaled by an __init__ calling a method",
     _SCALED.format(store="        self.check()\n", more="    def check(self):\n        pass\n"),
     Kind.TENSOR, {"grad": N}),
    ("rescaled by __init__, reset by a method",
     _SCALED.format(store="", more="    def reset(self):\n        self.w = torch.zeros(3)\n"),
     Kind.TENSOR, {"grad": N}),
    ("rescaled by __init__ into a leaf",
     _SCALED.replace("self.w * 2", "(self.w * 2).detach().clone()").format(store="", more=""),
     Kind.TENSOR, {"grad": N}),
    # Look-alikes: detached when kept, stored elsewhere too, computed under no_grad only,
    # a leaf kept (a tensor of a known shape where every store is one: `shaped_state`).
    ("kept detached", _KEPT.replace("self.fc(a)\n", "self.fc(a).detach()\n") + _KEEP_RUN + _READ,
     Kind.TENSOR, {"grad": N}),
    ("stored by another method too",
     _KEPT + "    def reset(self):\n        self.hidden = None\n" + _KEEP_RUN + _READ,
     Kind.UNKNOWN, {"grad": N}),
    ("kept by a forward run only under no_grad",
     _KEPT + "def main():\n    net = Net()\n    with torch.no_grad():\n        net(x)\n"
     "    read(net)\n" + _READ, Kind.TENSOR,
     {"grad": N}),
    ("a leaf kept by a setup method",
     "class Tuner:\n    def setup(self):\n        self.part = torch.ones(3, requires_grad=True)\n"
     "    def opt(self):\n        k = self.part  # <- k\nt = Tuner()\nt.setup()\nt.opt()",
     Kind.TENSOR, {"grad": N}),
    ("module output", "h = model(x)  # <- h", Kind.TENSOR,
     {"grad": T, "leaf": False, "loss": None}),
    # Decompositions and paired statistics return tensors that each keep their input's
    # history (torch_api.DIFFERENTIABLE_TUPLES, checked against torch 2.13.0).
    ("eigenvectors of a module output",
     "h = model(x)\nvals, vecs = torch.linalg.eigh(h.t() @ h)  # <- vecs", Kind.TENSOR,
     {"grad": T, "leaf": False}),
    ("the mean of std_mean of a module output",
     "s, m = torch.std_mean(model(x), 0)  # <- m", Kind.TENSOR, {"grad": T, "leaf": False}),
    ("singular values of a module output", "u, sv, v = torch.svd(model(x))  # <- sv",
     Kind.TENSOR, {"grad": T}),
    # Look-alikes: under no_grad, or of data without grad.
    ("eigh under no_grad",
     "h = model(x)\nwith torch.no_grad():\n    vals, vecs = torch.linalg.eigh(h.t() @ h)"
     "  # <- vals", Kind.TENSOR, {"grad": U}),
    ("var_mean of data", "v, m = torch.var_mean(x, 0)  # <- v", Kind.TENSOR, {"grad": U}),
    # `list(model.parameters())` holds the same leaves; a dict's keys are not its values.
    ("item of a list of parameters",
     "ps = list(model.parameters())\nfor p in ps:\n    q = p  # <- q", Kind.TENSOR,
     {"grad": T, "leaf": True}),
    ("index of a tuple of parameters", "ps = tuple(model.parameters())\nq = ps[0]  # <- q",
     Kind.TENSOR, {"grad": T, "leaf": True}),
    ("list of a dict", "d = {'w': model.weight}\nq = list(d)  # <- q", Kind.OTHER,
     {"grad": N}),
    # A layer an nn.Sequential holds at a known position, and the bias a layer was built
    # with, are known like the layer and its weight (`_held_at`, `ModuleRef.has_bias`).
    ("weight of a Sequential's first layer",
     "net = nn.Sequential(nn.Linear(2, 2), nn.Tanh())\nq = net[0].weight  # <- q",
     Kind.TENSOR, {"grad": T, "leaf": True}),
    ("bias of a Sequential's last layer",
     "net = nn.Sequential(nn.Tanh(), nn.Conv2d(2, 2, 3))\nq = net[-1].bias  # <- q",
     Kind.TENSOR, {"grad": T, "leaf": True}),
    # Look-alikes: a position past the end, a container the file changes, a layer built
    # without a bias (or with a flag not known).
    ("past a Sequential's end",
     "net = nn.Sequential(nn.Linear(2, 2))\nq = net[1]  # <- q", Kind.UNKNOWN, {"grad": N}),
    ("a Sequential changed by the file",
     "net = nn.Sequential(nn.Linear(2, 2))\nnet[0] = nn.Identity()\nq = net[0]  # <- q",
     Kind.UNKNOWN, {"grad": N}),
    ("bias of a layer built without one",
     "lin = nn.Linear(2, 2, bias=False)\nq = lin.bias  # <- q", Kind.UNKNOWN, {"grad": N}),
    ("bias of a layer built with a flag",
     "def f(flag):\n    lin = nn.Linear(2, 2, flag)\n    q = lin.bias  # <- q",
     Kind.UNKNOWN, {"grad": N}),
    # In a file that freezes parameters, a module built in the function by a constructor
    # (through casts) is not the frozen one; one a helper returned may be (the helper may
    # freeze it before returning it).
    ("module built here, file freezes",
     "def build():\n    net = nn.Linear(2, 2)\n    net.requires_grad_(False)\n    return net\n"
     "def g(x):\n    own = nn.Linear(2, 2).to('cpu')\n    h = own(x)  # <- h\n    return h",
     Kind.TENSOR, {"grad": T}),
    # Turning off `requires_grad` of a tensor the function computed itself freezes no
    # parameter: the file's modules still compute with history.
    ("file freezes only a computed tensor",
     "def g(a):\n    t = a * 2.0\n    t.requires_grad = False\n"
     "def f(a):\n    h = model(a)  # <- h\n    return h", Kind.TENSOR, {"grad": T}),
    ("file freezes a tensor handed in",
     "def g(a):\n    a.requires_grad = False\n"
     "def f(a):\n    h = model(a)  # <- h\n    return h", Kind.TENSOR, {"grad": N}),
    ("file freezes a name bound twice",
     "def g(a):\n    t = a * 2.0\n    t = model.weight\n    t.requires_grad = False\n"
     "def f(a):\n    h = model(a)  # <- h\n    return h", Kind.TENSOR, {"grad": N}),
    # A frozen model given batch data (never requiring grad) computes without history.
    ("frozen model on batch data",
     "class Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
     "        self.fc = nn.Linear(2, 2)\n    def forward(self, a):\n        return self.fc(a)\n"
     "def f(loader):\n    net = Net()\n    for p in net.parameters():\n"
     "        p.requires_grad = False\n    for a, b in loader:\n"
     "        out = net(a)  # <- out\n        out.sum().backward()",
     Kind.TENSOR, {"grad": U, "loss.kind": LossKind.FROZEN}),
    # A dict of leaf tensors handed to a constructor and kept on self stays what it was.
    ("leaf tensors kept on self",
     "class Trainer:\n    def __init__(self, params):\n        self.params = params\n"
     "    def step(self):\n        for p in self.params.values():\n"
     "            q = p  # <- q\n"
     "t = Trainer({'w': torch.zeros(2, requires_grad=True)})\nt.step()",
     Kind.TENSOR, {"grad": T, "leaf": True}),
    # The default collate stacks rows of tensors without history: batches without history.
    ("batch of a loader over a TensorDataset",
     "from torch.utils.data import DataLoader, TensorDataset\n"
     "loader = DataLoader(TensorDataset(torch.randn(8, 2), torch.zeros(8)), batch_size=2)\n"
     "for xb, yb in loader:\n    b = yb  # <- b", Kind.TENSOR, {"grad": U}),
    ("item of a TensorDataset", "from torch.utils.data import TensorDataset\n"
     "for xb, yb in TensorDataset(torch.randn(8, 2), torch.zeros(8)):\n    b = xb  # <- b",
     Kind.TENSOR, {"grad": U}),
    ("batch of a dataset with history", "from torch.utils.data import DataLoader, TensorDataset\n"
     "w = torch.randn(8, 2, requires_grad=True)\n"
     "for xb, yb in DataLoader(TensorDataset(w * 2, torch.zeros(8))):\n    b = xb  # <- b",
     Kind.UNKNOWN, {"grad": N}),
    ("batch of a loader with its own collate",
     "from torch.utils.data import DataLoader, TensorDataset\n"
     "ds = TensorDataset(torch.randn(8, 2), torch.zeros(8))\n"
     "for xb, yb in DataLoader(ds, collate_fn=input):\n    b = xb  # <- b",
     Kind.UNKNOWN, {"grad": N}),
    # Calling an instance of a class of the file runs its `__call__`.
    ("instance called", "class Compute:\n    def __call__(self, a):\n"
     "        return a.sum().item()\nc = Compute()\nk = c(x)  # <- k", Kind.SCALAR,
     {"grad": U, "loss.kind": LossKind.CONVERSION}),
    ("instance without __call__", "class Compute:\n    def run(self, a):\n"
     "        return a.sum().item()\nc = Compute()\nk = c(x)  # <- k", Kind.UNKNOWN,
     {"grad": N}),
    # What `.detach()` gave (whatever has one), cast or moved, is still cut from autograd.
    ("cast of a detached value", "def f(a):\n    b = a.clone().detach().float()  # <- b\n"
     "    return b", Kind.UNKNOWN, {"grad": U, "loss.kind": LossKind.DETACH}),
    # A generator of a module's parameters handed to a helper: its items are the leaves.
    ("parameters handed to a helper", "def step(params):\n    for p in params:\n"
     "        q = p  # <- q\n        q.grad\nstep(model.parameters())",
     Kind.TENSOR, {"grad": T, "leaf": True}),
    # A static method called on an object gets the call's arguments from its first
    # parameter on.
    ("static method on an object", "class C:\n    @staticmethod\n    def pick(a, b):\n"
     "        return b\nv = C().pick(model(x), x)  # <- v",
     Kind.TENSOR, {"grad": U}),
    # A one-`return` helper runs with the call's arguments inside another run too.
    ("one-return helper inside a run", "def prep(a, b):\n    return a.detach(), b.float()\n"
     "class L(nn.Module):\n    def forward(self, a, b):\n        p, q = prep(a, b)\n"
     "        return (p * q).sum()\nv = L()(model(x), x)  # <- v",
     Kind.TENSOR, {"grad": U}),
    # `torch.autograd.grad` without create_graph: every gradient has no history, whatever
    # the inputs are.
    ("gradients of a module's parameters", "gs = torch.autograd.grad(model(x).sum(), "
     "model.parameters())\nfor g in gs:\n    v = g  # <- v", Kind.TENSOR,
     {"grad": U, "loss.kind": LossKind.NO_CREATE_GRAPH}),
    # Every value of a dict comprehension is what its value expression gives.
    ("dict comprehension of floats", "d = {'a': model(x).sum()}\n"
     "f = {k: float(v) for k, v in d.items()}\nv = f['a']  # <- v", Kind.SCALAR,
     {"grad": U, "loss.kind": LossKind.CONVERSION}),
    # Comparing two known literals gives a known flag: no recording under it.
    ("mode flag from a string constant", "class Opt:\n    phase = 'training'\n"
     "o = Opt()\nwith torch.set_grad_enabled(o.phase == 'train'):\n"
     "    y = model(x)  # <- y", Kind.TENSOR, {"grad": U}),
    ("mode flag from an equal string constant", "class Opt:\n    phase = 'train'\n"
     "o = Opt()\nwith torch.set_grad_enabled(o.phase == 'train'):\n"
     "    y = model(x)  # <- y", Kind.TENSOR, {"grad": T}),
    # A buffer registered once from a tensor without history is that tensor on `self`.
    ("buffer kept on self", "class W(nn.Module):\n    def __init__(self):\n"
     "        super().__init__()\n        self.register_buffer('w', torch.tensor([1.0, 2.0]))\n"
     "    def forward(self, a):\n        b = self.w  # <- b\n        return a * b\n"
     "W()(x)", Kind.TENSOR, {"grad": U}),
    ("buffer registered twice", "class W(nn.Module):\n    def __init__(self, flag):\n"
     "        super().__init__()\n        self.register_buffer('w', torch.tensor([1.0]))\n"
     "        if flag:\n            self.register_buffer('w', x)\n"
     "    def forward(self, a):\n        b = self.w  # <- b\n        return a * b\n"
     "W(True)(x)", Kind.UNKNOWN, {"grad": N}),
    # Only the branch a certain test takes runs: no join with the other one.
    ("branch of a certain flag", "FLAG = False\nif FLAG:\n    y = model(x).detach()\n"
     "else:\n    y = model(x)\nv = y  # <- v", Kind.TENSOR, {"grad": T}),
    ("branch of an unknown flag", "if input():\n    y = model(x).detach()\n"
     "else:\n    y = model(x)\nv = y  # <- v", Kind.TENSOR, {"grad": N}),
    # A list of instances of a class of the file, kept by `__init__` and never changed.
    ("instances kept in a list",
     "class U:\n    def __init__(self):\n        self.m = nn.Linear(3, 1)\n"
     "    def f(self):\n        return self.m(x)\n"
     "class S:\n    def __init__(self):\n        self.us = [U() for _ in range(2)]\n"
     "    def g(self):\n        for u in self.us:\n            v = u.f()  # <- v\n"
     "S().g()", Kind.TENSOR, {"grad": T}),
    ("instances kept in a list another method grows",
     "class U:\n    def __init__(self):\n        self.m = nn.Linear(3, 1)\n"
     "    def f(self):\n        return self.m(x)\n"
     "class S:\n    def __init__(self):\n        self.us = [U() for _ in range(2)]\n"
     "    def add(self, u):\n        self.us.append(u)\n"
     "    def g(self):\n        for u in self.us:\n            v = u.f()  # <- v\n"
     "S().g()", Kind.UNKNOWN, {"grad": N}),
    # So does the branch of a conditional expression.
    ("conditional expression of a certain flag", "FLAG = False\n"
     "v = model(x).detach() if FLAG else model(x)  # <- v", Kind.TENSOR, {"grad": T}),
    ("conditional expression of an unknown flag",
     "v = model(x).detach() if input() else model(x)  # <- v", Kind.TENSOR, {"grad": N}),
    # `len()` is an int whatever it is given (Python checks what `__len__` returns).
    ("len of a tensor", "n = len(x)  # <- n", Kind.SCALAR, {"grad": U}),
    # Iterating a dict whose values are known binds each of them in turn.
    ("dict items", "losses = {'a': model(x).sum(), 'b': model(x).mean()}\n"
     "for name, loss in losses.items():\n    v = loss  # <- v", Kind.TENSOR, {"grad": T}),
    ("dict values", "losses = {'a': model(x).sum(), 'b': model(x).mean()}\n"
     "for loss in losses.values():\n    v = loss  # <- v", Kind.TENSOR, {"grad": T}),
    # Integer class indices in, integers out: no history, whatever it was given.
    ("one_hot", "def f(t):\n    h = F.one_hot(t, 3)  # <- h\n    return h", Kind.TENSOR,
     {"grad": U, "loss.kind": LossKind.NON_DIFFERENTIABLE}),
    # A number kept on the module by its constructor (a tuple store too), every
    # construction leaving the default: reading it gives that number.
    ("number kept on self",
     "class Dice(nn.Module):\n    def __init__(self, k, smooth=1.0):\n        super().__init__()\n"
     "        self.k, self.smooth = k, smooth\n    def forward(self, a):\n"
     "        s = self.smooth  # <- s\n        return a * s\n"
     "dice = Dice(3)\nout = dice(x)",
     Kind.SCALAR, {"grad": U}),
    ("number kept on self, set from outside",
     "class Dice(nn.Module):\n    def __init__(self, k, smooth=1.0):\n        super().__init__()\n"
     "        self.k, self.smooth = k, smooth\n    def forward(self, a):\n"
     "        s = self.smooth  # <- s\n        return a * s\n"
     "dice = Dice(3)\ndice.smooth = torch.ones(1, requires_grad=True)\nout = dice(x)",
     Kind.UNKNOWN, {"grad": Grad.UNKNOWN}),
    ("module a helper returned, file freezes",
     "def build():\n    net = nn.Linear(2, 2)\n    net.requires_grad_(False)\n    return net\n"
     "def g(x):\n    got = build()\n    h = got(x)  # <- h\n    return h",
     Kind.TENSOR, {"grad": Grad.UNKNOWN}),
    ("detach", "h = model(x).detach()  # <- h", Kind.TENSOR,
     {"grad": U, "loss.kind": LossKind.DETACH, "leaf": True}),
    (".data", "h = model(x).data  # <- h", Kind.TENSOR,
     {"grad": U, "loss.kind": LossKind.DETACH, "loss.description": ".data"}),
    (".item()", "v = model(x).sum().item()  # <- v", Kind.SCALAR,
     {"grad": U, "loss.kind": LossKind.CONVERSION, "loss.description": ".item()"}),
    ("no_grad", "with torch.no_grad():\n    h = model(x)  # <- h", Kind.TENSOR,
     {"grad": U, "loss.kind": LossKind.NO_GRAD, "loss.grad_off.description": "torch.no_grad()"}),
    ("rewrap", "t = torch.tensor(model(x))  # <- t", Kind.TENSOR,
     {"grad": U, "loss.kind": LossKind.REWRAP, "loss.wrapped_history": True}),
    ("leaf parameter", "w = torch.zeros(3, requires_grad=True)  # <- w", Kind.TENSOR,
     {"grad": T, "leaf": True}),
    ("factory", "z = torch.zeros(3)  # <- z", Kind.TENSOR,
     {"grad": U, "loss.kind": LossKind.FACTORY, "leaf": True}),
    ("argmax", "i = model(x).argmax(1)  # <- i", Kind.TENSOR,
     {"grad": U, "loss.kind": LossKind.NON_DIFFERENTIABLE}),
    ("literal", "n = 0.0  # <- n", Kind.SCALAR, {"grad": U, "loss.kind": LossKind.LITERAL}),
    ("inference_mode", "with torch.inference_mode():\n    e = torch.ones(2)  # <- e",
     Kind.TENSOR, {"inference": True}),
    # What a non-differentiable op allocates under inference mode is an inference tensor;
    # an integer cast of an integer tensor is that tensor itself.
    # A function of the file is run again with one call's arguments when its summary left
    # the history of its result unknown (a loss module given cut logits and integer labels).
    ("loss module given cut logits and labels",
     "class Crit(nn.Module):\n    def forward(self, logits, target):\n"
     "        return F.cross_entropy(logits, target)\n"
     "def f():\n    y = torch.randint(0, 2, (3,))\n    l = Crit()(model(x).detach(), y)  # <- l\n",
     Kind.TENSOR, {"grad": U, "loss.kind": LossKind.DETACH}),
    ("helper given a cut tensor", "def scale(t, s):\n    return t * s\n"
     "k = scale(model(x).detach(), torch.ones(1))  # <- k", Kind.TENSOR, {"grad": U}),
    ("helper given a tensor with history", "def scale(t, s):\n    return t * s\n"
     "k = scale(model(x), torch.ones(1))  # <- k", Kind.TENSOR, {"grad": T}),
    # All the autograd facts of the run in context: a leaf made by requires_grad_() is one.
    ("helper making a leaf", "def fresh(t):\n    return (t * 2).requires_grad_()\n"
     "k = fresh(torch.ones(2))  # <- k", Kind.TENSOR, {"grad": T, "leaf": True}),
    # A function forcing requires_grad on what it computes from its arguments: whether that
    # hid a cut is the call's (a loss module given embeddings cut by the caller), so the run
    # with the call's arguments gives the forced leaf; given a tensor with history (where
    # the forcing raises) or one of unknown history, no forcing after a cut is known.
    ("loss module forcing grad on what a caller cut",
     "class Crit(nn.Module):\n    def forward(self, e):\n        m = (e * 2).mean()\n"
     "        m.requires_grad = True\n        return m\n"
     "def f():\n    l = Crit()(model(x).detach())  # <- l\n", Kind.TENSOR,
     {"grad": T, "leaf": True, "forced.cut.kind": LossKind.DETACH}),
    ("helper forcing grad on what a caller cut", "def force(t):\n"
     "    s = t.sum()\n    s.requires_grad_()\n    return s\n"
     "with torch.no_grad():\n    d = model(x)\nk = force(d)  # <- k", Kind.TENSOR,
     {"grad": T, "leaf": True, "forced.cut.kind": LossKind.NO_GRAD}),
    ("loss module forcing grad, given history",
     "class Crit(nn.Module):\n    def forward(self, e):\n        m = (e * 2).mean()\n"
     "        m.requires_grad = True\n        return m\n"
     "def f():\n    l = Crit()(model(x))  # <- l\n", Kind.TENSOR, {"forced": None}),
    ("loss module forcing grad, given a parameter",
     "class Crit(nn.Module):\n    def forward(self, e):\n        m = (e * 2).mean()\n"
     "        m.requires_grad = True\n        return m\n"
     "def f(e):\n    l = Crit()(e)  # <- l\n", Kind.TENSOR, {"forced": None}),
    # Sizes and indices add no history: only the indexed or reshaped tensor has any.
    ("indexed by a value not known", "def f(i):\n    y = torch.randint(0, 3, (4, 5))\n"
     "    t = y[:, i]  # <- t\n", Kind.TENSOR, {"grad": U}),
    ("reshaped by its own size", "d = model(x).detach()\nr = d.reshape(-1, d.size(-1))  # <- r",
     Kind.TENSOR, {"grad": U}),
    # Of two re-wrapped operands, the one that cut a history is the reason given.
    ("weights times re-wrapped losses", "def f(cfg):\n    w = torch.tensor(cfg['weights'])\n"
     "    s = torch.tensor([model(x).sum(), model(x).mean()])\n    k = (w * s).sum()  # <- k\n",
     Kind.TENSOR, {"grad": U, "loss.kind": LossKind.REWRAP, "loss.wrapped_history": True}),
    ("re-wrapped losses times weights", "w = torch.tensor([1.0, 0.5])\n"
     "s = torch.tensor([model(x).sum(), model(x).mean()])\nk = (w * s).sum()  # <- k",
     Kind.TENSOR, {"grad": U, "loss.kind": LossKind.REWRAP, "loss.wrapped_history": True}),
    # Writing a number into a tensor without history leaves it without any.
    ("number written into indices", "p = model(x).argmax(1)\np[p == 3] = 0\nk = p  # <- k",
     Kind.TENSOR, {"grad": U}),
    ("tensor with history written into indices", "p = model(x).argmax(1).float()\n"
     "p[0] = model(x)[0, 0]\nk = p  # <- k", Kind.TENSOR, {"grad": T}),
    # Reducing or clamping batch data by numbers gives batch data: a cut loss divided by it
    # has no history.
    ("cut loss over a batch mask's count", "def f(loader):\n    for a, m in loader:\n"
     "        k = model(a).detach().sum() / m.sum().clamp(min=1)  # <- k\n",
     Kind.TENSOR, {"grad": U}),
    # A tensor's sizes are Python ints.
    ("sizes unpacked", "n, c = model(x).shape[:2]  # <- c", Kind.SCALAR, {"grad": U}),
    ("one size", "c = model(x).size(-1)  # <- c", Kind.SCALAR, {"grad": U}),
    ("divided by its batch size", "d = model(x).detach()\nk = d.sum() / d.size(0)  # <- k",
     Kind.TENSOR, {"grad": U}),
    # `sum()` of a list or dict view with known items is arithmetic on them.
    ("sum of a dict's losses", "d = {'a': model(x).sum(), 'b': model(x).mean()}\n"
     "s = sum(d.values())  # <- s", Kind.TENSOR, {"grad": T}),
    ("sum of cut losses", "d = [model(x).sum().detach(), model(x).mean().detach()]\n"
     "s = sum(d)  # <- s", Kind.TENSOR, {"grad": U}),
    ("sum of a generator", "s = sum(v for v in [model(x).sum()])  # <- s", Kind.TENSOR,
     {"grad": T}),
    ("sum of a list not known", "def f(losses):\n    s = sum(losses)  # <- s\n", Kind.UNKNOWN,
     {"grad": N}),
    # A helper called under inference_mode returns inference tensors where it allocated
    # them (a run in that mode tells), not what it only hands back.
    ("helper computing in inference mode", "def enc(a):\n    return model(a) * 2\n"
     "with torch.inference_mode():\n    k = enc(x)  # <- k", Kind.TENSOR, {"inference": True}),
    ("helper handing back in inference mode", "def pick(a):\n    return a\n"
     "with torch.inference_mode():\n    k = pick(x)  # <- k", Kind.TENSOR,
     {"inference": False}),
    # A view of an inference tensor is one too; a copy made outside inference mode is not.
    ("view of an inference tensor", "with torch.inference_mode():\n    e = torch.ones(4, 2)\n"
     "v = e[0:2]  # <- v", Kind.TENSOR, {"inference": True}),
    ("copy of an inference tensor", "with torch.inference_mode():\n    e = torch.ones(4, 2)\n"
     "c = e * 2  # <- c", Kind.TENSOR, {"inference": False}),
    # What `__init__` keeps from a method computing under inference mode stays one.
    ("inference tensor kept on self", "class Probe:\n    def __init__(self, data):\n"
     "        self.features = self._encode(data)\n    def _encode(self, data):\n"
     "        with torch.inference_mode():\n            return model(data)\n"
     "    def step(self):\n        k = self.features  # <- k\n"
     "Probe(x).step()", Kind.TENSOR, {"inference": True}),
    # ... also through a pair unpacked into locals first (`cos, sin = build(n)`); not when
    # one of the names is bound again before it is kept.
    ("inference pair unpacked, then kept on self", "@torch.inference_mode()\n"
     "def build(n):\n    t = torch.arange(n).float()\n    return t.cos(), t.sin()\n"
     "class Rope:\n    def __init__(self, n):\n        cos, sin = build(n)\n"
     "        self.cos = cos\n    def step(self):\n        k = self.cos  # <- k\n"
     "Rope(4).step()", Kind.TENSOR, {"inference": True}),
    ("unpacked name bound again", "@torch.inference_mode()\n"
     "def build(n):\n    t = torch.arange(n).float()\n    return t.cos(), t.sin()\n"
     "class Rope:\n    def __init__(self, n):\n        cos, sin = build(n)\n"
     "        cos = cos.clone()\n        self.cos = cos\n"
     "    def step(self):\n        k = self.cos  # <- k\n"
     "Rope(4).step()", Kind.UNKNOWN, {"inference": False}),
    # A buffer registered by `__init__` is that very tensor in every method, and so stays
    # an inference tensor, where nothing in the file may copy it: a module cast (which
    # copies it when the device or dtype changes), a deep copy, a store from outside.
    ("inference buffer registered by __init__", "@torch.inference_mode()\n"
     "def build(n):\n    t = torch.arange(n).float()\n    return t.cos(), t.sin()\n"
     "class Rope(nn.Module):\n    def __init__(self, n):\n        super().__init__()\n"
     "        cos, sin = build(n)\n        self.register_buffer('cos', cos)\n"
     "    def forward(self, q):\n        k = self.cos  # <- k\n        return q * k\n"
     "Rope(4)(x)", Kind.TENSOR, {"inference": True}),
    ("inference buffer of a file casting a module", "@torch.inference_mode()\n"
     "def build(n):\n    t = torch.arange(n).float()\n    return t.cos(), t.sin()\n"
     "class Rope(nn.Module):\n    def __init__(self, n):\n        super().__init__()\n"
     "        cos, sin = build(n)\n        self.register_buffer('cos', cos)\n"
     "    def forward(self, q):\n        k = self.cos  # <- k\n        return q * k\n"
     "Rope(4).to('cpu')(x)", Kind.UNKNOWN, {"inference": False}),
    ("inference buffer of a file making deep copies", "@torch.inference_mode()\n"
     "def build(n):\n    t = torch.arange(n).float()\n    return t.cos(), t.sin()\n"
     "class Rope(nn.Module):\n    def __init__(self, n):\n        super().__init__()\n"
     "        cos, sin = build(n)\n        self.register_buffer('cos', cos)\n"
     "    def forward(self, q):\n        k = self.cos  # <- k\n        return q * k\n"
     "import copy\ncopy.deepcopy(Rope(4))(x)", Kind.UNKNOWN, {"inference": False}),
    ("inference buffer replaced from outside", "@torch.inference_mode()\n"
     "def build(n):\n    t = torch.arange(n).float()\n    return t.cos(), t.sin()\n"
     "class Rope(nn.Module):\n    def __init__(self, n):\n        super().__init__()\n"
     "        cos, sin = build(n)\n        self.register_buffer('cos', cos)\n"
     "    def forward(self, q):\n        k = self.cos  # <- k\n        return q * k\n"
     "r = Rope(4)\nr.cos = torch.ones(4)\nr(x)", Kind.UNKNOWN, {"inference": False}),
    ("inference buffer beside tensor casts", "@torch.inference_mode()\n"
     "def build(n):\n    t = torch.arange(n).float()\n    return t.cos(), t.sin()\n"
     "class Rope(nn.Module):\n    def __init__(self, n):\n        super().__init__()\n"
     "        cos, sin = build(n)\n        self.register_buffer('cos', cos)\n"
     "    def forward(self, q):\n        k = self.cos  # <- k\n        return q * k\n"
     "Rope(4)(torch.arange(4).float().to('cpu'))", Kind.TENSOR, {"inference": True}),
    ("argmax under inference_mode", "with torch.inference_mode():\n"
     "    i = model(x).argmax(1)  # <- i", Kind.TENSOR, {"inference": True, "grad": U}),
    ("comparison under inference_mode", "with torch.inference_mode():\n"
     "    m = model(x) > 0  # <- m", Kind.TENSOR, {"inference": True, "grad": U}),
    ("indices of max under inference_mode", "with torch.inference_mode():\n"
     "    _, i = torch.max(model(x), 1)  # <- i", Kind.TENSOR, {"inference": True}),
    ("integer cast under inference_mode", "t = torch.zeros(3, dtype=torch.long)\n"
     "with torch.inference_mode():\n    k = t.long()  # <- k", Kind.TENSOR,
     {"inference": False}),
    ("argmax outside inference_mode", "i = model(x).argmax(1)  # <- i", Kind.TENSOR,
     {"inference": False}),
    ("cast of an inference mask inside inference_mode", "with torch.inference_mode():\n"
     "    m = (model(x) > 0).float()  # <- m", Kind.TENSOR, {"inference": True}),
    ("view of an inference tensor outside", "with torch.inference_mode():\n"
     "    e = torch.ones(2, 3)\nv = e.view(-1)  # <- v", Kind.TENSOR, {"inference": True}),
    # flatten and reshape are views of a contiguous tensor, copies (normal tensors) of
    # others: of an inference tensor of unknown layout, nothing is certain.
    ("flatten of a contiguous inference tensor", "with torch.inference_mode():\n"
     "    e = torch.softmax(model(x), 1)\nv = e.flatten()  # <- v", Kind.TENSOR,
     {"inference": True}),
    ("reshape of a transposed inference softmax", "with torch.inference_mode():\n"
     "    e = torch.softmax(model(x), 1).t()\nv = e.reshape(-1)  # <- v", Kind.TENSOR,
     {"inference": False}),
    ("flatten of an inference tensor of unknown layout", "with torch.inference_mode():\n"
     "    e = model(x)\nv = e.flatten()  # <- v", Kind.TENSOR, {"inference": False}),
    ("cast of an inference mask outside (a new tensor)", "with torch.inference_mode():\n"
     "    m = model(x) > 0\nf = m.float()  # <- f", Kind.TENSOR, {"inference": False}),
    ("retain_grad", "h = model(x)\nh.retain_grad()\ng = h  # <- g", Kind.TENSOR,
     {"grad": T, "retains_grad": True}),
    ("autograd.grad", "w = torch.ones(3, requires_grad=True)\n"
     "g = torch.autograd.grad(w.sum(), w)[0]  # <- g", Kind.TENSOR,
     {"grad": U, "loss.kind": LossKind.NO_CREATE_GRAPH}),
    ("gradient penalty", "w = torch.ones(3, requires_grad=True)\n"
     "g = torch.autograd.grad(w.sum(), w)[0]\nloss = w.sum() + g.sum()  # <- loss", Kind.TENSOR,
     {"grad": T, "inert_terms": _no_create_graph}),
    # Added to a value of unknown history, the penalty is still a term of the sum, and
    # stays one through later ops; multiplied by an unknown factor it is not (it may be
    # the factor's gradient).
    ("gradient penalty added to an unknown cost", "def f(cost):\n"
     "    w = torch.ones(3, requires_grad=True)\n    g = torch.autograd.grad(w.sum(), w)[0]\n"
     "    loss = (cost + g.sum()).mean()  # <- loss", Kind.TENSOR,
     {"grad": N, "inert_terms": _no_create_graph}),
    # Scaled by a number it stays a term (MAML's `w - lr * g`); scaled by a factor that
    # requires grad it trains that factor (Meta-SGD's learnable `rate * g`): not inert.
    ("gradient scaled by a number", "w = torch.ones(3, requires_grad=True)\n"
     "g = torch.autograd.grad(w.sum(), w)[0]\nfast = w - 0.1 * g  # <- fast", Kind.TENSOR,
     {"grad": T, "inert_terms": _no_create_graph}),
    ("gradient scaled by a learnable rate", "w = torch.ones(3, requires_grad=True)\n"
     "rate = torch.ones(3, requires_grad=True)\n"
     "g = torch.autograd.grad(w.sum(), w)[0]\nfast = w - rate * g  # <- fast", Kind.TENSOR,
     {"grad": T, "inert_terms": frozenset()}),
    # A copy of tensors with history (`torch.tensor(losses)`) feeds what is computed from
    # it through any op, products included; not through a loss's target (constant by
    # design), nor on a join where one path holds none.
    ("copy of losses scaled by a parameter", "w = torch.ones(2, requires_grad=True)\n"
     "c = torch.tensor([model(x).sum(), model(x).mean()])\n"
     "loss = (w.exp() * c).sum()  # <- loss", Kind.TENSOR, {"grad": T, "copies": _one_copy}),
    ("copy of an output given to a loss as its input",
     "c = torch.tensor(model(x))\nloss = F.mse_loss(c * 2, x)  # <- loss", Kind.TENSOR,
     {"copies": _one_copy}),
    ("copy of an output given to a loss as its target",
     "c = torch.tensor(model(x))\nloss = F.mse_loss(model(x), c)  # <- loss", Kind.TENSOR,
     {"grad": T, "copies": frozenset()}),
    ("copy of an output given to a loss module as its target",
     "c = torch.tensor(model(x))\nloss = nn.SmoothL1Loss()(model(x), target=c)  # <- loss",
     Kind.TENSOR, {"grad": T, "copies": frozenset()}),
    ("copy on one path only", "c = torch.tensor(model(x))\nif input():\n"
     "    c = model(x)\nk = c * 2  # <- k", Kind.TENSOR, {"copies": frozenset()}),
    ("copy of data without history", "c = torch.tensor(x.tolist())\nk = model(c)  # <- k",
     Kind.TENSOR, {"grad": T, "copies": frozenset()}),
    # A tensor with history stored once on `self` in `__init__` is that tensor in every
    # method, unless some code may change its grad state in place.
    ("computed attribute read by a method", "class M:\n    def __init__(self):\n"
     "        self.w = torch.ones(2, requires_grad=True) * 2\n    def read(self):\n"
     "        v = self.w  # <- v\nM().read()\n", Kind.TENSOR, {"grad": T, "leaf": False}),
    ("computed attribute detached in place elsewhere", "class M:\n"
     "    def __init__(self):\n        self.w = torch.ones(2, requires_grad=True) * 2\n"
     "    def cut(self):\n        self.w.detach_()\n    def read(self):\n"
     "        v = self.w  # <- v\nM().read()\n", Kind.TENSOR, {"grad": N}),
    ("gradient penalty scaled by an unknown factor", "def f(scale):\n"
     "    w = torch.ones(3, requires_grad=True)\n    g = torch.autograd.grad(w.sum(), w)[0]\n"
     "    loss = scale * g.sum()  # <- loss", Kind.TENSOR,
     {"grad": N, "inert_terms": frozenset()}),
    ("set_grad_enabled(test)", "def run(phase):\n"
     "    with torch.set_grad_enabled(phase == 'train'):\n        h = model(x)  # <- h",
     Kind.TENSOR, {"grad": N, "unless.condition.key": "phase",
                   "unless.loss.kind": LossKind.NO_GRAD}),
    ("detached on one path", "h = model(x)\nif input():\n    h = h.detach()\nk = h  # <- k",
     Kind.TENSOR, {"grad": N, "loss": None, "leaf": False}),
    # Iterating a list or tuple written out binds what all its elements have in common.
    ("element of a written-out list", "for l in [model(x).sum(), model(x).mean()]:\n"
     "    k = l  # <- k", Kind.TENSOR, {"grad": T}),
    ("element of pairs zipped from written-out lists",
     "for n, l in zip([4, 5], [model(x).sum(), model(x).mean()]):\n    k = n * l  # <- k",
     Kind.TENSOR, {"grad": T}),
    ("element of a list of a loss and a detached copy", "for l in [model(x).sum(), "
     "model(x).sum().detach()]:\n    k = l  # <- k", Kind.TENSOR, {"grad": N}),
    # Arrays converted from a tensor keep their conversion through numpy and arithmetic.
    ("arithmetic on a converted array", "a = model(x).detach().numpy()\n"
     "d = a * 2.0 - a  # <- d", Kind.UNKNOWN,
     {"grad": U, "loss.kind": LossKind.CONVERSION, "loss.description": ".numpy()"}),
    ("numpy function of a converted array", "import numpy as np\n"
     "a = model(x).detach().numpy()\nb = np.abs(a - 1.0)  # <- b", Kind.OTHER,
     {"grad": U, "loss.kind": LossKind.CONVERSION, "loss.description": ".numpy()"}),
    ("re-wrap of a converted array", "a = model(x).detach().numpy()\n"
     "t = torch.from_numpy(a * 2.0)  # <- t", Kind.TENSOR,
     {"grad": U, "loss.kind": LossKind.REWRAP, "loss.inner.kind": LossKind.CONVERSION}),
    ("a tensor times a converted array", "a = model(x).detach().numpy()\n"
     "t = model(x) * torch.from_numpy(a)  # <- t", Kind.TENSOR, {"grad": T, "loss": None}),
    # A value read back from a dict filled by keys that are not known strings.
    ("one value of a dict filled in a loop", "cache = {}\nfor i in range(3):\n"
     "    cache[i] = model(x).detach()\nv = cache[0]  # <- v", Kind.TENSOR,
     {"grad": U, "loss.kind": LossKind.DETACH}),
    ("known keys, then an unknown key", "d = {'a': model(x).detach()}\n"
     "d[input()] = model(x)\nv = d['a']  # <- v", Kind.TENSOR, {"grad": N}),
    ("a dict changed by a method", "cache = {}\ncache[input()] = model(x)\n"
     "cache.update(b=3)\nv = cache['b']  # <- v", Kind.UNKNOWN, {"grad": N}),
    # The legacy Variable wrapper makes a new leaf of the data, without its history.
    ("legacy Variable", "from torch.autograd import Variable\n"
     "v = Variable(model(x))  # <- v", Kind.TENSOR,
     {"grad": U, "leaf": True, "loss.kind": LossKind.REWRAP, "loss.wrapped_history": True}),
    ("legacy Variable asked to require grad", "from torch.autograd import Variable\n"
     "v = Variable(x, True)  # <- v", Kind.TENSOR, {"grad": T, "leaf": True}),
    ("re-wrap of data cut by .data", "t = torch.tensor(model(x).data)  # <- t", Kind.TENSOR,
     {"grad": U, "loss.kind": LossKind.REWRAP, "loss.inner.kind": LossKind.DETACH,
      "loss.wrapped_history": False}),
    # Through an op whose gradient is zero (round, floor, sign...): tracked, zero gradients.
    ("rounded output", "r = torch.round(model(x))  # <- r", Kind.TENSOR,
     {"grad": T, "loss.kind": LossKind.ZERO_GRADIENT, "loss.description": "torch.round()"}),
    ("loss of a rounded output", "l = F.mse_loss(model(x).round(), x)  # <- l", Kind.TENSOR,
     {"grad": T, "loss.kind": LossKind.ZERO_GRADIENT, "loss.description": ".round()"}),
    ("rounded plus a differentiable term", "l = model(x).round().sum() + model(x).sum()"
     "  # <- l", Kind.TENSOR, {"grad": T, "loss": None}),
    ("frac keeps a gradient", "f = torch.frac(model(x))  # <- f", Kind.TENSOR,
     {"grad": T, "loss": None}),
    # `named_parameters()` of a known module yields (name, leaf that requires grad) pairs.
    ("parameter from named_parameters", "for name, p in model.named_parameters():\n"
     "    k = p  # <- k", Kind.TENSOR, {"grad": T, "leaf": True}),
    ("name from named_parameters", "for name, p in model.named_parameters():\n"
     "    k = name  # <- k", Kind.OTHER, {"grad": N}),
    ("key of a dict written out (iteration yields keys)", "for l in {'a': model(x)}:\n"
     "    k = l  # <- k", Kind.UNKNOWN, {"grad": N}),
    # What a loop draws from a loader handed in and feeds to a model is batch data (see
    # `gradguard.analysis.batches`): scored against a cut prediction, it adds no history.
    ("target drawn from a loader", f"{_LOADER_LOOP}        k = yb  # <- k", Kind.UNKNOWN,
     {"grad": N, "batch": True}),
    ("moved and cast target", f"{_LOADER_LOOP}        k = yb.to('cpu').long() / 2  # <- k",
     Kind.UNKNOWN, {"grad": N, "batch": True}),
    ("cut prediction against a target", f"{_LOADER_LOOP}"
     "        l = F.cross_entropy(out.detach(), yb)  # <- l", Kind.TENSOR,
     {"grad": U, "loss.kind": LossKind.DETACH}),
    ("prediction against a detached target", f"{_LOADER_LOOP}"
     "        l = F.mse_loss(out, yb.detach())  # <- l", Kind.TENSOR, {"grad": N}),
    ("cut prediction against another model's output", f"{_LOADER_LOOP}"
     "        l = F.mse_loss(out.detach(), net(yb))  # <- l", Kind.TENSOR, {"grad": N}),
    ("output of a module of unknown class moved to the cpu", "def f(m, xb):\n    m.eval()\n"
     "    k = m(xb).cpu()  # <- k", Kind.TENSOR, {"grad": T}),
    ("part of a batch", "def f(net, loader):\n    for i, batch in enumerate(loader):\n"
     "        out = net(batch[0].cuda())\n        k = batch[1]  # <- k", Kind.UNKNOWN,
     {"batch": True}),
    ("batch handed to a step function by its every call", "def step(net, xb, yb):\n"
     "    out = net(xb)\n    k = yb  # <- k\ndef fit(net, loader):\n    for xb, yb in loader:\n"
     "        step(net, xb, yb)\n", Kind.UNKNOWN, {"batch": True}),
    ("a step function also handed a model's output", "def step(net, xb, yb):\n"
     "    out = net(xb)\n    k = yb  # <- k\ndef fit(net, loader):\n    for xb, yb in loader:\n"
     "        step(net, xb, yb)\n        step(net, xb, net(xb))\n", Kind.UNKNOWN,
     {"batch": False}),
    ("pairs zipped from two values are not batches", "def f(net, p, q):\n"
     "    for a, b in zip(p, q):\n        out = net(a)\n        k = b  # <- k", Kind.UNKNOWN,
     {"batch": False}),
    ("a loop feeding nothing unknown draws no batches", "def f(pairs):\n"
     "    for a, b in pairs:\n        out = F.relu(a)\n        k = b  # <- k", Kind.UNKNOWN,
     {"batch": False}),
    ("a source known to the analysis is not a loader", "def f(net):\n"
     "    for a, b in [(x, x)]:\n        out = net(a)\n        k = b  # <- k", Kind.UNKNOWN,
     {"batch": False}),
    # A tensor requiring grad that is a leaf on one path and computed on the other requires
    # grad, but whether it has a grad_fn is not known (`leaf` None, not `has_history`).
    ("a leaf or its product", "def f(c):\n    w = torch.zeros(3, requires_grad=True)\n"
     "    v = w if c else w * 2  # <- v", Kind.TENSOR,
     {"grad": T, "leaf": None}),
    ("a leaf or its product, by branches", "def f(c):\n"
     "    w = torch.zeros(3, requires_grad=True)\n    if c:\n        v = w\n    else:\n"
     "        v = w * 2\n    u = v  # <- u", Kind.TENSOR,
     {"grad": T, "leaf": None}),
    ("a product or another product", "def f(c):\n"
     "    w = torch.zeros(3, requires_grad=True)\n    v = w * 3 if c else w * 2  # <- v",
     Kind.TENSOR, {"grad": T, "leaf": False}),
    ("a leaf or another leaf", "def f(c):\n    w = torch.zeros(3, requires_grad=True)\n"
     "    q = torch.ones(3, requires_grad=True)\n    v = w if c else q  # <- v", Kind.TENSOR,
     {"grad": T, "leaf": True}),
    # A loop rebinding a leaf to what it computes from it: at the top of an iteration the
    # leaf (first iteration) or the computed tensor (later ones).
    ("a leaf rebound by a loop, at its head", "w = torch.zeros(3, requires_grad=True)\n"
     "for _ in range(3):\n    v = w  # <- v\n    w = w * 2", Kind.TENSOR,
     {"grad": T, "leaf": None}),
    ("... and after the rebinding", "w = torch.zeros(3, requires_grad=True)\n"
     "for _ in range(3):\n    w = w * 2\n    v = w  # <- v", Kind.TENSOR,
     {"grad": T, "leaf": False}),
    # Anything computed from it has history on every path; a view of it too.
    ("computed from a leaf or its product", "def f(c):\n"
     "    w = torch.zeros(3, requires_grad=True)\n    v = w if c else w * 2\n"
     "    y = v + 1  # <- y", Kind.TENSOR, {"grad": T, "leaf": False}),
    # An item of a `DataLoader(...)` is a batch by what the loader is, whatever its name and
    # whatever the loop does with it (see `data_sources.data_loader`).
    ("item of a DataLoader over a dataset handed in", f"{_DL}    for b in dl:\n"
     "        k = b  # <- k", Kind.UNKNOWN, {"grad": N, "batch": True}),
    ("field of a loop target unpacked", f"{_DL}    for xb, yb in dl:\n        k = yb  # <- k",
     Kind.UNKNOWN, {"batch": True}),
    ("field of a batch unpacked", f"{_DL}    for b in dl:\n        xb, yb = b\n"
     "        k = yb  # <- k", Kind.UNKNOWN, {"batch": True}),
    ("field of a stacked TensorDataset batch unpacked",
     "from torch.utils.data import DataLoader, TensorDataset\n"
     "dl = DataLoader(TensorDataset(torch.randn(8, 2), torch.zeros(8)), batch_size=2)\n"
     "for b in dl:\n    xb, yb = b\n    k = xb  # <- k",
     Kind.TENSOR, {"grad": U, "batch": True}),
    ("batch through enumerate", f"{_DL}    for i, b in enumerate(dl):\n        k = b  # <- k",
     Kind.UNKNOWN, {"batch": True}),
    ("batch of the second of two zipped loaders", f"{_DL}    other = DataLoader(ds)\n"
     "    for a, b in zip(dl, other):\n        k = b  # <- k", Kind.UNKNOWN, {"batch": True}),
    ("batch through iter and next", f"{_DL}    train_iter = iter(dl)\n"
     "    k = next(train_iter)  # <- k", Kind.UNKNOWN, {"batch": True}),
    ("batch through itertools.islice", f"import itertools\n{_DL}"
     "    for b in itertools.islice(dl, 3):\n        k = b  # <- k", Kind.UNKNOWN,
     {"batch": True}),
    ("batch of a loader kept on self", "from torch.utils.data import DataLoader\n"
     "class T:\n    def __init__(self, ds):\n        self.data = DataLoader(ds)\n"
     "    def run(self):\n        for b in self.data:\n            k = b  # <- k\n"
     "T(input()).run()", Kind.UNKNOWN, {"batch": True}),
    ("batch of a loader every caller passes", "from torch.utils.data import DataLoader\n"
     "def run(train_iter):\n    for b in train_iter:\n        k = b  # <- k\n"
     "run(DataLoader(input()))", Kind.UNKNOWN, {"batch": True}),
    # Look-alikes: a list of strings whatever its name; a loader's length.
    ("string of a list named like a loader", "loader_names = ['train', 'val']\n"
     "for n in loader_names:\n    k = n  # <- k", Kind.OTHER, {"batch": False}),
    ("next of a list of strings", "names = iter(['a', 'b'])\nk = next(names)  # <- k",
     Kind.OTHER, {"batch": False}),
    ("length of a loader", f"{_DL}    k = len(dl)  # <- k", Kind.SCALAR, {"batch": False}),
    # Items of an unknown iterable only appended to a list are not batches (the append
    # consumes nothing), unless the list reaches a call in the loop.
    ("items only appended to a list", "def f(pairs, out):\n    kept = []\n"
     "    for a in pairs:\n        kept.append(a)\n        k = a  # <- k\n    out(kept)",
     Kind.UNKNOWN, {"batch": False}),
    ("items appended to a list handed to a step", "def f(pairs, step):\n    kept = []\n"
     "    for a in pairs:\n        kept.append(a)\n        k = a  # <- k\n        step(kept)",
     Kind.UNKNOWN, {"batch": True}),
    # Numbers out of a tensor with history keep that conversion as their reason through
    # items, arithmetic with numbers, `max`/`abs`, loops and returns (`converted_numbers`).
    ("item of .tolist()", "s = model(x).sum(1).tolist()\nk = s[0]  # <- k", Kind.OTHER,
     {"grad": U, "loss.kind": LossKind.CONVERSION, "loss.converted_history": True}),
    ("hinge of converted items", "s = model(x).sum(1).tolist()\n"
     "k = max(0.0, 1.0 - (s[0] - s[1]))  # <- k", Kind.OTHER,
     {"grad": U, "loss.description": ".tolist()"}),
    ("total accumulated from .item()", "t = 0.0\nfor r in [1.0, 0.5]:\n"
     "    t += -model(x).sum().item() * r\nk = t / max(2, 1)  # <- k", Kind.SCALAR,
     {"grad": U, "loss.description": ".item()", "loss.converted_history": True}),
    ("returned by a helper", "def hinge(scores):\n    s = scores.tolist()\n    total = 0.0\n"
     "    for i in range(len(s)):\n        total += abs(s[i])\n    return total\n"
     "k = hinge(model(x).sum(1))  # <- k", Kind.UNKNOWN,
     {"grad": U, "loss.kind": LossKind.CONVERSION, "loss.converted_history": True}),
    ("a setting's number stays without a cut", "def f(cfg):\n"
     "    k = max(float(cfg.temp), 0.1) * 2  # <- k", Kind.SCALAR,
     {"grad": U, "loss.converted_history": False}),
    ("an unknown factor stays unknown", "def f(reward):\n"
     "    k = model(x).sum().item() * reward  # <- k", Kind.UNKNOWN, {"grad": N, "loss": None}),
    ("items of fresh data", "s = torch.randn(3).tolist()\nk = max(s)  # <- k", Kind.OTHER,
     {"grad": N, "loss": None}),
    ("a number max of literals", "k = max(3, 1)  # <- k", Kind.SCALAR, {"grad": U}),
]  # fmt: skip


OBJECT_FACTS = [
    ("torch.nn layer", "m = nn.Linear(2, 1)  # <- m", Kind.MODULE,
     {"module.qualified": "torch.nn.Linear", "module.self_contained": True}),
    # A module built just before and stored whole by `__init__` is a registered submodule:
    # the wrapper still computes only with parameters of its own.
    ("wrapper of a fresh module", "class W(nn.Module):\n    def __init__(self, enc):\n"
     "        super().__init__()\n        self.enc = enc\n        self.fc = nn.Linear(2, 2)\n"
     "    def forward(self, a):\n        return self.fc(self.enc(a))\n"
     "enc = nn.Linear(2, 2)\nm = W(enc)  # <- m", Kind.MODULE, {"module.self_contained": True}),
    ("wrapper of a module built in the call", "class W(nn.Module):\n"
     "    def __init__(self, enc):\n        super().__init__()\n        self.enc = enc\n"
     "    def forward(self, a):\n        return self.enc(a)\n"
     "m = W(nn.Linear(2, 2))  # <- m", Kind.MODULE, {"module.self_contained": True}),
    ("wrapper of a module used elsewhere too", "class W(nn.Module):\n"
     "    def __init__(self, enc):\n        super().__init__()\n        self.enc = enc\n"
     "    def forward(self, a):\n        return self.enc(a)\n"
     "enc = nn.Linear(2, 2)\nm = W(enc)  # <- m\nother = enc", Kind.MODULE,
     {"module.self_contained": False}),
    ("wrapper keeping a module in a list", "class W(nn.Module):\n"
     "    def __init__(self, enc):\n        super().__init__()\n        self.enc = enc\n"
     "        self.parts = [enc]\n    def forward(self, a):\n        return self.enc(a)\n"
     "m = W(nn.Linear(2, 2))  # <- m", Kind.MODULE, {"module.self_contained": False}),
    ("class built from a length", "class N(nn.Module):\n    def __init__(self, k):\n"
     "        super().__init__()\n        self.fc = nn.Linear(k, 2)\n"
     "    def forward(self, a):\n        return self.fc(a)\n"
     "m = N(len(x))  # <- m", Kind.MODULE, {"module.self_contained": True}),
    # A module-level dict of literals nothing changes: a read by key is the literal.
    ("settings dict read by key", "S = {'dim': 4, 'lr': 0.1}\ndef f():\n    c = S\n"
     "    n = c['dim']  # <- n\n    return n", Kind.SCALAR, {"const": 4}),
    ("settings dict changed", "S = {'dim': 4}\ndef f():\n    c = S\n    c['dim'] = x\n"
     "    n = c['dim']  # <- n\n    return n", Kind.UNKNOWN, {"const": None}),
    ("changed settings dict read elsewhere", "S = {'dim': 4}\ndef g():\n    S['dim'] = 5\n"
     "def f():\n    n = S['dim']  # <- n\n    return n", Kind.UNKNOWN, {"const": None}),
    ("in-place layer", "m = nn.ReLU(inplace=True)  # <- m", Kind.MODULE,
     {"module.qualified": "torch.nn.ReLU", "module.inplace": True}),
    ("Sequential ending in softmax",
     "m = nn.Sequential(nn.Linear(2, 3), nn.Softmax(dim=1))  # <- m", Kind.MODULE,
     {"module.qualified": "torch.nn.Sequential", "module.applies.kind": ActivationKind.SOFTMAX,
      "module.saves_input": True}),
    ("module of the file", "class Net(nn.Module):\n    def forward(self, x):\n        return x\n"
     "net = Net()  # <- net", Kind.MODULE,
     {"module.local.node.name": "Net", "instance_of.node.name": "Net"}),
    ("function of the file", "def f():\n    return 1\ng = f  # <- g", Kind.FUNCTION,
     {"function.name": "f"}),
    ("instance", "class C:\n    pass\nc = C()  # <- c", Kind.INSTANCE,
     {"instance_of.node.name": "C", "module": None}),
    ("class", "class C:\n    pass\nk = C  # <- k", Kind.CLASS, {"instance_of.node.name": "C"}),
    # An index of an nn.ModuleList of like modules is one of them, unless code of the file
    # may change a list held under that name.
    ("ModuleList item", "layers = nn.ModuleList([nn.Linear(2, 2) for _ in range(3)])\n"
     "k = layers[1]  # <- k", Kind.MODULE, {"module.qualified": "torch.nn.Linear"}),
    ("ModuleList item of a literal", "layers = nn.ModuleList([nn.Linear(2, 2), nn.Linear(2, 3)])"
     "\nk = layers[0]  # <- k", Kind.MODULE, {"module.qualified": "torch.nn.Linear"}),
    ("ModuleList appended to", "layers = nn.ModuleList([nn.Linear(2, 2) for _ in range(3)])\n"
     "layers.append(nn.ReLU())\nk = layers[1]  # <- k", Kind.UNKNOWN, {"module": None}),
    ("ModuleList of unknown items", "def f(blocks):\n    layers = nn.ModuleList(blocks)\n"
     "    k = layers[0]  # <- k", Kind.UNKNOWN, {"module": None}),
    # Iterating one binds one of them, under the same condition.
    ("ModuleList iterated", "layers = nn.ModuleList([nn.Linear(2, 2) for _ in range(3)])\n"
     "for layer in layers:\n    k = layer  # <- k", Kind.MODULE,
     {"module.qualified": "torch.nn.Linear"}),
    ("ModuleList appended to, iterated", "layers = nn.ModuleList([nn.Linear(2, 2)])\n"
     "layers.append(nn.ReLU())\nfor layer in layers:\n    k = layer  # <- k", Kind.UNKNOWN,
     {"module": None}),
    # An instance of a class of the file that `__init__` keeps (stored once, set nowhere
    # else) is what the other methods read.
    ("instance kept on self", "class Log:\n    pass\nclass Trainer:\n"
     "    def __init__(self, log):\n        self.log = log\n    def step(self):\n"
     "        k = self.log  # <- k\nTrainer(Log()).step()", Kind.INSTANCE,
     {"instance_of.node.name": "Log"}),
    ("instance set from outside", "class Log:\n    pass\nclass Trainer:\n"
     "    def __init__(self, log):\n        self.log = log\n    def step(self):\n"
     "        k = self.log  # <- k\nt = Trainer(Log())\nt.log = None\nt.step()", Kind.UNKNOWN,
     {"instance_of": None}),
    ("flag", "flag = True  # <- flag", Kind.SCALAR, {"const": True}),
    ("loop bound", "n = 3  # <- n", Kind.SCALAR, {"const": 3}),
    ("one layer of other sizes", "if input():\n    m = nn.Linear(2, 3)\nelse:\n"
     "    m = nn.Linear(4, 3)\nk = m  # <- k", Kind.MODULE,
     {"module.qualified": "torch.nn.Linear", "module.layer": None}),
    ("two layers", "if input():\n    m = nn.Linear(2, 3)\nelse:\n    m = nn.ReLU()\nk = m  # <- k",
     Kind.MODULE,
     {"module.qualified": None, "module.kind": ModuleKind(True, "tensor", parameters_known=False)}),
    ("1 or True", "if input():\n    n = 1\nelse:\n    n = True\nk = n  # <- k", Kind.SCALAR,
     {"const": None}),
    # InstanceNorm layers own parameters only with affine=True (default False).
    ("InstanceNorm", "m = nn.InstanceNorm2d(3)  # <- m", Kind.MODULE,
     {"module.kind.has_parameters": False}),
    ("affine InstanceNorm", "m = nn.InstanceNorm2d(3, affine=True)  # <- m", Kind.MODULE,
     {"module.kind.has_parameters": True}),
    ("affine InstanceNorm, flag in position", "m = nn.InstanceNorm1d(3, 1e-5, 0.1, True)"
     "  # <- m", Kind.MODULE, {"module.kind.has_parameters": True}),
    ("affine lazy InstanceNorm, flag in position", "m = nn.LazyInstanceNorm2d(1e-5, 0.1, True)"
     "  # <- m", Kind.MODULE, {"module.kind.has_parameters": True}),
    ("InstanceNorm with a flag not known", "def f(flag):\n"
     "    m = nn.InstanceNorm2d(3, affine=flag)  # <- m", Kind.MODULE, {"module.kind": None}),
    # A literal a class body binds, stored nowhere else, is what the class and its instances
    # hold; a subclass binding the name again, or a store anywhere, makes it unknown.
    ("class-level constant", "class cfg:\n    bins = 16\nk = cfg.bins  # <- k", Kind.SCALAR,
     {"const": 16}),
    ("class-level constant of an instance", "class Cfg:\n    bins = 16\nk = Cfg().bins  # <- k",
     Kind.SCALAR, {"const": 16}),
    ("class-level constant stored elsewhere", "class cfg:\n    bins = 16\n"
     "def g():\n    cfg.bins = 8\ndef f():\n    k = cfg.bins  # <- k\n", Kind.UNKNOWN,
     {"const": None}),
    ("class-level constant shadowed", "class cfg:\n    bins = 16\nclass big(cfg):\n"
     "    bins = 32\nk = cfg.bins  # <- k", Kind.UNKNOWN, {"const": None}),
    ("class-level constant rebound in a branch", "class cfg:\n    bins = 16\n"
     "    if input():\n        bins = 2\nk = cfg.bins  # <- k", Kind.UNKNOWN, {"const": None}),
    ("class-level constant shadowed by a method", "class cfg:\n    bins = 16\n"
     "class other:\n    def bins(self):\n        return 1\nk = cfg.bins  # <- k", Kind.UNKNOWN,
     {"const": None}),
    # A deep copy of a module is a module of the same kind (a target network, an EMA copy).
    ("deep copy of a module", "import copy\nk = copy.deepcopy(model)  # <- k", Kind.MODULE,
     {"module.qualified": "torch.nn.Linear"}),
    ("deep copy of something else", "import copy\nk = copy.deepcopy([x])  # <- k",
     Kind.UNKNOWN, {"module": None}),
    # `__init__` reads what it kept on `self` before (`self.target = deepcopy(self.online)`).
    ("attribute copied from an attribute",
     "import copy\nclass Agent:\n    def __init__(self):\n        self.online = nn.Linear(2, 2)\n"
     "        self.target = copy.deepcopy(self.online)\n    def act(self, s):\n"
     "        k = self.target  # <- k", Kind.MODULE, {"module.qualified": "torch.nn.Linear"}),
    # A module built in a method other than `__init__` (`setup()`), stored nowhere else.
    ("module built in setup", "class Op:\n    def setup(self, n):\n"
     "        self.net = nn.Linear(n, 1)\n    def step(self, a):\n        k = self.net  # <- k\n",
     Kind.MODULE, {"module.qualified": "torch.nn.Linear"}),
    ("module built in setup and elsewhere", "class Op:\n    def setup(self, n):\n"
     "        self.net = nn.Linear(n, 1)\n    def reset(self, other):\n"
     "        self.net = other\n    def step(self, a):\n        k = self.net  # <- k\n",
     Kind.UNKNOWN, {"module": None}),
    # A helper that always returns a parameter as passed returns the caller's argument.
    ("helper returning its parameter",
     "class Net(nn.Module):\n    def forward(self, a):\n        return a\n"
     "def load(m, path):\n    m.load_state_dict(torch.load(path))\n    return m\n"
     "k = load(Net(), 'w.pt')  # <- k", Kind.MODULE, {"module.local.node.name": "Net"}),
    # Only an nn.Module has an `eval()` taking nothing (a module of unknown class).
    ("eval() of a value handed in", "def f(m):\n    m.eval()\n    k = m  # <- k", Kind.MODULE,
     {"module.qualified": None}),
    ("eval(data) is not a module's", "def f(m, d):\n    m.eval(d)\n    k = m  # <- k",
     Kind.UNKNOWN, {"module": None}),
]  # fmt: skip


PARAMETER_FACTS = [
    ("SGD on a model", "opt = torch.optim.SGD(model.parameters(), lr=0.1)  # <- opt", Kind.OTHER,
     {"optimizes.key": "model", "optimizes.module.qualified": "torch.nn.Linear",
      "optimizes.stale": None}),
    ("Adam on a model", "opt = torch.optim.Adam(model.parameters())  # <- opt", Kind.OTHER,
     {"optimizes.key": "model"}),
    ("optimizer of unknown parameters", "opt = torch.optim.SGD(input(), lr=0.1)  # <- opt",
     Kind.OTHER, {"optimizes": None}),
    ("model replaced after", "opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
     "model = nn.Linear(2, 2)\no = opt  # <- o", Kind.OTHER,
     {"optimizes.key": "model", "optimizes.stale": lambda stale: stale is not None}),
    ("optimizer by path", "if input():\n    opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
     "else:\n    opt = torch.optim.Adam(model.parameters())\no = opt  # <- o", Kind.OTHER,
     {"optimizes": None}),
    ("frozen by a loop", "for p in model.parameters():\n    p.requires_grad = False\n"
     "m = model  # <- m", Kind.MODULE,
     {"frozen.key": "model", "frozen.description": "a loop over `model.parameters()`"}),
    ("frozen by requires_grad_", "model.requires_grad_(False)\nm = model  # <- m", Kind.MODULE,
     {"frozen.description": "`model.requires_grad_(False)`"}),
    ("one parameter frozen", "model.weight.requires_grad = False\nm = model  # <- m",
     Kind.MODULE, {"frozen": None}),
    ("frozen on one path", "if input():\n    model.requires_grad_(False)\nm = model  # <- m",
     Kind.MODULE, {"frozen": None}),
    # A helper that only steps and clears an optimizer cannot give it other parameters.
    ("optimizer handed to a stepping helper", "def run(opt):\n    opt.zero_grad()\n"
     "    opt.step()\nopt = torch.optim.SGD(model.parameters(), lr=0.1)\nrun(opt)\n"
     "o = opt  # <- o", Kind.OTHER, {"optimizes.key": "model"}),
    ("optimizer handed to a helper adding parameters", "def run(opt):\n"
     "    opt.add_param_group({'params': []})\n"
     "opt = torch.optim.SGD(model.parameters(), lr=0.1)\nrun(opt)\no = opt  # <- o",
     Kind.OTHER, {"optimizes": None}),
    ("frozen then unfrozen", "model.requires_grad_(False)\nmodel.requires_grad_(True)\n"
     "m = model  # <- m", Kind.MODULE, {"frozen": None}),
    # A helper that freezes the module its parameter holds, on every way out: the caller's
    # argument is frozen after the call (by the helper's own statement).
    ("frozen by a helper", "def freeze(net):\n    net.requires_grad_(False)\n"
     "freeze(model)\nm = model  # <- m", Kind.MODULE,
     {"frozen.key": "model",
      "frozen.description": "the call of `freeze()` at line 8, through its "
                            "`net.requires_grad_(False)`"}),
    ("frozen by a helper's loop", "def freeze(net, flag):\n    for p in net.parameters():\n"
     "        p.requires_grad = False\n    return flag\nfreeze(model, 1)\nm = model  # <- m",
     Kind.MODULE, {"frozen.key": "model"}),
    ("helper freezing on one path", "def freeze(net, flag):\n    if flag:\n"
     "        net.requires_grad_(False)\nfreeze(model, input())\nm = model  # <- m",
     Kind.MODULE, {"frozen": None}),
    ("helper returning before the freeze", "def freeze(net, flag):\n    if flag:\n"
     "        return\n    net.requires_grad_(False)\nfreeze(model, input())\n"
     "m = model  # <- m", Kind.MODULE, {"frozen": None}),
    ("helper freezing what it rebinds", "def freeze(net):\n    net = nn.Linear(2, 2)\n"
     "    net.requires_grad_(False)\nfreeze(model)\nm = model  # <- m", Kind.MODULE,
     {"frozen": None}),
    ("helper freezing a submodule", "class W(nn.Module):\n    def __init__(self):\n"
     "        super().__init__()\n        self.a = nn.Linear(2, 2)\n"
     "def freeze(net):\n    net.a.requires_grad_(False)\nw = W()\nfreeze(w)\nm = w  # <- m",
     Kind.MODULE, {"frozen": None}),
]  # fmt: skip


STRUCTURE_FACTS = [
    ("tuple", "t = (model(x), 1)  # <- t", Kind.SEQUENCE,
     {"elements.0.grad": T, "elements.1.const": 1, "items": None}),
    ("empty list", "xs = []  # <- xs", Kind.SEQUENCE, {"elements": (), "items": None}),
    ("appended outputs", "xs = []\nfor _ in range(3):  # <- xs\n    xs.append(model(x))",
     Kind.SEQUENCE, {"elements": None, "items.grad": T}),
    ("appended numbers", "xs = []\nfor _ in range(3):  # <- xs\n"
     "    xs.append(model(x).sum().item())", Kind.SEQUENCE,
     {"items.grad": U, "items.loss.kind": LossKind.CONVERSION}),
    ("comprehension", "ys = [model(x) for _ in range(3)]  # <- ys", Kind.SEQUENCE,
     {"items.grad": T}),
    ("max along a dim", "r = torch.max(model(x), 1)  # <- r", Kind.SEQUENCE,
     {"fields": ("values", "indices"), "elements.0.grad": T, "elements.1.grad": U}),
    ("dict literal", "d = {'loss': model(x).sum(), 'n': 1}  # <- d", Kind.MAPPING,
     {"fields": ("loss", "n"), "elements.0.grad": T}),
    ("unpacked and repacked", "a, b = model(x), 2\nt = (b, a)  # <- t", Kind.SEQUENCE,
     {"elements.0.const": 2, "elements.1.grad": T}),
    ("tuples joined", "if input():\n    t = (model(x), 1)\nelse:\n    t = (model(x), 2)\n"
     "k = t  # <- k", Kind.SEQUENCE, {"elements.0.grad": T, "elements.1.const": None}),
    ("tuples of other lengths", "if input():\n    t = (model(x), 1)\nelse:\n"
     "    t = (model(x),)\nk = t  # <- k", Kind.SEQUENCE, {"elements": None}),
    ("dicts with other keys", "if input():\n    d = {'a': 1}\nelse:\n    d = {'b': 1}\n"
     "k = d  # <- k", Kind.MAPPING, {"elements": None, "fields": None}),
    ("OrderedDict of literal pairs", "import collections\n"
     "d = collections.OrderedDict([('a', model(x)), ('b', 2)])  # <- d", Kind.MAPPING,
     {"fields": ("a", "b"), "elements.0.grad": T, "elements.1.const": 2}),
    ("OrderedDict of a key given twice", "from collections import OrderedDict\n"
     "d = OrderedDict([('a', 1), ('a', 2)])  # <- d", Kind.UNKNOWN, {"fields": None}),
    # A dict filled by keys that are not known strings: every value is at most the join.
    ("dict filled in a loop", "cache = {}\nfor i in range(3):  # <- cache\n"
     "    cache[i] = model(x)", Kind.MAPPING,
     {"elements": None, "fields": None, "items.grad": T}),
]  # fmt: skip


LEAF = "w = torch.randn(3, requires_grad=True)\n"
GRAPH_FACTS = [
    ("exp saves its output", LEAF + "h = w.exp()  # <- h", Kind.TENSOR,
     {"graph": _saves(Saves.OUTPUT), "saved_in": _saves(Saves.OUTPUT)}),
    ("sigmoid saves its output", LEAF + "h = torch.sigmoid(w)  # <- h", Kind.TENSOR,
     {"saved_in": _saves(Saves.OUTPUT)}),
    ("mul saves its inputs", LEAF + "h = w * w  # <- h", Kind.TENSOR,
     {"graph": _saves(Saves.INPUTS), "saved_in": frozenset()}),
    ("a reduction keeps the graph", LEAF + "h = (w * w).sum()  # <- h", Kind.TENSOR,
     {"graph": _saves(Saves.INPUTS)}),
    ("a Linear layer saves its input", "h = model(x)  # <- h", Kind.TENSOR,
     {"graph": _saves(Saves.INPUTS)}),
    ("add saves nothing", LEAF + "h = w + 1  # <- h", Kind.TENSOR,
     {"graph": frozenset(), "saved_in": frozenset()}),
    ("detach leaves the graph", LEAF + "h = w.exp().detach()  # <- h", Kind.TENSOR,
     {"graph": frozenset(), "saved_in": frozenset()}),
    ("history through two nodes", LEAF + "h = torch.tanh(w)\nk = h * 2  # <- k", Kind.TENSOR,
     {"graph": _saves(Saves.OUTPUT, Saves.INPUTS), "saved_in": frozenset()}),
    ("one node per branch", LEAF + "if input():\n    h = w.exp()\nelse:\n    h = w.sigmoid()\n"
     "k = h  # <- k", Kind.TENSOR, {"graph": _saves(Saves.OTHER), "saved_in": _saves(Saves.OTHER)}),
    ("a node on every path", LEAF + "h = w.exp()\nif input():\n    h = h.exp()\nk = h  # <- k",
     Kind.TENSOR, {"graph": _saves(Saves.OUTPUT), "saved_in": _saves(Saves.OTHER)}),
    # A call's result that the function's last operation saved is that saved tensor: one
    # node of the call stands for the operation (graph_inputs.with_saved_output).
    ("a helper ending in a saving op", "def gate(t):\n    return torch.sigmoid(t)\n"
     "h = gate(model(x))  # <- h", Kind.TENSOR, {"saved_in": _saves(Saves.OUTPUT)}),
    ("a module's forward ending in a saving op", "class Head(nn.Module):\n"
     "    def __init__(self):\n        super().__init__()\n        self.fc = nn.Linear(2, 2)\n"
     "        self.act = nn.ReLU(inplace=True)\n    def forward(self, t):\n"
     "        return self.act(self.fc(t))\nh = Head()(x)  # <- h", Kind.TENSOR,
     {"saved_in": _saves(Saves.OUTPUT)}),
    ("an nn.Sequential ending in a layer saving its output",
     "h = nn.Sequential(nn.Linear(2, 2), nn.Sigmoid())(x)  # <- h", Kind.TENSOR,
     {"saved_in": _saves(Saves.OUTPUT)}),
    ("an nn.Sequential ending in an in-place ReLU",
     "h = nn.Sequential(nn.Linear(2, 2), nn.ReLU(inplace=True))(x)  # <- h", Kind.TENSOR,
     {"saved_in": _saves(Saves.OUTPUT)}),
    ("an nn.Sequential of a named OrderedDict of layers",
     "from collections import OrderedDict\n"
     "h = nn.Sequential(OrderedDict([('fc', nn.Linear(2, 2)), ('act', nn.Sigmoid())]))(x)"
     "  # <- h", Kind.TENSOR, {"saved_in": _saves(Saves.OUTPUT)}),
    # Look-alikes: the last operation saves its input, or nothing; or nothing requires grad.
    ("an nn.Sequential ending in a layer saving its input",
     "h = nn.Sequential(nn.Linear(2, 2), nn.GELU())(x)  # <- h", Kind.TENSOR,
     {"saved_in": frozenset()}),
    ("an nn.Sequential ending in nn.Linear",
     "h = nn.Sequential(nn.ReLU(), nn.Linear(2, 2))(x)  # <- h", Kind.TENSOR,
     {"saved_in": frozenset()}),
    ("a helper ending in a layer", "def head(t):\n    return model(torch.relu(t))\n"
     "h = head(x * 2)  # <- h", Kind.TENSOR, {"saved_in": frozenset()}),
    ("a helper adding after the saving op", "def gate(t):\n    return torch.sigmoid(t) + 1\n"
     "h = gate(model(x))  # <- h", Kind.TENSOR, {"saved_in": frozenset()}),
    ("a helper on data without grad", "def gate(t):\n    return torch.sigmoid(t)\n"
     "h = gate(x)  # <- h", Kind.TENSOR, {"saved_in": frozenset()}),
    ("a helper called under no_grad", "def gate(t):\n    return torch.sigmoid(t)\n"
     "with torch.no_grad():\n    h = gate(model(x))  # <- h", Kind.TENSOR,
     {"saved_in": frozenset()}),
    ("a helper saving on one path only", "def gate(t):\n    if input():\n"
     "        return torch.sigmoid(t)\n    return t * 2\nh = gate(model(x))  # <- h",
     Kind.TENSOR, {"saved_in": frozenset()}),
    ("a helper returning a pair", "def gate(t):\n    return torch.sigmoid(t), t\n"
     "h, k = gate(model(x))  # <- h", Kind.TENSOR, {"saved_in": frozenset()}),
    # An nn.Sequential's output is what its last layer returns: kept by it when that layer
    # keeps its own result (ModuleRef.saves_output), also through a nested nn.Sequential and
    # for each layer of an nn.ModuleList a comprehension calls.
    ("a Sequential ending in ReLU", "seq = nn.Sequential(nn.Linear(2, 2), nn.ReLU())\n"
     "h = seq(x)  # <- h", Kind.TENSOR, {"saved_in": _saves(Saves.OUTPUT)}),
    ("a Sequential ending in a nested one", "seq = nn.Sequential(nn.Linear(2, 2), "
     "nn.Sequential(nn.Linear(2, 2), nn.Tanh()))\nh = seq(x)  # <- h", Kind.TENSOR,
     {"saved_in": _saves(Saves.OUTPUT)}),
    ("a Sequential ending in an in-place LeakyReLU", "seq = nn.Sequential(nn.Linear(2, 2), "
     "nn.LeakyReLU(0.1, inplace=True))\nh = seq(x)  # <- h", Kind.TENSOR,
     {"saved_in": _saves(Saves.OUTPUT)}),
    ("layers of a ModuleList called in a comprehension", "layers = nn.ModuleList("
     "[nn.Sequential(nn.Linear(2, 2), nn.Sigmoid()) for _ in range(2)])\n"
     "hs = [layer(x) for layer in layers]\nh = hs[0]  # <- h", Kind.TENSOR,
     {"saved_in": _saves(Saves.OUTPUT)}),
    # Look-alikes: the last layer keeps its input, or nothing; the container may change.
    ("a Sequential ending in GELU", "seq = nn.Sequential(nn.Linear(2, 2), nn.GELU())\n"
     "h = seq(x)  # <- h", Kind.TENSOR, {"saved_in": frozenset()}),
    ("a Sequential ending in Dropout", "seq = nn.Sequential(nn.Linear(2, 2), nn.ReLU(), "
     "nn.Dropout(0.1))\nh = seq(x)  # <- h", Kind.TENSOR, {"saved_in": frozenset()}),
    ("a Sequential grown later", "seq = nn.Sequential(nn.Linear(2, 2), nn.ReLU())\n"
     "seq.add_module('out', nn.Linear(2, 2))\nh = seq(x)  # <- h", Kind.TENSOR,
     {"saved_in": frozenset()}),
    ("a Sequential ending in unpacked layers", "extra = []\n"
     "seq = nn.Sequential(nn.Linear(2, 2), nn.ReLU(), *extra)\nh = seq(x)  # <- h",
     Kind.TENSOR, {"saved_in": frozenset()}),
    ("a Sequential under no_grad", "seq = nn.Sequential(nn.Linear(2, 2), nn.ReLU())\n"
     "with torch.no_grad():\n    h = seq(x)  # <- h", Kind.TENSOR, {"saved_in": frozenset()}),
    # `t.requires_grad_()` returns the same tensor: one with history keeps it (torch 2.13.0
    # does not raise on a non-leaf asked for True), one without has none to lose. Of a
    # tensor whose grad is not known, the graph it runs through (or stands in for) holds.
    ("requires_grad_() of a helper's argument keeps its graph",
     "def f(t):\n    h = torch.sigmoid(t).requires_grad_()  # <- h\n    return h\n",
     Kind.TENSOR, {"graph": lambda g: len(g) == 2 and any(_stand_in(n) for n in g)}),
    # Look-alikes: asked for False (a non-leaf raises, so a leaf follows), or a tensor
    # certainly without history (a fresh leaf).
    # A helper's result runs through the graph of what its caller passed, the caller's own
    # parameters' stand-ins included: chains of helpers keep the history they are handed.
    ("a helper's result keeps the caller's parameter stand-in",
     "def gate(u):\n    return torch.sigmoid(u)\n"
     "def f(t):\n    h = gate(t)  # <- h\n    return h\n",
     Kind.TENSOR, {"graph": lambda g: any(_stand_in(n) and n.node.arg == "t" for n in g)}),
    ("requires_grad_(False) of a helper's argument",
     "def f(t):\n    h = torch.sigmoid(t).requires_grad_(False)  # <- h\n    return h\n",
     Kind.TENSOR, {"graph": frozenset()}),
    ("requires_grad_() of plain data", "h = (x * 2).requires_grad_()  # <- h", Kind.TENSOR,
     {"graph": frozenset()}),
]  # fmt: skip


TENSOR_FACTS = [
    # An integer dtype, when the data or the dtype makes it certain (analysis/dtypes.py).
    ("arange of known ints", "n = 4\nk = torch.arange(0, n, 2)  # <- k", Kind.TENSOR,
     {"integer_dtype": True}),
    ("arange of a float", "k = torch.arange(0, 4.0)  # <- k", Kind.TENSOR,
     {"integer_dtype": False}),
    ("tensor of known ints", "ids = [3, 1, 2]\nk = torch.tensor(ids)  # <- k", Kind.TENSOR,
     {"integer_dtype": True}),
    ("tensor of ints and a float", "k = torch.tensor([3, 1.5])  # <- k", Kind.TENSOR,
     {"integer_dtype": False}),
    ("integer dtype keyword", "k = torch.zeros(3, dtype=torch.long)  # <- k", Kind.TENSOR,
     {"integer_dtype": True}),
    ("float dtype keyword", "k = torch.tensor([1, 2], dtype=torch.float32)  # <- k",
     Kind.TENSOR, {"integer_dtype": False}),
    ("full with an int fill", "k = torch.full((2,), 7)  # <- k", Kind.TENSOR,
     {"integer_dtype": True}),
    ("randint", "k = torch.randint(0, 5, (3,))  # <- k", Kind.TENSOR, {"integer_dtype": True}),
    ("parameter of an integer tensor", "k = nn.Parameter(torch.arange(3))  # <- k",
     Kind.TENSOR, {"integer_dtype": True}),
    # A numpy array of an integer dtype, item stores and `torch.from_numpy` keep it.
    ("numpy array of an integer dtype", "import numpy as np\n"
     "a = np.empty(4, dtype=np.int64)\nfor i in range(4):\n    a[i] = i * 2.5\n"
     "k = torch.from_numpy(a)  # <- k", Kind.TENSOR, {"integer_dtype": True}),
    ("numpy dtype by name", "import numpy as np\nk = np.zeros(3, dtype='uint8')  # <- k",
     Kind.OTHER, {"integer_dtype": True}),
    ("numpy float array", "import numpy as np\na = np.zeros(3, dtype=np.float32)\n"
     "k = torch.from_numpy(a)  # <- k", Kind.TENSOR, {"integer_dtype": False}),
    # Without a dtype numpy follows the data: ints give an integer array, a float a float one.
    ("numpy array of ints without a dtype", "import numpy as np\nk = np.array([1, 2])  # <- k",
     Kind.OTHER, {"integer_dtype": True}),
    ("numpy array without a dtype", "import numpy as np\nk = np.array([1, 2.0])  # <- k",
     Kind.OTHER, {"integer_dtype": False}),
    ("integer on one path only", "if input():\n    a = torch.arange(3)\nelse:\n"
     "    a = torch.randn(3)\nk = a  # <- k", Kind.TENSOR, {"integer_dtype": False}),
    # An index dtype (int64 or int32): what `x[idx]` picks one slice per element with.
    ("randint indexes", "k = torch.randint(0, 5, (3,))  # <- k", Kind.TENSOR,
     {"index_dtype": True}),
    ("tensor of ints indexes", "k = torch.tensor([2, 0])  # <- k", Kind.TENSOR,
     {"index_dtype": True}),
    ("tensor of bools is a mask", "k = torch.tensor([True, False])  # <- k", Kind.TENSOR,
     {"integer_dtype": True, "index_dtype": False}),
    ("uint8 is a mask", "k = torch.zeros(3, dtype=torch.uint8)  # <- k", Kind.TENSOR,
     {"integer_dtype": True, "index_dtype": False}),
    ("int32 keyword", "k = torch.arange(3, dtype=torch.int32)  # <- k", Kind.TENSOR,
     {"index_dtype": True}),
    ("a comparison is a mask", "k = x > 0  # <- k", Kind.TENSOR, {"index_dtype": False}),
    ("a long cast", "k = (x > 0).long()  # <- k", Kind.TENSOR, {"index_dtype": True}),
    ("a byte cast", "k = torch.arange(3).byte()  # <- k", Kind.TENSOR,
     {"integer_dtype": True, "index_dtype": False}),
    ("a clone keeps it", "k = torch.randperm(4).clone()  # <- k", Kind.TENSOR,
     {"index_dtype": True}),
    ("batches of a loader keep it", "from torch.utils.data import DataLoader, TensorDataset\n"
     "ds = TensorDataset(torch.randint(0, 9, (32,)))\n"
     "for (k,) in DataLoader(ds, batch_size=8):  # <- k\n    pass", Kind.TENSOR,
     {"index_dtype": True, "shape": Shape((8,), exact=True)}),
    # Indexing by one such tensor: its dimensions, then those of the rows it picks.
    ("rows picked by indices", "w = torch.randn(30, 8)\nidx = torch.randint(0, 30, (16,))\n"
     "r = w[idx]  # <- r", Kind.TENSOR, {"shape": Shape((16, 8), exact=True)}),
    ("a matrix of indices", "w = torch.randn(30)\nidx = torch.randint(0, 30, (4, 5))\n"
     "r = w[idx]  # <- r", Kind.TENSOR, {"shape": Shape((4, 5), exact=True)}),
    ("one index tensor drops the dimension", "w = torch.randn(30, 8)\n"
     "r = w[torch.tensor(3)]  # <- r", Kind.TENSOR, {"shape": Shape((8,), exact=True)}),
    ("indices into rows of unknown size", "w = torch.randn(int(input()), 3)\n"
     "r = w[torch.randperm(4)]  # <- r", Kind.TENSOR,
     {"shape.not_single": True, "shape.exact": False}),
    ("a bool mask picks an unknown number", "w = torch.randn(30, 8)\n"
     "r = w[w[:, 0] > 0]  # <- r", Kind.TENSOR, {"shape.known": False}),
    ("a uint8 mask", "w = torch.randn(3)\n"
     "r = w[torch.tensor([1, 0, 0], dtype=torch.uint8)]  # <- r", Kind.TENSOR,
     {"shape.known": False}),
    ("a single index picks one row", "w = torch.randn(30, 1)\n"
     "r = w[torch.randint(0, 30, (1,))]  # <- r", Kind.TENSOR,
     {"shape": Shape((1, 1), exact=True), "shape.not_single": False}),
    ("indices of an unknown dtype", "def f(w, idx):\n    return w[idx]\n"
     "r = f(torch.randn(30, 8), torch.randn(4))  # <- r", Kind.TENSOR, {"shape.known": False}),
    ("factory with sizes", "a = torch.randn(4, 10)  # <- a", Kind.TENSOR,
     {"shape": Shape((4, 10), exact=True), "activation": None}),
    ("Linear with sizes", "y = nn.Linear(10, 2)(torch.randn(4, 10))  # <- y", Kind.TENSOR,
     {"shape": Shape((4, 2), exact=True), "activation.kind": ActivationKind.LOGITS}),
    ("Embedding with sizes", "e = nn.Embedding(100, 16)(torch.zeros(3, dtype=torch.long))  # <- e",
     Kind.TENSOR, {"shape": Shape((3, 16), exact=True)}),
    ("full reduction", "s = torch.randn(4, 10).sum()  # <- s", Kind.TENSOR,
     {"shape": Shape((), exact=True)}),
    ("flattened", "z = torch.randn(4, 10).view(40)  # <- z", Kind.TENSOR,
     {"shape.not_single": True}),
    ("batches of other sizes", "if input():\n    a = torch.randn(4, 10)\nelse:\n"
     "    a = torch.randn(5, 10)\nk = a  # <- k", Kind.TENSOR,
     {"shape": Shape((None, 10), exact=True)}),
    ("softmax", "p = torch.softmax(x, dim=1)  # <- p", Kind.TENSOR,
     {"activation.kind": ActivationKind.SOFTMAX, "activation.functional": True}),
    ("sigmoid", "p = torch.sigmoid(x)  # <- p", Kind.TENSOR,
     {"activation.kind": ActivationKind.SIGMOID}),
    ("log_softmax", "q = F.log_softmax(x, 1)  # <- q", Kind.TENSOR,
     {"activation.kind": ActivationKind.LOG_SOFTMAX}),
    ("a view keeps the activation", "p = torch.softmax(x, 1).view(-1)  # <- p", Kind.TENSOR,
     {"activation.kind": ActivationKind.SOFTMAX}),
    ("arithmetic clears it", "q = torch.softmax(x, 1) * 2  # <- q", Kind.TENSOR,
     {"activation": None, "shape": Shape((3, 2), exact=True)}),
    # softmax and log_softmax allocate a contiguous result, also of a transposed input; a
    # view or an in-place transpose of it, or arithmetic on it, is not known to be one.
    ("softmax of a transpose", "p = torch.softmax(x.t(), dim=1)  # <- p", Kind.TENSOR,
     {"contiguous": True}),
    ("log_softmax method", "p = x.t().log_softmax(-1)  # <- p", Kind.TENSOR,
     {"contiguous": True}),
    ("contiguous()", "p = x.t().contiguous()  # <- p", Kind.TENSOR, {"contiguous": True}),
    ("transpose of a softmax", "p = torch.softmax(x, 1).t()  # <- p", Kind.TENSOR,
     {"contiguous": False}),
    ("arithmetic on a softmax", "p = torch.softmax(x, 1) * 2  # <- p", Kind.TENSOR,
     {"contiguous": False}),
    ("softmax transposed in place", "with torch.no_grad():\n    p = torch.softmax(x, 1)\n"
     "    p.t_()\nq = p  # <- q", Kind.TENSOR, {"contiguous": False}),
    ("Sequential ending in Sigmoid", "o = nn.Sequential(nn.Linear(2, 3), nn.Sigmoid())(x)  # <- o",
     Kind.TENSOR, {"activation.kind": ActivationKind.SIGMOID, "activation.layer": True,
                   "shape": Shape((3, 3), exact=True)}),
]  # fmt: skip


FACTS = [
    *(("autograd", *row) for row in AUTOGRAD_FACTS),
    *(("object_facts", *row) for row in OBJECT_FACTS),
    *(("parameter_facts", *row) for row in PARAMETER_FACTS),
    *(("structure", *row) for row in STRUCTURE_FACTS),
    *(("graph_facts", *row) for row in GRAPH_FACTS),
    *(("tensor_facts", *row) for row in TENSOR_FACTS),
]


@pytest.mark.parametrize(
    ("facet", "case", "snippet", "kind", "expected"),
    FACTS,
    ids=[f"{row[0]}: {row[1]}" for row in FACTS],
)
def test_the_fact_at_a_marked_name(
    facet: str,
    case: str,
    snippet: str,
    kind: Kind,
    expected: dict[str, object],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The kind and facet facts the interpreter binds to the marked name."""
    _check(fact_at(snippet, monkeypatch), facet, kind, expected)


# Loop-carried state (`Value.carries`): (case, snippet, carried key, carried at the mark).
CARRY_FACTS = [
    # A name rebound on every step of an inner loop carries the outer loop's state only if
    # the inner loop ran zero times: that carry does not pass the loop.
    ("last step's output after a time-step loop",
     "for seq in input():\n    h = x\n    for t in range(len(seq)):\n        h = model(h)\n"
     "        out = model(h)\n    o = out  # <- o", "out", False),
    # The state every step computes from is carried whether the inner loop runs or not.
    ("state through a time-step loop",
     "h = x\nfor seq in input():\n    for t in range(len(seq)):\n        h = model(h)\n"
     "    o = h  # <- o", "h", True),
    # A name the inner loop rebinds only on some steps keeps what it carried.
    ("output rebound on some steps",
     "out = x\nfor seq in input():\n    for t in range(len(seq)):\n        if input():\n"
     "            out = model(x)\n    o = out  # <- o", "out", True),
]  # fmt: skip


@pytest.mark.parametrize(
    ("case", "snippet", "key", "carried"), CARRY_FACTS, ids=[row[0] for row in CARRY_FACTS]
)
def test_loop_carries(
    case: str, snippet: str, key: str, carried: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    value = fact_at(snippet, monkeypatch)
    assert any(c.key == key for c in value.all_carries()) is carried, case


# `x is None` / `x is not None`: a Python bool (never a tensor), known when `x` certainly is
# None or certainly is not. (case, snippet, the bool or None when unknown)
IDENTITY_FACTS = [
    ("tensor is None", "b = x is None  # <- b", False),
    ("tensor is not None", "b = x is not None  # <- b", True),
    ("number is not None", "t = 0.5\nb = t is not None  # <- b", True),
    ("module is None", "b = model is None  # <- b", False),
    ("None is None", "h = None\nb = None is h  # <- b", True),
    ("None is not None", "h = None\nb = h is not None  # <- b", False),
    ("maybe None", "h = x if input() else None\nb = h is None  # <- b", None),
    ("unknown", "b = input() is None  # <- b", None),
    # A library's result known only not to be a tensor may be None.
    ("not a tensor", "b = x.tolist() is None  # <- b", None),
    # Identity between two objects is not decided.
    ("two tensors", "b = x is x  # <- b", None),
]  # fmt: skip


@pytest.mark.parametrize(
    ("case", "snippet", "known"), IDENTITY_FACTS, ids=[row[0] for row in IDENTITY_FACTS]
)
def test_identity_with_none(
    case: str, snippet: str, known: bool | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    value = fact_at(snippet, monkeypatch)
    assert (value.kind, value.const) == (Kind.SCALAR, known), case


# What a call of a method of the same object leaves known of `self`: the attributes it and
# the methods of the class it calls do not mention stay as they were. (case, the method
# `validate` calls between clearing `self.outputs` and reading it, the kind read)
_TRAINER = (
    "class Base:\n    def hook(self):\n        pass\n"
    "class Trainer(Base):\n    def __init__(self, net):\n        self.net = net\n"
    "        self.outputs = []\n"
    "    def _forward(self, a):\n        return self.net(a)\n"
    "    def _reset(self):\n        self.outputs = None\n"
    "    def _inherited(self):\n        self.hook()\n"
    "    def validate(self, a):\n        self.outputs = []\n        {call}\n"
    "        kept = self.outputs  # <- kept\n        return kept\n"
    "Trainer(model).validate(x)\n"
)
SELF_STATE_FACTS = [
    ("a method calling a module attribute", "out = self._forward(a)", Kind.SEQUENCE),
    ("a method rebinding the attribute", "self._reset()", Kind.NONE),
    ("a method calling an inherited method", "self._inherited()", Kind.UNKNOWN),
]


@pytest.mark.parametrize(
    ("case", "call", "kind"), SELF_STATE_FACTS, ids=[row[0] for row in SELF_STATE_FACTS]
)
def test_self_state_after_a_method_call(
    case: str, call: str, kind: Kind, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert fact_at(_TRAINER.replace("{call}", call), monkeypatch).kind is kind, case


# A tensor with history that `__init__` stores once on `self` is, in every method, the
# tensor that assignment computed: its origin is that statement (for naming it, and for
# reporting where it is made), when the assignment stores it alone.
_KEPT = (
    "class Raw:\n"
    "    def __init__(self):\n"
    "        {store}\n"
    "    def tensors(self):\n"
    "        return [self.w]\n"
    "def g():\n"
    "    ts = Raw().tensors()  # <- ts\n"
    "    return ts\n"
)
KEPT_ORIGINS = [
    ("stored alone", "self.w = torch.randn(2, requires_grad=True) * 0.1", "self.w"),
    (
        "unpacked with another attribute",
        "self.w, self.b = torch.randn(2, requires_grad=True) * 0.1, torch.zeros(2)",
        None,
    ),
]


@pytest.mark.parametrize(
    ("case", "store", "named"), KEPT_ORIGINS, ids=[row[0] for row in KEPT_ORIGINS]
)
def test_origin_of_a_computed_tensor_kept_by_init(
    case: str, store: str, named: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    held = fact_at(_KEPT.replace("{store}", store), monkeypatch)
    assert held.elements is not None and len(held.elements) == 1, case
    (element,) = held.elements
    assert element.grad is Grad.TRACKED and element.leaf is False, case
    origin = element.origin
    if named is None:
        assert origin is None, case
    else:
        assert isinstance(origin, ast.Assign) and ast.unparse(origin.targets[0]) == named, case


_LEARNER = (
    "def make():\n    return [{item} for p in model.parameters()]\n"
    "class Learner:\n    def __init__(self):\n        self.ws = make()\n"
    "    def step(self):\n        k = self.ws  # <- k\n"
    "Learner().step()"
)


def test_a_comprehension_of_leaves_kept_on_self(monkeypatch: pytest.MonkeyPatch) -> None:
    """`self.ws = make()` of a list a comprehension fills with fresh leaves: every method
    reads that list, its items leaves that require grad. Computed tensors are not kept."""
    kept = fact_at(_LEARNER.format(item="p.detach().clone().requires_grad_()"), monkeypatch)
    assert kept.kind is Kind.SEQUENCE and kept.items is not None
    assert kept.items.leaf is True and kept.items.grad is Grad.TRACKED
    computed = fact_at(_LEARNER.format(item="p * 2"), monkeypatch)
    assert computed.kind is Kind.UNKNOWN


def test_a_negated_literal_index_reads_a_known_element_from_the_end(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`outs[-1]` of a list known element by element is its last element, as `outs[1]` is."""
    snippet = "outs = [model(x), torch.randn(2)]\nlast = outs[-1]  # <- last\n"
    assert fact_at(snippet, monkeypatch).grad is Grad.UNTRACKED
    snippet = "outs = [torch.randn(2), model(x)]\nlast = outs[-1]  # <- last\n"
    assert fact_at(snippet, monkeypatch).grad is Grad.TRACKED
