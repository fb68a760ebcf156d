"""A minimal, honest shape fact for tensors: whether a tensor certainly does not hold exactly
one element.

There is no shape inference here, only what known sizes make certain. A size is known when
it is a literal or an expression the interpreter knows the int of (`n` bound to 64 once,
`cfg["hidden"]` of a literal dict: the `Constants` a caller passes in):

* factories with literal sizes (`torch.randn(4, 10)`, `torch.tensor([1.0, 2.0])`,
  `torch.zeros_like(y)` of a known `y`);
* elementwise arithmetic, which broadcasts: if any operand holds a number of elements other
  than one, so does the result (or the operation raises first);
* ops that keep the number of elements (`.view`, `.reshape`, `.flatten`, `.t()` ...);
* reductions without a `dim` (`.sum()`, `.mean()`, `torch.norm(x)`) and losses with their
  default reduction, which give a 0-dim tensor; reductions over literal dims (one, or a tuple:
  `.mean(dim=(1, 2))`) of a tensor whose dimensions are known there (`.sum(dim=1)` of a
  `(64, 1)` tensor is `(64,)`);
* indexing by one tensor of int64 or int32 ids (`table[ids]`, see `taken`): the ids'
  dimensions followed by those of a row;
* pairwise distances (`torch.cdist`, see `cdist_shape`) and the values and indices of an
  index reduction along one literal dim (`x.min(dim=2).values`, see `index_reduced`);
* basic indexing of a tensor of known rank (`x[None, :]`, `x[..., 0]`, `x[i : i + n]`, see
  `indexed`): a slice keeps its dimension;
* and back the other way: `x.shape` / `x.size()` of a tensor of known rank holds its sizes
  (`sizes_of`, `size_along`), so `b, n, _ = pts.shape` then `.view(b, n, 3)` stays known;
* a few `torch.nn` layers with literal sizes: `nn.Linear(10, 2)` always outputs a last
  dimension of 2, `nn.Conv2d(3, 8, 3)` 8 channels, `nn.Embedding(100, 16)` a last dimension
  of 16, whatever their input; shape-preserving layers (activations, dropout, norms) keep
  their input's shape; an `nn.Sequential` composes its layers.

Everything else is unknown. Dimensions are kept right-aligned (as broadcasting aligns them):
`Shape((None, 2), exact=False)` reads "..., ?, 2", a tensor whose rank is unknown but whose
last dimension is 2. This module is pure: it reads `ast` literals, never values.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from gradguard.analysis.names import keyword_value

Dim = int | None
# What the interpreter knows a call's argument expressions hold (`n` bound to `64`,
# `cfg["hidden"]`): sizes may be given by such names as well as by literals.
Constants = Mapping[ast.AST, object]
NO_CONSTANTS: Constants = {}


@dataclass(frozen=True)
class Shape:
    """What is known about a tensor's shape.

    `dims` are the trailing dimensions known (None: that size is unknown); with `exact` they
    are the whole shape. `many` records that the number of elements is certainly not one
    when no single dimension shows it (after a `.view(-1)` of such a tensor).
    """

    dims: tuple[Dim, ...] = ()
    exact: bool = False
    many: bool = False

    @property
    def not_single(self) -> bool:
        """True when the tensor certainly does not hold exactly one element."""
        return self.many or any(d is not None and d != 1 for d in self.dims)

    @property
    def single(self) -> bool:
        """True when the tensor certainly holds exactly one element (0-dim or all ones)."""
        return self.exact and all(d == 1 for d in self.dims)

    @property
    def known(self) -> bool:
        """True when anything at all is known."""
        return self != UNKNOWN_SHAPE

    def describe(self) -> str:
        """Human-readable: `(4, 2)`, `(..., 2)`, or "more than one element"."""
        if not self.dims:
            return "()" if self.exact else "more than one element"
        inner = ", ".join("?" if d is None else str(d) for d in self.dims)
        if self.exact:
            return f"({inner},)" if len(self.dims) == 1 else f"({inner})"
        return f"(..., {inner})"


UNKNOWN_SHAPE = Shape()
SCALAR_SHAPE = Shape((), exact=True)


def sizes_of(shape: Shape) -> tuple[Dim, ...] | None:
    """What `x.shape` / `x.size()` holds for a tensor of `shape`: one int per dimension
    (None where that size is not known), when the rank is known (`exact`); None when it is
    not (then not even the length of the torch.Size is known)."""
    return shape.dims if shape.exact else None


def size_along(shape: Shape, axis: int | None) -> Dim:
    """What `x.size(axis)` / `x.shape[axis]` holds: the size of that dimension, when the rank
    is known and the size is (a negative axis counts from the end); None otherwise, also for
    an axis out of range (torch raises)."""
    if axis is None or not shape.exact:
        return None
    rank = len(shape.dims)
    if not -rank <= axis < rank:
        return None
    return shape.dims[axis]


def numel_preserving(shape: Shape) -> Shape:
    """A `.view()`/`.reshape()`/`.flatten()`-like result: same number of elements, unknown
    dimensions."""
    return Shape(many=True) if shape.not_single else UNKNOWN_SHAPE


def join_shapes(a: Shape, b: Shape) -> Shape:
    """What holds on both of two control-flow paths."""
    if a == b:
        return a
    exact = a.exact and b.exact and len(a.dims) == len(b.dims)
    width = min(len(a.dims), len(b.dims))
    dims: tuple[Dim, ...] = ()
    if width:
        dims = tuple(
            x if x == y else None for x, y in zip(a.dims[-width:], b.dims[-width:], strict=True)
        )
    many = a.not_single and b.not_single
    joined = Shape(dims, exact=exact)
    if many and not joined.not_single:
        joined = Shape(dims, exact=exact, many=True)
    return joined


def broadcast(shapes: Sequence[Shape]) -> Shape:
    """The shape of an elementwise op on operands of these shapes (torch broadcasting).

    A broadcast never lowers a size other than one, so one operand that does not hold a
    single element makes the result hold more than one (or none): that is what decides
    non-scalar backward, and it holds even when other operands are unknown.
    """
    if not shapes:
        return UNKNOWN_SHAPE
    exact = all(s.exact for s in shapes)
    width = max(len(s.dims) for s in shapes)
    dims: list[Dim] = []
    for position in range(1, width + 1):
        sizes: list[Dim] = []
        for shape in shapes:
            if position <= len(shape.dims):
                sizes.append(shape.dims[-position])
            elif not shape.exact:
                sizes.append(None)  # this operand may have a dimension here
            # an exact shape with fewer dimensions broadcasts as size 1 here
        other = [s for s in sizes if s is not None and s != 1]
        if other:
            dims.append(other[0])  # the others must be 1 or equal, or the op raises
        elif all(s == 1 for s in sizes):
            dims.append(1)
        else:
            dims.append(None)
    result = Shape(tuple(reversed(dims)), exact=exact)
    if any(s.not_single for s in shapes) and not result.not_single:
        result = Shape(result.dims, exact=exact, many=True)
    return result


def _int(node: ast.expr | None, constants: Constants = NO_CONSTANTS) -> int | None:
    """A non-negative int (not a bool): a literal, or an expression `constants` knows."""
    value = known_int(node, constants)
    return value if value is not None and value >= 0 else None


def known_int(node: ast.expr | None, constants: Constants = NO_CONSTANTS) -> int | None:
    """An int, `-1` included (not a bool): a literal, its negation, or an expression
    `constants` knows."""
    if node is None:
        return None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = known_int(node.operand, constants)
        return -inner if inner is not None else None
    value = node.value if isinstance(node, ast.Constant) else constants.get(node)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _argument(call: ast.Call, index: int, name: str) -> ast.expr | None:
    """A call's argument by position or keyword (None when absent or after a `*args`)."""
    keyword = keyword_value(call, name)
    if keyword is not None:
        return keyword
    if any(isinstance(a, ast.Starred) for a in call.args[: index + 1]):
        return None
    return call.args[index] if index < len(call.args) else None


