"""The vocabulary the facets of a value are written in: what sort of object a value is
(`Kind`), whether it takes part in autograd (`Grad`) and why not (`Loss`, `GradOff`), the
last activation applied to a tensor, the loop carries, and what a module or class of the
file is (`ModuleRef`, `ClassInfo`). Plain immutable records; the joins live with the facets
(`gradguard.analysis.values.facets`).
"""

from __future__ import annotations

import ast
import enum
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from gradguard.analysis.narrowing import Condition
from gradguard.analysis.shapes import Layer
from gradguard.analysis.torch_api import ModuleKind

if TYPE_CHECKING:
    from gradguard.analysis.values.value import Value


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
    # On a TRACKED value: every path of its history runs through an op whose gradient is
    # zero everywhere it is defined (round, floor, ceil, sign, trunc): backward() runs and
    # every gradient it sends back is zero.
    ZERO_GRADIENT = "zero_gradient"


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
    # for CONVERSION: the converted tensor certainly never had a history to lose (a fresh
    # factory tensor, data): wrapping its numbers again loses nothing
    converted_fresh: bool = False
    # for CONVERSION: the converted tensor certainly had history (a loss, a model output)
    converted_history: bool = False


@dataclass(frozen=True)
class ForcedLeaf:
    """requires_grad forced (`x.requires_grad = True`, `x.requires_grad_()`) on a tensor whose
    history was certainly lost at a real cut (`cut`: detached, computed under no_grad,
    converted to numbers or arrays and re-wrapped...): the tensor is now a leaf that requires
    grad, and a gradient backpropagated from it stops there, never reaching what the cut
    separated it from.

    `node` is the forcing (the `x.requires_grad = True` statement or the `requires_grad_()`
    call), `stmt` its statement and `target` the forced tensor's expression. The fact
    belongs to the tensor object itself: it flows only where that very tensor flows
    (assignments, returns, tuple elements), and any op on it makes another tensor."""

    node: ast.AST
    stmt: ast.stmt
    target: ast.expr
    cut: Loss


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
    # Literals the class body binds that nothing else may change (`class cfg: bins = 16`),
    # readable on the class and its instances.
    constants: dict[str, Value] = field(default_factory=dict, compare=False, hash=False)
    # Its instances hold only settings, never a tensor or a module (`class Opt: lr = 2e-4`;
    # see `gradguard.analysis.settings_classes`).
    settings: bool = False
    # Non-leaf tensors with history that one method alone stores, by attribute (`forward`
    # keeping an output, `__init__` rescaling a leaf; see
    # `ModuleInterpreter._collect_computed_in_methods`): read through an instance, the
    # stored tensor; read through `self` in a method, state an earlier call left, with the
    # stored tensor's facts.
    computed: dict[str, Value] = field(default_factory=dict, compare=False, hash=False)
    # Empty for the class as every instance sees it; for the instances built with the same
    # known settings (`Block(64, 128, first=False)`: bools, numbers, strings the other
    # constructions do not agree on), those, by parameter of `__init__`: its `attributes`
    # then hold what `__init__` keeps for them (see `instance_state`).
    flags: tuple[tuple[str, bool | int | str], ...] = ()
    # For such a view, the class as every instance sees it (what a join of two instances
    # built with different settings holds, see `facets._join_module`); None otherwise.
    general: ClassInfo | None = field(default=None, compare=False, hash=False, repr=False)


class Indexing(enum.Enum):
    """The names a container (`nn.Sequential`, `nn.ModuleList`) holds its modules under,
    as `named_children()` and `named_parameters()` give them."""

    # `ModuleRef.children[i]` is held under the name `str(i)` (built from modules written
    # out: `nn.Sequential(a, b)`, `nn.ModuleList([a, b])`).
    BY_POSITION = "by position"
    # Every module held is one of `ModuleRef.children`, under a decimal index not known
    # (`nn.ModuleList([Block() for _ in range(n)])`).
    SOME_INDEX = "some index"


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
    # Its output is what its last layer keeps for backward: an nn.Sequential whose last
    # layer is one keeping its own result (`graph.module_saves` OUTPUT: nn.ReLU, nn.Tanh,
    # nn.Sigmoid...) or such an nn.Sequential itself. A call of it keeps its result as a
    # call of that layer does, unless code of the file may change the container.
    saves_output: bool = False
    # The activation its output certainly ends with (nn.Softmax, nn.Linear, an nn.Sequential
    # whose last layer is one); None when not known.
    applies: Activation | None = None
    # An nn.Sequential's in-place layers that change what the layer before them saved.
    clashes: tuple[LayerClash, ...] = ()
    # An nn.Sequential holding a module class of this file: its layers, each a module value
    # (classes of this file, or torch.nn layers that do not work in place), run in order.
    steps: tuple[Value, ...] | None = None
    # Calling it changes its first input in place: the torch.nn layer (its qualified name)
    # built with a literal `inplace=True` that it is, or that an nn.Sequential starts with
    # (dropout layers do so in training mode only: see `graph.changes_input_in_place`).
    changes_input: str | None = None
    # A torch.nn layer's hyperparameters it was given as known numbers, by the attribute
    # that keeps them (`torch_api.layer_settings`): `(("embedding_dim", 32),)`.
    settings: tuple[tuple[str, int | float], ...] = ()
    # It certainly holds an integer buffer: a torch.nn BatchNorm1d/2d/3d or SyncBatchNorm
    # built without `track_running_stats` or with a literal True keeps the int64
    # `num_batches_tracked` (casts such as `.half()` or `.to(dtype)` leave it int64), and an
    # nn.Sequential given such a layer holds it among its buffers and its state_dict.
    integer_buffer: bool = False
    # A torch.nn layer certainly built with its `bias` parameter (`torch_api.BIASED_LAYERS`:
    # no argument that may remove it, or a literal True).
    has_bias: bool = False
    # The modules an nn.Sequential or nn.ModuleList holds, as built (`UNKNOWN` for one not
    # known); None when not known (see `gradguard.analysis.submodules`).
    children: tuple[Value, ...] | None = None
    # How many modules an nn.ModuleList or nn.Sequential holds as built: from a list written
    # out (`nn.ModuleList([a, b])`: 2; `nn.ModuleList()`: 0) or a comprehension over a known
    # range (`[Block() for _ in range(3)]`: 3, see `gradguard.analysis.comprehension_counts`);
    # None when not known (a list handed in, a range of unknown length may be empty).
    held_count: int | None = None
    # The names a container holds `children` under; None when not known (an
    # `nn.Sequential(OrderedDict(...))` holds them under its keys).
    indexing: Indexing | None = None


def evolve_module(module: ModuleRef, layer: Layer | None) -> ModuleRef:
    """`module` with another shape mapping."""
    return ModuleRef(module.qualified, module.local, module.kind, module.inplace, layer)