def _size_argument(call: ast.Call, constants: Constants) -> Shape:
    """The size of `torch.zeros(2, 3)`, `torch.zeros((2, 3))`, `torch.zeros(size=[2, 3])`."""
    sized = keyword_value(call, "size")
    if sized is not None:
        return _sizes(sized, constants)
    if len(call.args) == 1 and isinstance(call.args[0], ast.Tuple | ast.List):
        return _sizes(call.args[0], constants)
    return _sizes(call.args, constants)


def _sizes(node: ast.expr | list[ast.expr] | None, constants: Constants) -> Shape:
    """The shape given by sizes written in place: a tuple or list (`(4, n)`) or the
    arguments themselves; unknown unless every size is known."""
    if isinstance(node, ast.Tuple | ast.List):
        node = node.elts
    if not isinstance(node, list):
        return UNKNOWN_SHAPE
    sizes = [_int(item, constants) for item in node]
    if any(size is None for size in sizes):
        return UNKNOWN_SHAPE
    return Shape(tuple(sizes), exact=True)


def _literal_data(node: ast.expr) -> Shape:
    """The shape of the data in `torch.tensor(<literal>)`: a number or nested lists."""
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float | bool):
        return SCALAR_SHAPE
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        return _literal_data(node.operand)
    if isinstance(node, ast.List | ast.Tuple):
        if any(isinstance(e, ast.Starred) for e in node.elts):
            return UNKNOWN_SHAPE
        inner = [_literal_data(e) for e in node.elts]
        if not inner:
            return Shape((0,), exact=True)
        first = inner[0]
        if not first.exact or any(s != first for s in inner):
            return UNKNOWN_SHAPE  # ragged or unknown: torch.tensor would raise or we don't know
        return Shape((len(node.elts), *first.dims), exact=True)
    return UNKNOWN_SHAPE


def _arange(call: ast.Call) -> Shape:
    """`torch.arange(n)`, `torch.arange(a, b)`, `torch.arange(a, b, step)` with literals."""
    if call.keywords or any(isinstance(a, ast.Starred) for a in call.args):
        return UNKNOWN_SHAPE
    numbers: list[float] = []
    for arg in call.args:
        if not (
            isinstance(arg, ast.Constant)
            and isinstance(arg.value, int | float)
            and not isinstance(arg.value, bool)
        ):
            return UNKNOWN_SHAPE
        numbers.append(arg.value)
    if len(numbers) == 1:
        start, end, step = 0.0, numbers[0], 1.0
    elif len(numbers) in (2, 3):
        start, end = numbers[0], numbers[1]
        step = numbers[2] if len(numbers) == 3 else 1.0
    else:
        return UNKNOWN_SHAPE
    if step == 0:
        return UNKNOWN_SHAPE
    return Shape((max(0, math.ceil((end - start) / step)),), exact=True)


def factory_shape(
    qualified: str, call: ast.Call, like: Shape, constants: Constants = NO_CONSTANTS
) -> Shape:
    """The shape of a tensor made by a torch factory, `torch.tensor(...)` or a legacy
    constructor; `like` is the shape of the first argument (for `torch.zeros_like(y)` and
    `nn.Parameter(t)`), `constants` what the argument expressions are known to hold."""
    name = qualified.rsplit(".", 1)[-1]
    if name.endswith("_like") or name == "Parameter":
        return like
    if name in ("zeros", "ones", "empty", "rand", "randn"):
        return _size_argument(call, constants)
    if name == "randperm":
        n = _int(_argument(call, 0, "n"), constants)
        return Shape((n,), exact=True) if n is not None else UNKNOWN_SHAPE
    if name == "randint" and call.args:
        # `torch.randint(high, size)` or `torch.randint(low, high, size)`: size comes last.
        return _sizes(keyword_value(call, "size") or call.args[-1], constants)
    if name == "full":
        return _sizes(_argument(call, 0, "size"), constants)
    if name in ("tensor", "as_tensor"):
        data = _argument(call, 0, "data")
        return _literal_data(data) if data is not None else UNKNOWN_SHAPE
    if name == "arange":
        return _arange(call)
    if name in ("linspace", "logspace"):
        steps = _int(_argument(call, 2, "steps"), constants)
        return Shape((steps,), exact=True) if steps is not None else UNKNOWN_SHAPE
    if name == "eye":
        rows = _int(_argument(call, 0, "n"), constants)
        columns_node = _argument(call, 1, "m")
        columns = rows if columns_node is None else _int(columns_node, constants)
        if rows is not None and columns is not None:
            return Shape((rows, columns), exact=True)
    return UNKNOWN_SHAPE


# Reductions over every element when called without a `dim`: a 0-dim result.
FULL_REDUCTIONS = frozenset(
    "sum mean norm prod std var amax amin logsumexp count_nonzero nansum nanmean".split()
)
# Ops whose result has exactly the shape of their first tensor argument.
SAME_SHAPE = frozenset(
    (
        "abs clone contiguous cos cosh cpu cuda double exp expm1 float half "
        "bfloat16 log log1p log2 log10 log_softmax neg relu rsqrt sigmoid sin sinh softmax "
        "sqrt square tanh to type_as erf lgamma dropout gelu silu elu leaky_relu softplus "
        "hardtanh mish normalize layer_norm logsigmoid"
    ).split()
)
# Elementwise ops of several tensors: the broadcast of all their tensor arguments.
BROADCASTING = frozenset("add sub mul div pow maximum minimum where lerp".split())
# Ops that rearrange a tensor without changing its number of elements.
NUMEL_PRESERVING = frozenset(
    "view reshape flatten permute transpose t squeeze unsqueeze reshape_as".split()
)

# Losses that compare input and target elementwise: with reduction='none' the result has
# their broadcast shape.
_ELEMENTWISE_LOSSES = frozenset(
    "MSELoss L1Loss SmoothL1Loss HuberLoss BCELoss BCEWithLogitsLoss SoftMarginLoss "
    "mse_loss l1_loss smooth_l1_loss huber_loss binary_cross_entropy "
    "binary_cross_entropy_with_logits soft_margin_loss".split()
)
# Class-index losses: with reduction='none', an (N, C, ...) input gives (N, ...).
_CLASS_LOSSES = frozenset("CrossEntropyLoss NLLLoss cross_entropy nll_loss".split())
_OTHER_LOSSES = frozenset(
    "KLDivLoss CosineEmbeddingLoss MarginRankingLoss TripletMarginLoss CTCLoss PoissonNLLLoss "
    "GaussianNLLLoss HingeEmbeddingLoss MultiLabelSoftMarginLoss kl_div "
    "cosine_embedding_loss margin_ranking_loss triplet_margin_loss ctc_loss poisson_nll_loss "
    "gaussian_nll_loss hinge_embedding_loss multilabel_soft_margin_loss".split()
)
LOSSES = _ELEMENTWISE_LOSSES | _CLASS_LOSSES | _OTHER_LOSSES

# Layers whose output has the shape of their input.
_SHAPE_KEEPING_LAYERS = frozenset(
    "ReLU LeakyReLU GELU SiLU ELU Tanh Sigmoid Softmax LogSoftmax Softplus Mish Hardtanh "
    "Identity Dropout Dropout1d Dropout2d BatchNorm1d BatchNorm2d LayerNorm GroupNorm PReLU".split()
)
# Convolutions: the literal out_channels sit this many dimensions from the end.
_CONVOLUTIONS = {
    "Conv1d": 2,
    "Conv2d": 3,
    "Conv3d": 4,
    "ConvTranspose1d": 2,
    "ConvTranspose2d": 3,
}


# Losses whose first optional positional parameter is `weight` (harmless); for the others the
# first positional after input/target is the deprecated `size_average`.
_WEIGHTED_LOSSES = frozenset(
    "CrossEntropyLoss NLLLoss BCELoss BCEWithLogitsLoss MultiLabelSoftMarginLoss cross_entropy "
    "nll_loss binary_cross_entropy binary_cross_entropy_with_logits "
    "multilabel_soft_margin_loss".split()
)


def reduction_of(name: str, call: ast.Call, *, functional: bool) -> str | None:
    """The literal `reduction=` of a loss call (`F.mse_loss(a, b, ...)`) or loss module
    constructor (`nn.MSELoss(...)`): "mean" when not given. None when it is not a literal,
    when positional arguments may reach the deprecated `size_average`/`reduce`, or when
    those are given."""
    allowed = (2 if functional else 0) + (1 if name in _WEIGHTED_LOSSES else 0)
    if len(call.args) > allowed or any(isinstance(a, ast.Starred) for a in call.args):
        return None
    keywords = {kw.arg: kw.value for kw in call.keywords}
    if None in keywords or "size_average" in keywords or "reduce" in keywords:
        return None
    node = keywords.get("reduction")
    if node is None:
        return "mean"
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def loss_shape(
    name: str,
    reduction: str | None,
    input_shape: Shape,
    target: Shape,
    *,
    integer_target: bool = False,
) -> Shape:
    """The output shape of a loss (module or functional) with a given reduction. A class
    loss with class-index targets (`integer_target`, or always for nll) gives one value per
    target: the target's shape."""
    if reduction is None:
        return UNKNOWN_SHAPE
    if reduction != "none":
        return SCALAR_SHAPE  # "mean", "sum", "batchmean": one number
    if name in _ELEMENTWISE_LOSSES:
        return broadcast([input_shape, target])
    if name in _CLASS_LOSSES and input_shape.exact and len(input_shape.dims) >= 2:
        per_target = Shape((input_shape.dims[0], *input_shape.dims[2:]), exact=True)
        if target.exact and len(target.dims) == len(per_target.dims):
            # A target one rank below an `(N, C, ...)` input holds class indices, one per
            # loss value: its shape is the loss's too (torch raises unless they agree).
            return _agreeing(per_target, target)
        return per_target
    indices = integer_target or name in ("NLLLoss", "nll_loss")
    if name in _CLASS_LOSSES and indices and target.exact:
        return target
    return UNKNOWN_SHAPE


def _agreeing(a: Shape, b: Shape) -> Shape:
    """One exact shape known two ways, of the same rank (torch raises unless they agree):
    each size from whichever knows it; more than one element when either says so."""
    dims = tuple(x if x is not None else y for x, y in zip(a.dims, b.dims, strict=True))
    shape = Shape(dims, exact=True)
    if (a.not_single or b.not_single) and not shape.not_single:
        return Shape(dims, exact=True, many=True)
    return shape


@dataclass(frozen=True)
class Layer:
    """How a `torch.nn` layer built with literal arguments maps its input's shape.

    `kind` is "same" (output shaped like the input), "last" (the last dimension becomes
    `size`: nn.Linear), "append" (a dimension `size` is added: nn.Embedding), "channels"
    (`size` channels at `offset` from the end: convolutions), "recurrent" (the first output
    of nn.RNN/GRU/LSTM: the last dimension becomes `size`), "numel" (rearranged:
    nn.Flatten), "loss" (`name` with `reduction`) or "sequence" (`steps` in order; an unknown
    step is None).
    """

    kind: str
    size: int | None = None
    offset: int = 1
    name: str = ""
    reduction: str | None = None
    steps: tuple[Layer | None, ...] = ()

    def output(
        self, input_shape: Shape, target: Shape = UNKNOWN_SHAPE, *, integer_target: bool = False
    ) -> Shape:
        """The output shape for an input (and, for losses, a target, certainly of an integer
        dtype with `integer_target`) shape."""
        if self.kind == "same":
            return input_shape
        if self.kind == "numel":
            return numel_preserving(input_shape)
        if self.kind == "loss":
            return loss_shape(
                self.name, self.reduction, input_shape, target, integer_target=integer_target
            )
        if self.kind == "sequence":
            shape = input_shape
            for step in self.steps:
                shape = step.output(shape) if step is not None else UNKNOWN_SHAPE
            return shape
        # A size not known (`nn.Linear(d, hidden)` of a parameter) still leaves the others.
        if self.kind == "last":
            if input_shape.exact and input_shape.dims:
                return Shape((*input_shape.dims[:-1], self.size), exact=True)
            return Shape((self.size,)) if self.size is not None else UNKNOWN_SHAPE
        if self.kind == "append":
            if input_shape.exact:
                return Shape((*input_shape.dims, self.size), exact=True)
            return Shape((self.size,)) if self.size is not None else UNKNOWN_SHAPE
        if self.kind == "channels":
            return _convolved(self.size, self.offset, input_shape)
        if self.kind == "recurrent":
            return _recurrent(self.size, input_shape)
        return UNKNOWN_SHAPE


def _recurrent(features: int | None, input_shape: Shape) -> Shape:
    """The output (first result) of nn.RNN/GRU/LSTM: torch takes an input of rank 2
    (unbatched) or 3 only and replaces its last dimension by `features` (`D * H_out`)."""
    if input_shape.exact and len(input_shape.dims) in (2, 3):
        return Shape((*input_shape.dims[:-1], features), exact=True)
    return Shape((features,)) if features is not None else UNKNOWN_SHAPE


def _recurrent_layer(name: str, call: ast.Call, constants: Constants) -> Layer | None:
    """nn.RNN/GRU/LSTM(input_size, hidden_size, ...) with literal options: its output's last
    dimension is `(2 if bidirectional else 1) * (proj_size or hidden_size)`. None when options
    are passed positionally or by `**`, or `bidirectional`/`proj_size` are not literal."""
    if len(call.args) > 2 or any(isinstance(a, ast.Starred) for a in call.args):
        return None
    keywords = {kw.arg: kw.value for kw in call.keywords}
    if None in keywords:
        return None
    directions = 1
    if (flag := keywords.get("bidirectional")) is not None:
        if not (isinstance(flag, ast.Constant) and isinstance(flag.value, bool)):
            return None
        directions = 2 if flag.value else 1
    hidden = _int(_argument(call, 1, "hidden_size"), constants)
    if (proj := keywords.get("proj_size")) is not None:
        if name != "LSTM" or (size := _int(proj, constants)) is None:
            return None
        hidden = size or hidden  # proj_size=0 (the default) projects nothing
    return Layer("recurrent", size=hidden * directions if hidden is not None else None)


def _convolved(channels: int | None, offset: int, input_shape: Shape) -> Shape:
    """A convolution's output: `channels` at `offset` from the end, the spatial sizes unknown.
    An input of known rank keeps its batch size: a convolution takes `(C, *spatial)` or
    `(N, C, *spatial)` only (torch raises for any other rank), so an input with at least
    `offset + 1` known dims is batched and `N` stays."""
    spatial: tuple[Dim, ...] = (None,) * (offset - 1)
    if len(input_shape.dims) == offset + 1:
        return Shape((input_shape.dims[0], channels, *spatial), exact=True)
    if input_shape.exact and len(input_shape.dims) == offset:
        return Shape((channels, *spatial), exact=True)
    return Shape((channels, *spatial)) if channels is not None else UNKNOWN_SHAPE


def layer_of(name: str, call: ast.Call, constants: Constants = NO_CONSTANTS) -> Layer | None:
    """The `Layer` of `torch.nn.<name>(...)` built with known sizes, if known."""
    if name in _SHAPE_KEEPING_LAYERS:
        return Layer("same")
    if name == "Flatten":
        return Layer("numel")
    if name == "Linear":
        return Layer("last", size=_int(_argument(call, 1, "out_features"), constants))
    if name == "Embedding":
        return Layer("append", size=_int(_argument(call, 1, "embedding_dim"), constants))
    if name in _CONVOLUTIONS:
        size = _int(_argument(call, 1, "out_channels"), constants)
        return Layer("channels", size=size, offset=_CONVOLUTIONS[name])
    if name in ("RNN", "GRU", "LSTM"):
        return _recurrent_layer(name, call, constants)
    if name in LOSSES:
        return Layer("loss", name=name, reduction=reduction_of(name, call, functional=False))
    return None


def sequence_of(layers: Sequence[Layer | None]) -> Layer:
    """An `nn.Sequential` of these layers (None: a layer this module does not know)."""
    return Layer("sequence", steps=tuple(layers))


def op_shape(
    name: str,
    call: ast.Call,
    inputs: Sequence[Shape],
    keywords: Sequence[Shape],
    constants: Constants = NO_CONSTANTS,
) -> Shape:
    """The shape of a torch function or tensor method `name`: `inputs` are the tensor it works
    on (a method's receiver, a function's first argument) and the other positional arguments,
    `keywords` the shapes of its keyword arguments, `constants` what the argument
    expressions are known to hold."""
    if not inputs:
        return UNKNOWN_SHAPE
    first = inputs[0]
    names = {kw.arg for kw in call.keywords}
    if name in FULL_REDUCTIONS:
        # Only the whole-tensor form is certain: `dim`, `keepdim` or a positional dim keep axes.
        if len(inputs) == 1 and not names & {"dim", "axis", "keepdim", None}:
            return SCALAR_SHAPE
        method = len(inputs) > len(call.args)
        return _reduced_along(name, call, first, constants, method=method)
    if name in SAME_SHAPE:
        return first
    if name in ("squeeze", "unsqueeze"):
        squeezed = _squeezed(name, call, first, constants, method=len(inputs) > len(call.args))
        return squeezed if squeezed.known else numel_preserving(first)
    if name in ("view", "reshape"):
        method = len(inputs) > len(call.args)
        reshaped = _reshaped(call, first, constants, method=method)
        return reshaped if reshaped.known else numel_preserving(first)
    if name in NUMEL_PRESERVING:
        return numel_preserving(first)
    if name == "gather":
        return _gathered(call, inputs, keywords)
    if name == "stft":
        return _stft(call, first)
    if name in ("clamp", "clip"):
        return broadcast([*inputs, *keywords])  # tensor bounds broadcast
    if name in BROADCASTING:
        if name == "where" and len(inputs) + len(keywords) < 3:
            return UNKNOWN_SHAPE  # torch.where(cond) returns a tuple of indices
        return broadcast([*inputs, *keywords])
    if name in ("matmul", "mm") and len(inputs) == 2:
        return matmul(inputs[0], inputs[1])
    if name == "cdist" and len(inputs) >= 2:
        return cdist_shape(inputs[0], inputs[1])
    return UNKNOWN_SHAPE


def _reshaped(call: ast.Call, shape: Shape, constants: Constants, *, method: bool) -> Shape:
    """`x.view(4, -1)`, `x.reshape((-1, 1))`, `torch.reshape(x, (2, 3))` with every size
    known: those sizes (torch raises unless they hold the same number of elements). A `-1`
    stands for the number of elements left: known when `shape` is exact with every size
    known (`(8,)` viewed as `(-1, 1)` is `(8, 1)`), else that dimension is unknown and the
    tensor still holds more than one element if `shape` did. Unknown for any other form (a
    dtype, a size not known, two `-1`s)."""
    if call.keywords or any(isinstance(a, ast.Starred) for a in call.args):
        return UNKNOWN_SHAPE
    given = call.args if method else call.args[1:]
    if len(given) == 1 and isinstance(given[0], ast.Tuple | ast.List):
        given = given[0].elts
    found = [known_int(item, constants) for item in given]
    sizes = [size for size in found if size is not None and size >= -1]
    if not given or len(sizes) != len(found):
        return UNKNOWN_SHAPE
    if sizes.count(-1) > 1:
        return UNKNOWN_SHAPE  # torch raises: only one dimension can be inferred
    if -1 not in sizes:
        return Shape(tuple(sizes), exact=True)
    rest = math.prod(size for size in sizes if size != -1)
    known = shape.exact and all(d is not None for d in shape.dims)
    if known and rest > 0:
        total = math.prod(d for d in shape.dims if d is not None)
        if total % rest:
            return UNKNOWN_SHAPE  # torch raises: the sizes do not fit
        return Shape(tuple(total // rest if s == -1 else s for s in sizes), exact=True)
    dims = tuple(None if s == -1 else s for s in sizes)
    return Shape(dims, exact=True, many=shape.not_single)


def _gathered(call: ast.Call, inputs: Sequence[Shape], keywords: Sequence[Shape]) -> Shape:
    """`x.gather(dim, index)` / `torch.gather(x, dim, index)`: the result has the shape of
    `index` (torch 2.13.0), given third (the receiver counted first) or as `index=`."""
    for keyword, shape in zip(call.keywords, keywords, strict=False):
        if keyword.arg == "index":
            return shape
    return inputs[2] if len(inputs) > 2 else UNKNOWN_SHAPE


# Reductions whose only positional argument after the input is `dim` (in torch 2.13.0 `norm`
# takes `p` first, `std`/`var` an `unbiased` flag in some overloads, `count_nonzero` no
# `keepdim`): for these `x.sum(1)` and `torch.sum(x, 1)` drop axis 1.
_DIM_REDUCTIONS = frozenset("sum mean prod amax amin logsumexp nansum nanmean".split())
# Those of them that also take a tuple or list of dims (`x.mean(dim=(1, 2))`); in torch
# 2.13.0 `prod` takes one int only.
_MULTI_DIM_REDUCTIONS = _DIM_REDUCTIONS - {"prod"}


# Index reductions along one dim (`x.max(dim=1)`, `torch.min(x, 1, keepdim=True)`): both
# their values and their indices have the shape of a reduction over that dim (torch 2.13.0;
# they take one int dim only).
_INDEX_REDUCTIONS_ALONG = frozenset("max min median nanmedian".split())


def index_reduced(
    name: str, call: ast.Call, shape: Shape, constants: Constants = NO_CONSTANTS, *, method: bool
) -> Shape:
    """The shape of the values (and of the indices) of an index reduction over one literal
    dim of a tensor of `shape` (see `_reduced_along`); unknown for the others (`sort`,
    `topk`...) and for any form it cannot read."""
    if name not in _INDEX_REDUCTIONS_ALONG:
        return UNKNOWN_SHAPE
    return _reduced_along(name, call, shape, constants, method=method)


def cdist_shape(a: Shape, b: Shape) -> Shape:
    """`torch.cdist(x1, x2)` of exactly known `(*B, P, M)` and `(*B', R, M)`: `(*B'', P,
    R)`, the batch dimensions broadcast (torch 2.13.0; it raises for a rank below 2)."""
    if not (a.exact and b.exact) or len(a.dims) < 2 or len(b.dims) < 2:
        return UNKNOWN_SHAPE
    batch = broadcast([Shape(a.dims[:-2], exact=True), Shape(b.dims[:-2], exact=True)])
    return Shape((*batch.dims, a.dims[-2], b.dims[-2]), exact=True)


def _reduced_along(
    name: str, call: ast.Call, shape: Shape, constants: Constants, *, method: bool
) -> Shape:
    """The shape after reducing `shape` over literal dims (`x.sum(dim=1)`,
    `torch.mean(x, -1, keepdim=True)`, `x.mean(dim=(1, 2))`): the axes are dropped, or kept
    as 1 with a literal `keepdim=True`. Unknown unless every axis is among the known
    dimensions (counted from the left only in an exact shape) and no axis repeats."""
    known = name in _DIM_REDUCTIONS or name in _INDEX_REDUCTIONS_ALONG
    if not known or any(isinstance(a, ast.Starred) for a in call.args):
        return UNKNOWN_SHAPE
    allowed = {"dim", "keepdim", "dtype"}
    if any(kw.arg not in allowed for kw in call.keywords) or len(call.args) > 2 - method:
        return UNKNOWN_SHAPE
    keep = keyword_value(call, "keepdim")
    if keep is not None and not isinstance(keep, ast.Constant):
        return UNKNOWN_SHAPE
    keepdim = isinstance(keep, ast.Constant) and keep.value is True
    indices = _axis_indices(name, _argument(call, 0 if method else 1, "dim"), shape, constants)
    if indices is None:
        return UNKNOWN_SHAPE
    if keepdim:
        dims = tuple(1 if i in indices else size for i, size in enumerate(shape.dims))
    else:
        dims = tuple(size for i, size in enumerate(shape.dims) if i not in indices)
    return Shape(dims, exact=shape.exact)


def _axis_indices(
    name: str, node: ast.expr | None, shape: Shape, constants: Constants
) -> frozenset[int] | None:
    """The positions in `shape.dims` of the axes a reduction's `dim` names: one known int,
    or (for `_MULTI_DIM_REDUCTIONS`) a non-empty tuple or list of them. None when one is
    unknown, out of the known dimensions, counted from the left of an inexact shape, or
    repeated (torch raises)."""
    if isinstance(node, ast.Tuple | ast.List):
        if name not in _MULTI_DIM_REDUCTIONS or not node.elts:
            return None  # `dim=()` reduces everything in some ops, nothing in others
        items: list[ast.expr] = list(node.elts)
    elif node is not None:
        items = [node]
    else:
        return None
    rank = len(shape.dims)
    indices: set[int] = set()
    for item in items:
        axis = known_int(item, constants)
        if axis is None or (axis >= 0 and not shape.exact):
            return None  # unknown, or counted from the left of a shape known at its right
        index = axis if axis >= 0 else rank + axis
        if not 0 <= index < rank or index in indices:
            return None
        indices.add(index)
    return frozenset(indices)


def _squeezed(
    name: str, call: ast.Call, shape: Shape, constants: Constants, *, method: bool
) -> Shape:
    """`x.squeeze(1)` / `torch.squeeze(x, (0, 1))`: each named axis of size 1 is dropped, one
    of another known size kept; `x.unsqueeze(-1)` inserts a 1. Unknown when an axis or its
    size is not known, or for `squeeze()` without dims."""
    if any(isinstance(a, ast.Starred) for a in call.args) or len(call.args) > 2 - method:
        return UNKNOWN_SHAPE
    node = _argument(call, 0 if method else 1, "dim")
    if node is None or any(kw.arg != "dim" for kw in call.keywords):
        return UNKNOWN_SHAPE
    if name == "unsqueeze":
        axis = known_int(node, constants)
        rank = len(shape.dims) + 1  # the result's rank, where the axis counts
        if axis is None or (axis >= 0 and not shape.exact) or not -rank <= axis < rank:
            return UNKNOWN_SHAPE
        index = axis if axis >= 0 else rank + axis
        return Shape((*shape.dims[:index], 1, *shape.dims[index:]), exact=shape.exact)
    items = node.elts if isinstance(node, ast.Tuple | ast.List) else [node]
    rank = len(shape.dims)
    dropped: set[int] = set()
    for item in items:
        axis = known_int(item, constants)
        if axis is None or (axis >= 0 and not shape.exact) or not -rank <= axis < rank:
            return UNKNOWN_SHAPE
        index = axis if axis >= 0 else rank + axis
        if shape.dims[index] is None:
            return UNKNOWN_SHAPE  # dropped only if it is 1
        if shape.dims[index] == 1:
            dropped.add(index)
    return Shape(tuple(d for i, d in enumerate(shape.dims) if i not in dropped), exact=shape.exact)


def _stft(call: ast.Call, signal: Shape) -> Shape:
    """`torch.stft(x, n_fft, ..., return_complex=True)` of an exactly known 1-D `(L,)` or 2-D
    `(B, L)` signal: `(freqs, frames)` or `(B, freqs, frames)` (torch 2.13.0; it raises for a
    real input without `return_complex`, and `return_complex=False` adds a last dim of 2).
    Only the batch size is known: the others depend on n_fft, hop, centering and onesided."""
    flag = keyword_value(call, "return_complex")
    if not (isinstance(flag, ast.Constant) and flag.value is True):
        return UNKNOWN_SHAPE
    if not signal.exact or len(signal.dims) not in (1, 2):
        return UNKNOWN_SHAPE
    return Shape((*signal.dims[:-1], None, None), exact=True)


def matmul(a: Shape, b: Shape) -> Shape:
    """`a @ b` for exactly known 1-D/2-D right operands (no batch broadcasting guessed)."""
    if not (a.exact and b.exact) or not a.dims or len(b.dims) not in (1, 2):
        return UNKNOWN_SHAPE
    if len(b.dims) == 1:
        return Shape(a.dims[:-1], exact=True)
    return Shape((*a.dims[:-1], b.dims[-1]), exact=True)


def operator_shape(op: ast.operator | ast.unaryop, operands: Sequence[Shape]) -> Shape:
    """The shape of Python arithmetic on tensors (`a * b`, `-a`, `a @ b`, `a += b`)."""
    if isinstance(op, ast.MatMult):
        return matmul(operands[0], operands[1]) if len(operands) == 2 else UNKNOWN_SHAPE
    if isinstance(op, ast.Not):
        return UNKNOWN_SHAPE
    return broadcast(operands)


def _index_item(item: ast.expr) -> str | int | None:
    """One item of a basic index: "new" (`None`), "all" (`:`), "part" (any other slice,
    `i : i + n`, `::2`: the dimension stays, its size not known), "rest" (`...`), a literal
    int, or None for anything else (a tensor, a list, a name)."""
    if isinstance(item, ast.Slice):
        whole = item.lower is None and item.upper is None and item.step is None
        return "all" if whole else "part"
    if isinstance(item, ast.Constant):
        if item.value is None:
            return "new"
        if item.value is Ellipsis:
            return "rest"
    return known_int(item, NO_CONSTANTS)


def _apply_index(items: Sequence[str | int], dims: Sequence[Dim]) -> list[Dim] | None:
    """`dims` after the items (without "rest") that index them from the left; None when an
    int is out of range of a known size or there are more indexed dims than `dims`."""
    result: list[Dim] = []
    position = 0
    for item in items:
        if item == "new":
            result.append(1)
            continue
        if position >= len(dims):
            return None  # too many indices: torch raises
        size = dims[position]
        if isinstance(item, int) and size is not None and not -size <= item < size:
            return None  # out of range: torch raises
        if item == "all":
            result.append(size)
        elif item == "part":
            result.append(None)  # a slice keeps the dimension, of a size up to `size`
        position += 1
    return result + list(dims[position:])


def taken(shape: Shape, index: Shape) -> Shape:
    """The shape of `x[idx]`, `x` of `shape` indexed by one tensor `idx` of `index`'s shape
    and of dtype int64 or int32: one slice of `x` along its first dimension per element of
    `idx`, so `idx`'s dimensions followed by those of `x` after the first. Whatever the
    sizes of `x`, the result holds `numel(idx)` times as many elements as one slice, so it
    does not hold exactly one element when `idx` does not (a slice may be empty: none)."""
    many = index.not_single
    if shape.exact and shape.dims:
        dims = (*index.dims, *shape.dims[1:])
        exact = index.exact
        if not index.exact and not index.dims:
            dims = shape.dims[1:]  # the index's rank unknown: only x's slice dims are known
        result = Shape(dims, exact=exact)
    else:
        result = UNKNOWN_SHAPE
    if many and not result.not_single:
        result = Shape(result.dims, exact=result.exact, many=True)
    return result


def indexed(shape: Shape, index: ast.expr) -> Shape:
    """The shape of `x[index]` for an exact `shape` when every item of the index is `None`,
    `...`, a slice or a literal int (`x[None, :]`, `x[:, None]`, `x[..., 0]`, `x[i : i +
    n]`): `None` inserts a 1, an int drops its dimension, `:` keeps it, another slice keeps
    it with its size unknown (a slice's bounds are clamped: it never raises), `...` stands
    for the dimensions no other item names. Unknown otherwise (advanced indexing, a rank
    torch rejects)."""
    raw = index.elts if isinstance(index, ast.Tuple) else [index]
    items = [_index_item(item) for item in raw]
    if not shape.exact or any(item is None for item in items):
        return UNKNOWN_SHAPE
    known = [item for item in items if item is not None]
    if known.count("rest") > 1:
        return UNKNOWN_SHAPE  # torch raises: an index can only have a single ellipsis
    if "rest" not in known:
        dims = _apply_index(known, shape.dims)
        return UNKNOWN_SHAPE if dims is None else Shape(tuple(dims), exact=True)
    split = known.index("rest")
    front, back = known[:split], known[split + 1 :]
    used_back = sum(1 for item in back if item != "new")
    used_front = sum(1 for item in front if item != "new")
    if used_front + used_back > len(shape.dims):
        return UNKNOWN_SHAPE
    cut = len(shape.dims) - used_back
    head = _apply_index(front, shape.dims[:cut])
    tail = _apply_index(back, shape.dims[cut:])
    if head is None or tail is None:
        return UNKNOWN_SHAPE
    return Shape((*head, *tail), exact=True)
