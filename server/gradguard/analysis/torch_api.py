"""What GradGuard knows about the torch API: grad-mode switches, factories, differentiable
functions and `torch.nn` modules. Anything not listed here is unknown to the analysis."""

from __future__ import annotations

import ast
from dataclasses import dataclass

# Context managers / decorators that turn gradient recording off.
NO_GRAD = frozenset({"torch.no_grad", "torch.autograd.no_grad", "torch.autograd.grad_mode.no_grad"})
INFERENCE_MODE = frozenset({"torch.inference_mode", "torch.autograd.inference_mode"})
ENABLE_GRAD = frozenset({"torch.enable_grad", "torch.autograd.enable_grad"})
SET_GRAD_ENABLED = frozenset({"torch.set_grad_enabled", "torch.autograd.set_grad_enabled"})

BACKWARD_FUNCTIONS = frozenset({"torch.autograd.backward"})
GRAD_FUNCTIONS = frozenset({"torch.autograd.grad"})
# The keywords `Tensor.backward` and `torch.autograd.backward` take (torch 2.13).
BACKWARD_KEYWORDS = frozenset(
    {
        "gradient",
        "retain_graph",
        "create_graph",
        "inputs",
        "tensors",
        "grad_tensors",
        "grad_variables",
    }
)

# Factories create leaves: no history; they require grad only with `requires_grad=True`.
FACTORIES = frozenset(
    f"torch.{name}"
    for name in [
        "zeros",
        "ones",
        "empty",
        "full",
        "rand",
        "randn",
        "randint",
        "randperm",
        "arange",
        "linspace",
        "logspace",
        "eye",
        "zeros_like",
        "ones_like",
        "empty_like",
        "full_like",
        "rand_like",
        "randn_like",
        "randint_like",
        "normal",
        "bernoulli",
        "multinomial",
    ]
)
# Re-wrapping copies data into a new leaf: the graph is cut.
REWRAP = frozenset({"torch.tensor", "torch.as_tensor", "torch.from_numpy", "torch.asarray"})
# The legacy `Variable(data, requires_grad=False)` wrapper: checked against torch 2.13.0, it
# returns a new tensor sharing `data`'s storage, without history (`Variable(y).grad_fn` is
# None even when `y` has one, and `Variable(y).backward()` raises "element 0 of tensors does
# not require grad"), requiring grad only when asked (keyword or second positional
# argument); under inference mode, `Variable(t)` of a normal tensor is not an inference
# tensor.
VARIABLE = frozenset({"torch.autograd.Variable", "torch.autograd.variable.Variable"})
REWRAP = REWRAP | VARIABLE
# Of those, the ones that return a tensor argument itself (or its `.to(dtype, device)`, a
# differentiable copy), keeping its history: checked against torch 2.13.0.
KEEPS_TENSOR_DATA = frozenset({"torch.as_tensor", "torch.asarray"})
LEGACY_CONSTRUCTORS = frozenset(
    f"torch.{name}" for name in ["Tensor", "FloatTensor", "DoubleTensor", "LongTensor", "IntTensor"]
)

# Differentiable functions: the result records history when an input does.
_DIFFERENTIABLE_TOP = (
    "abs add addmm bmm cat cdist clamp clip cos cosh cumsum cumprod diag div dot einsum exp "
    "expm1 flatten flip gather index_select lerp log log1p log2 log10 log_softmax logsumexp "
    "masked_fill matmul max maximum mean min minimum mm mul mv neg norm outer permute pow prod "
    "reshape relu rsqrt select sigmoid sin sinh softmax sqrt square squeeze stack std sub "
    "sum t tanh tile transpose tril triu unsqueeze var vstack hstack where roll narrow "
    "baddbmm conv1d conv2d conv_transpose2d dropout erf lgamma mse_loss nll_loss "
    # Checked against torch 2.13.0: one tensor that requires grad when an input does.
    "sparse.mm conv3d tensordot kron addcmul addcdiv atan2 atan asin acos tan floor ceil "
    "round trunc frac sign sgn fix erfinv exp2 logit hypot trace diagonal repeat_interleave "
    "broadcast_to movedim swapaxes unflatten cross diff logcumsumexp renorm nan_to_num celu "
    "selu clamp_min clamp_max amax amin nansum nanmean quantile linalg.norm linalg.vector_norm "
    "linalg.matrix_norm linalg.inv det logdet cholesky bilinear cosine_similarity "
    "pairwise_distance dist chain_matmul block_diag rot90 take take_along_dim scatter "
    "scatter_add index_add masked_select ravel stft"
    # Checked against torch 2.13.0 (each keeps its own result for backward, see graph.py).
    " reciprocal special.expit special.exp2 special.expm1"
)
DIFFERENTIABLE = frozenset(f"torch.{name}" for name in _DIFFERENTIABLE_TOP.split())
# Of those, the ones whose gradient is zero wherever it is defined: the result has a grad_fn,
# and backward() through it sends back zeros (checked against torch 2.13.0, functions and
# tensor methods alike, `round(x, decimals=1)` too). `frac` is not one (its gradient is 1).
_ZERO_GRADIENT = "round floor ceil sign trunc sgn fix"
ZERO_GRADIENT_FUNCTIONS = frozenset(f"torch.{name}" for name in _ZERO_GRADIENT.split())
ZERO_GRADIENT_METHODS = frozenset(_ZERO_GRADIENT.split())
FUNCTIONAL_PREFIX = "torch.nn.functional."
# Tensor methods that return a tuple of views of the receiver, as many as the sizes allow
# (fewer than asked when the dimension is short): each piece has the receiver's history.
# Checked against torch 2.13.0: changing a piece in place while the receiver requires grad
# raises at once ("Output 0 of Split is a view and is being modified inplace").
SPLITTING_METHODS = frozenset({"chunk", "split", "unbind", "tensor_split"})
# Functions joining a list of tensors that raise when the list is empty. Checked against
# torch 2.13.0: `torch.stack([])` raises "stack expects a non-empty TensorList",
# `torch.cat([])` "torch.cat(): expected a non-empty list of Tensors" (see `stacked_lists`).
EMPTY_LIST_RAISES = frozenset(
    f"torch.{n}"
    for n in "stack cat concat concatenate vstack hstack dstack column_stack row_stack".split()
)
# torch.max/min/sort/topk/chunk/split return tuples or lists in some forms: structure unknown.
TUPLE_RETURNING = frozenset(
    f"torch.{n}"
    for n in [
        "max",
        "min",
        "sort",
        "topk",
        "chunk",
        "split",
        "unbind",
        "kthvalue",
        "median",
        "mode",
    ]
)

# Functions returning a tuple of tensors that each record history when the input does, by
# how many (checked against torch 2.13.0 on a matrix that requires grad: every element has a
# grad_fn, none is an integer tensor): decompositions and paired statistics.
DIFFERENTIABLE_TUPLES = {
    "torch.linalg.eigh": 2,
    "torch.linalg.eig": 2,
    "torch.linalg.svd": 3,
    "torch.svd": 3,
    "torch.linalg.qr": 2,
    "torch.qr": 2,
    "torch.linalg.slogdet": 2,
    "torch.slogdet": 2,
    "torch.std_mean": 2,
    "torch.var_mean": 2,
    "torch.aminmax": 2,
}

# Reductions that return a (values, indices) named tuple. The indices are int64 and never
# require grad. "always": in every form; "with_dim": only when a dim is given (`torch.max(x)`
# is a tensor, `torch.max(x, y)` with a tensor `y` is an elementwise maximum). Checked
# against torch 2.13.0: `torch.max(x, 1)`, `x.max(dim=1)`, `x.sort()`, `x.topk(2)`,
# `torch.kthvalue(x, 1)`, `x.mode()`, `x.cummax(0)`, `x.median(0)` return `(values, indices)`.
INDEX_REDUCTIONS = {
    "max": "with_dim",
    "min": "with_dim",
    "median": "with_dim",
    "nanmedian": "with_dim",
    "mode": "always",
    "kthvalue": "always",
    "sort": "always",
    "topk": "always",
    "cummax": "always",
    "cummin": "always",
}
INDEX_REDUCTION_FIELDS = ("values", "indices")

# numpy functions that turn their argument into an array, calling `Tensor.numpy()` (which
# raises "Can't call numpy() on Tensor that requires grad"). "tensor": on a tensor argument
# and on a list of tensors; "list": on a list of tensors only (on a tensor they call the
# tensor's own method with `axis=` and fail with a TypeError instead). Checked under torch
# 2.13.0 and numpy 2.
NUMPY_CONVERTS = {
    **dict.fromkeys(
        "array asarray average median clip abs exp log sqrt square round isnan cumsum "
        "argmax argmin concatenate stack vstack hstack percentile dot log10 log2 log1p expm1 "
        "sin cos tanh floor ceil negative reciprocal maximum minimum nanmean nansum ptp "
        "cumprod argsort sort unique histogram ravel".split(),
        "tensor",
    ),
    # Checked the same way under torch 2.13.0 and numpy 2.4.6, each on a tensor computed from
    # one that requires grad, as the first argument (and on a list of 0-d such tensors).
    **dict.fromkeys(
        "transpose reshape expand_dims copy where corrcoef cov isclose allclose around rint "
        "trunc sign power multiply add subtract divide matmul outer tile repeat atleast_1d "
        "atleast_2d diff gradient nan_to_num nanmax nanmin column_stack dstack polyfit interp "
        "digitize histogram2d linalg.norm".split(),
        "tensor",
    ),
    # The scalar types too, on 0-d and larger tensors alike (`np.float64(t)` of a 0-d
    # tensor goes through `float()` and works: not listed).
    **dict.fromkeys("float32 float16 int64 int32".split(), "tensor"),
    **dict.fromkeys("mean sum std var max min amax amin prod any all".split(), "list"),
}

# `nn.parallel.data_parallel(module, inputs, ...)` runs `module(inputs)` (on several devices
# when there are several): its result is the module's output.
DATA_PARALLEL = frozenset(
    {"torch.nn.parallel.data_parallel", "torch.nn.parallel.data_parallel.data_parallel"}
)

# Methods that cannot clear or use gradients whatever their receiver is: tensor and module
# movement, casts and shape views, conversions, and the methods of str/list/dict that
# training loops call on their data and logs (`data.to(device)`, `"{}".format(...)`).
# `Module.to()` and `Tensor.to()` copy or move; neither touches `.grad`.
INERT_METHODS = frozenset(
    "to cuda cpu float double half bfloat16 long int bool byte view view_as reshape "
    "reshape_as size dim squeeze unsqueeze permute transpose contiguous flatten expand "
    "expand_as item numpy tolist detach clone type type_as format append extend items keys "
    "values get join split strip lower upper startswith endswith replace add_argument "
    "parse_args add_scalar log info debug warning write flush set_description set_postfix "
    "update_progress".split()
)

# No gradient flows through these: the result never requires grad.
NON_DIFFERENTIABLE = frozenset(
    f"torch.{n}"
    for n in [
        "argmax",
        "argmin",
        "argsort",
        "eq",
        "ne",
        "gt",
        "lt",
        "ge",
        "le",
        "isnan",
        "isinf",
        "searchsorted",
        "bucketize",
        # Integer or bool results (checked against torch 2.13.0).
        "nn.functional.one_hot",
        "nonzero",
        "argwhere",
        "count_nonzero",
        "isfinite",
        "isclose",
        "logical_not",
        "logical_and",
        "logical_or",
        "logical_xor",
    ]
)
NON_DIFFERENTIABLE_METHODS = frozenset(
    [
        "argmax",
        "argmin",
        "argsort",
        "nonzero",
        "argwhere",
        "count_nonzero",
        "isfinite",
        "isclose",
        "logical_not",
        "logical_and",
        "logical_or",
        "logical_xor",
        "long",
        "int",
        "short",
        "bool",
        "byte",
        "eq",
        "ne",
        "gt",
        "lt",
        "ge",
        "le",
        "isnan",
        "isinf",
    ]
)

# Of those methods, the casts: `t.long()` of an int64 tensor returns `t` itself (checked
# against torch 2.13.0), so under inference mode it is an inference tensor only if `t` is;
# every other one (argmax, comparisons...) allocates its result.
INTEGRAL_CAST_METHODS = frozenset("long int short bool byte".split())

# Tensor methods.
# Integer and bool dtypes: a tensor cast to one (`x.to(torch.long)`, `x.type(torch.int64)`,
# `x.to(device, dtype=torch.bool)`) never requires grad, whatever it was cast from (only
# floating-point and complex tensors can require gradients). Checked against torch 2.13.0.
INTEGRAL_DTYPES = frozenset(
    f"torch.{name}"
    for name in ("bool uint8 uint16 uint32 uint64 int8 int16 int32 int64 short int long".split())
)
# The integer dtypes a tensor indexes with, one slice per element (`x[idx]`; bool and uint8
# tensors index as masks, other integer dtypes raise). Checked against torch 2.13.0.
INDEX_DTYPES = frozenset(f"torch.{name}" for name in "int64 long int32 int".split())
# Casts to them (`ids.long()`, `ids.int()`).
INDEX_CAST_METHODS = frozenset({"long", "int"})
# Tensor methods that cast to a dtype given as an argument.
DTYPE_CASTS = frozenset({"to", "type"})
# Every dtype torch names (`torch.float32`, `torch.long`, ...: the 56 attributes of torch
# 2.13.0 that are a `torch.dtype`), and `torch.device`, the class and what calling it
# makes: none is a tensor, none has autograd history.
DTYPE_NAMES = frozenset(
    f"torch.{name}"
    for name in (
        "bfloat16 bit bits16 bits1x8 bits2x4 bits4x2 bits8 bool cdouble cfloat chalf "
        "complex128 complex32 complex64 double float float16 float32 float4_e2m1fn_x2 "
        "float64 float8_e4m3fn float8_e4m3fnuz float8_e5m2 float8_e5m2fnuz float8_e8m0fnu "
        "half int int1 int16 int2 int3 int32 int4 int5 int6 int64 int7 int8 long qint32 "
        "qint8 quint2x4 quint4x2 quint8 short uint1 uint16 uint2 uint3 uint32 uint4 uint5 "
        "uint6 uint64 uint7 uint8"
    ).split()
)
DEVICE_CLASS = "torch.device"
NOT_TENSOR_NAMES = DTYPE_NAMES | {DEVICE_CLASS}
CONVERSIONS = {"item": "scalar", "tolist": "list", "numpy": "ndarray"}
DETACH_METHODS = frozenset({"detach"})
DIFFERENTIABLE_METHODS = frozenset(
    [
        "abs",
        "add",
        "bmm",
        "clamp",
        "clone",
        "contiguous",
        "cos",
        "cpu",
        "cuda",
        "cumsum",
        "div",
        "double",
        "exp",
        "expand",
        "expand_as",
        "flatten",
        "flip",
        "float",
        "gather",
        "half",
        "bfloat16",
        "index_select",
        "log",
        "log_softmax",
        "masked_fill",
        "matmul",
        "mean",
        "mm",
        "mul",
        "neg",
        "norm",
        "permute",
        "pow",
        "prod",
        "relu",
        "repeat",
        "reshape",
        "reshape_as",
        "sigmoid",
        "sin",
        "softmax",
        "sqrt",
        "square",
        "squeeze",
        "std",
        "sub",
        "sum",
        "t",
        "tanh",
        "to",
        "transpose",
        "type_as",
        "unsqueeze",
        "var",
        "view",
        "view_as",
        "narrow",
        "select",
        "roll",
        "tril",
        "triu",
        "type",
        # Zero-gradient ops (`ZERO_GRADIENT_METHODS`): a grad_fn, zero gradients.
        "round",
        "floor",
        "ceil",
        "sign",
        "trunc",
        "sgn",
        "fix",
        # Reductions (checked against torch 2.13.0: each returns a tensor with grad_fn).
        "amax",
        "amin",
        "logsumexp",
        "nansum",
        "nanmean",
        # Checked against torch 2.13.0: each keeps its own result for backward (graph.py).
        "exp2",
        "expm1",
        "reciprocal",
        "tan",
    ]
)
# Methods that may return the receiver itself (no copy, no new history).
MAYBE_IDENTITY_METHODS = frozenset(
    "to cpu cuda float double half bfloat16 contiguous type_as type".split()
)
# Of those, the moves and casts: whatever they are given (a device, a dtype, a memory
# format, or a tensor lending only its dtype and device: `t.to(other)`, `t.type_as(other)`),
# their result has the receiver's history and nothing else (checked against torch 2.13.0:
# `a.to(b)` and `a.type_as(b)` are a ToCopyBackward0 whose only input is `a`'s).
RECEIVER_HISTORY_METHODS = MAYBE_IDENTITY_METHODS
SHAPE_METHODS = frozenset({"size", "dim", "numel", "is_contiguous", "data_ptr", "element_size"})
# Functions whose operands must be tensors (a number raises TypeError): what they keep for
# backward is a tensor (checked against torch 2.13.0).
TENSOR_OPERAND_FUNCTIONS = frozenset({"torch.bmm", "torch.mm", "torch.matmul"})
# Methods whose arguments are only sizes, dims, a tensor giving a shape, or integer indices:
# gradients flow to the receiver only (checked against torch 2.13.0's signatures).
RECEIVER_ONLY_METHODS = frozenset(
    "reshape view view_as reshape_as expand expand_as permute transpose squeeze unsqueeze "
    "flatten unflatten repeat narrow select roll flip movedim swapaxes sum mean softmax "
    "log_softmax logsumexp cumsum gather index_select".split()
)
# Methods that, among values with autograd history (tensors and structures of them: tuples,
# lists, dicts, Hugging Face `ModelOutput`s), only a tensor has: calling one on such a value
# shows it is a tensor. Left out: what containers or modules also have (`to`, `float`,
# `cpu`, `copy`, `index`, `count`, `sort`...). Checked against torch 2.13.0 `Tensor`, `tuple`,
# `list`, `dict` and `transformers.utils.ModelOutput`.
TENSOR_ONLY_METHODS = (
    (DIFFERENTIABLE_METHODS - MAYBE_IDENTITY_METHODS)
    | DETACH_METHODS
    | frozenset(CONVERSIONS)
    | SHAPE_METHODS
    | frozenset({"detach_", "requires_grad_", "retain_grad", "backward"})
)
TENSOR_VIEWS = frozenset({"T", "mT", "H", "mH", "real", "imag"})


@dataclass(frozen=True)
class ModuleKind:
    """A `torch.nn` module class: whether it owns parameters and how its output is shaped."""

    has_parameters: bool
    # "tensor", or a nested structure spec: ("tensor", ("tensor", "tensor")) for nn.LSTM.
    output: object
    # False for what may be one of several layers (a list of layers joined: `nn.Linear` or
    # `nn.ReLU`): `has_parameters` is then True when some of them owns parameters, and a
    # call's output has history only when its input has (see `module_calls`).
    parameters_known: bool = True


_TENSOR = "tensor"
# Every torch.nn layer of torch 2.13.0, by whether an instance built with its defaults owns
# parameters (checked by building each one). Containers and wrappers (Sequential,
# ModuleList, DataParallel...) hold modules built elsewhere and are handled apart;
# InstanceNorm* is known from its `affine=` flag (`INSTANCE_NORMS`).
_PARAM_FREE = (
    "ReLU LeakyReLU GELU SiLU ELU Tanh Sigmoid Softmax LogSoftmax Softplus Mish Hardtanh Identity "
    "Dropout Dropout1d Dropout2d Flatten Unflatten MaxPool1d MaxPool2d AvgPool1d AvgPool2d "
    "AdaptiveAvgPool1d AdaptiveAvgPool2d Upsample "
    "MSELoss L1Loss CrossEntropyLoss NLLLoss BCELoss BCEWithLogitsLoss SmoothL1Loss HuberLoss "
    "KLDivLoss CosineEmbeddingLoss MarginRankingLoss TripletMarginLoss CTCLoss PoissonNLLLoss "
    "GaussianNLLLoss HingeEmbeddingLoss SoftMarginLoss MultiLabelSoftMarginLoss "
    "AdaptiveAvgPool3d AdaptiveMaxPool1d AdaptiveMaxPool2d AdaptiveMaxPool3d AlphaDropout "
    "AvgPool3d CELU ChannelShuffle CircularPad1d CircularPad2d CircularPad3d ConstantPad1d "
    "ConstantPad2d ConstantPad3d CosineSimilarity CrossMapLRN2d Dropout3d FeatureAlphaDropout "
    "Fold FractionalMaxPool2d FractionalMaxPool3d GLU Hardshrink Hardsigmoid Hardswish "
    "LPPool1d LPPool2d LPPool3d LocalResponseNorm LogSigmoid MaxPool3d MaxUnpool1d MaxUnpool2d "
    "MaxUnpool3d MultiLabelMarginLoss MultiMarginLoss NLLLoss2d PairwiseDistance PixelShuffle "
    "PixelUnshuffle RReLU ReLU6 ReflectionPad1d ReflectionPad2d ReflectionPad3d "
    "ReplicationPad1d ReplicationPad2d ReplicationPad3d SELU Softmax2d Softmin Softshrink "
    "Softsign Tanhshrink Threshold TripletMarginWithDistanceLoss Unfold UpsamplingBilinear2d "
    "UpsamplingNearest2d ZeroPad1d ZeroPad2d ZeroPad3d"
)
_WITH_PARAMS = (
    "Linear Bilinear Conv1d Conv2d Conv3d ConvTranspose1d ConvTranspose2d Embedding "
    "BatchNorm1d BatchNorm2d LayerNorm GroupNorm RNNCell GRUCell PReLU "
    "TransformerEncoder TransformerDecoder TransformerEncoderLayer TransformerDecoderLayer "
    "ConvTranspose3d BatchNorm3d SyncBatchNorm EmbeddingBag RMSNorm Transformer "
    "LazyLinear LazyConv1d LazyConv2d LazyConv3d LazyConvTranspose1d LazyConvTranspose2d "
    "LazyConvTranspose3d LazyBatchNorm1d LazyBatchNorm2d LazyBatchNorm3d"
)
# Layers whose parameter named `weight` always exists when they own parameters.
WEIGHTED_LAYERS = frozenset(
    "Linear Bilinear Conv1d Conv2d Conv3d ConvTranspose1d ConvTranspose2d ConvTranspose3d "
    "Embedding EmbeddingBag BatchNorm1d BatchNorm2d BatchNorm3d SyncBatchNorm LayerNorm "
    "GroupNorm RMSNorm PReLU".split()
)
# torch.nn layers that hold a `bias` parameter unless built without one: the position of
# the first positional parameter that may remove it (`bias`, `affine`, `elementwise_affine`;
# checked with torch 2.13.0's signatures). LayerNorm's `bias` comes after
# `elementwise_affine`, so its first such parameter stands for both.
BIASED_LAYERS = {
    "Linear": 2,
    "Bilinear": 3,
    **{f"Conv{d}d": 7 for d in (1, 2, 3)},
    **{f"ConvTranspose{d}d": 7 for d in (1, 2, 3)},
    **{f"BatchNorm{d}d": 3 for d in (1, 2, 3)},
    "LayerNorm": 2,
    "GroupNorm": 3,
}
# The keywords that may build such a layer without its bias.
BIAS_KEYWORDS = frozenset({"bias", "affine", "elementwise_affine"})
# Keywords that, given a literal False, leave a layer without parameters.
AFFINE_KEYWORDS = frozenset({"affine", "elementwise_affine"})
# Normalisation layers that own parameters only when built with `affine=True` (default
# False), by the position of `affine` among their positional parameters.
INSTANCE_NORMS = {
    **{f"InstanceNorm{d}d": 3 for d in (1, 2, 3)},
    **{f"LazyInstanceNorm{d}d": 2 for d in (1, 2, 3)},
}
NN_MODULES: dict[str, ModuleKind] = {
    **{name: ModuleKind(False, _TENSOR) for name in _PARAM_FREE.split()},
    **{name: ModuleKind(True, _TENSOR) for name in _WITH_PARAMS.split()},
    "RNN": ModuleKind(True, (_TENSOR, _TENSOR)),
    "GRU": ModuleKind(True, (_TENSOR, _TENSOR)),
    "LSTM": ModuleKind(True, (_TENSOR, (_TENSOR, _TENSOR))),
    "LSTMCell": ModuleKind(True, (_TENSOR, _TENSOR)),
    "MultiheadAttention": ModuleKind(True, (_TENSOR, _TENSOR)),
    "ModuleList": ModuleKind(True, None),
    "ModuleDict": ModuleKind(True, None),
}
# torch.nn layers whose forward reads `self.training` (checked against the sources of torch
# 2.13.0: torch/nn/modules/{dropout,batchnorm,instancenorm,rnn,transformer,activation}.py).
# `model.eval()` changes what these compute; every other layer of `NN_MODULES` computes the
# same in both modes. Containers (Sequential, ModuleList...) depend on what they hold.
MODE_DEPENDENT_LAYERS = frozenset(
    "Dropout Dropout1d Dropout2d Dropout3d AlphaDropout FeatureAlphaDropout "
    "BatchNorm1d BatchNorm2d BatchNorm3d SyncBatchNorm LazyBatchNorm1d LazyBatchNorm2d "
    "LazyBatchNorm3d InstanceNorm1d InstanceNorm2d InstanceNorm3d LazyInstanceNorm1d "
    "LazyInstanceNorm2d LazyInstanceNorm3d RReLU RNN LSTM GRU MultiheadAttention "
    "Transformer TransformerEncoder TransformerDecoder TransformerEncoderLayer "
    "TransformerDecoderLayer".split()
)
MODULE_CONTAINERS = frozenset({"Sequential", "ModuleList", "ModuleDict"})


def uncast(expr: ast.expr) -> ast.expr:
    """`model.to(device).train()` as `model`: an nn.Module's casts and mode switches
    (`MODULE_CASTS_AND_MODES`) return the module itself; any other expression as it is."""
    while (
        isinstance(expr, ast.Call)
        and isinstance(expr.func, ast.Attribute)
        and expr.func.attr in MODULE_CASTS_AND_MODES
    ):
        expr = expr.func.value
    return expr


def mode_free_layer(name: str) -> bool:
    """True when `torch.nn.<name>` computes the same in training and evaluation mode."""
    return (
        name in NN_MODULES and name not in MODE_DEPENDENT_LAYERS and name not in MODULE_CONTAINERS
    )


# nn.Module methods that return the module itself, only moved, cast or switched in mode.
MODULE_CASTS_AND_MODES = frozenset("to cuda cpu float double half train eval".split())
# nn.Module methods that return the module itself (`model.to(device)` is `model`).
MODULE_SELF_METHODS = MODULE_CASTS_AND_MODES | frozenset(
    ["bfloat16", "requires_grad_", "apply", "share_memory"]
)
# nn.Module methods that report on the module (or clear its gradients, register a buffer or
# a hook) and return something other than a tensor with history.
MODULE_INFO_METHODS = frozenset(
    [
        "parameters",
        "named_parameters",
        "buffers",
        "named_buffers",
        "children",
        "named_children",
        "modules",
        "named_modules",
        "state_dict",
        "zero_grad",
        "register_forward_hook",
        "register_buffer",
    ]
)
# torch.nn layers holding the int64 buffer `num_batches_tracked` unless built with
# `track_running_stats=False` (the keyword, or their fifth positional argument).
COUNTING_NORMS = frozenset("BatchNorm1d BatchNorm2d BatchNorm3d SyncBatchNorm".split())
# nn.Module methods listing its buffers (`state_dict` lists its parameters too).
BUFFER_LISTINGS = frozenset(["buffers", "named_buffers", "state_dict"])
SEQUENTIAL = frozenset({"torch.nn.Sequential", "torch.nn.modules.container.Sequential"})
MODULE_BASES = frozenset({"torch.nn.Module", "torch.nn.modules.module.Module"})
PARAMETER = frozenset({"torch.nn.Parameter", "torch.nn.parameter.Parameter"})


def optimizer_class(qualified: str | None) -> bool:
    """`torch.optim.SGD` and the like: a class of `torch.optim` itself (not
    `torch.optim.lr_scheduler.StepLR`)."""
    if qualified is None:
        return False
    parts = qualified.split(".")
    return len(parts) == 3 and parts[:2] == ["torch", "optim"] and parts[2][:1].isupper()


# `nn.Embedding.from_pretrained(vectors, freeze=False)`: the layer class each classmethod
# builds, whose weight (the given vectors) requires grad only with `freeze=False` (the
# default, True, freezes it; torch 2.13.0).
PRETRAINED_LAYERS = {
    "torch.nn.Embedding.from_pretrained": "torch.nn.Embedding",
    "torch.nn.EmbeddingBag.from_pretrained": "torch.nn.EmbeddingBag",
}


def nn_module_kind(qualified: str) -> ModuleKind | None:
    """The `ModuleKind` of `torch.nn.X` (also `torch.nn.modules...X`), if known."""
    if not qualified.startswith("torch.nn."):
        return None
    return NN_MODULES.get(qualified.rsplit(".", 1)[-1])


# Inference tensors (GG106). Under torch.inference_mode() every newly allocated tensor is an
# inference tensor; these functions and methods may instead return a view of their input or
# the input itself, which stays a normal tensor when the input is one (checked with torch).
MAY_ALIAS = (
    frozenset(
        f"torch.{name}"
        for name in "flatten permute reshape select squeeze t transpose unsqueeze narrow dropout "
        "einsum as_tensor from_numpy asarray".split()
    )
    | VARIABLE
)
# Methods that return a view of the receiver (the last three: a view when its memory allows,
# else a copy). With gradient recording off, a view of a tensor that requires grad still
# requires grad (checked against torch 2.13.0).
VIEW_METHODS = frozenset(
    "view view_as t transpose permute unsqueeze squeeze narrow select expand expand_as "
    "reshape reshape_as flatten".split()
)
MAYBE_VIEW_METHODS = frozenset({"reshape", "reshape_as", "flatten"})
# Ops whose result is always contiguous, whatever the strides of their input (checked against
# torch 2.13.0: softmax and log_softmax allocate their output with default strides, also of
# a transposed input; `.contiguous()` returns a contiguous tensor): `reshape`, `reshape_as`
# and `flatten` of such a result are views.
CONTIGUOUS_RESULTS = frozenset(
    {
        "torch.softmax",
        "torch.log_softmax",
        "torch.nn.functional.softmax",
        "torch.nn.functional.log_softmax",
        "torch.special.softmax",
        "torch.special.log_softmax",
    }
)
CONTIGUOUS_RESULT_METHODS = frozenset({"softmax", "log_softmax", "contiguous"})
# The methods that always return a view, sharing the receiver's storage and version counter.
CERTAIN_VIEW_METHODS = VIEW_METHODS - MAYBE_VIEW_METHODS
# Views whose elements may overlap: changing one in place raises at once ("more than one
# element of the written-to tensor refers to a single memory location"; torch 2.13.0).
OVERLAPPING_VIEW_METHODS = frozenset({"expand", "expand_as"})
MAY_ALIAS_METHODS = frozenset(
    "contiguous cpu cuda double expand expand_as flatten float half bfloat16 permute reshape "
    "reshape_as squeeze t to transpose type_as unsqueeze view view_as narrow select".split()
)
# torch.nn modules whose forward saves its first input for backward when their parameters
# require grad: an inference tensor given to them outside inference mode raises.
SAVES_INPUT_MODULES = frozenset(
    "Linear Bilinear Conv1d Conv2d ConvTranspose1d Embedding LayerNorm GroupNorm BatchNorm1d "
    "PReLU RNN GRU LSTM RNNCell GRUCell LSTMCell MultiheadAttention "
    # Checked against torch 2.13.0 (an inference tensor as the input raises; nn.RMSNorm
    # does not):
    "Conv3d ConvTranspose2d ConvTranspose3d BatchNorm2d BatchNorm3d EmbeddingBag "
    "TransformerEncoderLayer LazyLinear LazyConv2d".split()
)
# Binary ops that save each of their two first operands for the other's gradient: when one
# operand requires grad, the other must not be an inference tensor.
_SAVING_FUNCTIONS = "matmul mm bmm mul div dot outer maximum cdist pow"
_SAVING_FUNCTIONAL = "linear mse_loss nll_loss smooth_l1_loss huber_loss conv1d conv2d conv3d"
SAVES_OPERANDS = frozenset(
    [f"torch.{n}" for n in _SAVING_FUNCTIONS.split()]
    + [f"{FUNCTIONAL_PREFIX}{n}" for n in _SAVING_FUNCTIONAL.split()]
)
SAVES_OPERANDS_MODULES = frozenset("MSELoss NLLLoss SmoothL1Loss HuberLoss".split())
# Losses that save their target (second argument) for the gradient of their input (first
# argument), but not the input for a target that requires grad: checked against torch
# 2.13.0 (`F.cross_entropy(logits, inference_labels)` raises, `F.cross_entropy(inference,
# probs_with_grad)` does not; `F.l1_loss` and `nn.L1Loss` save neither).
_SAVING_TARGET = (
    "cross_entropy binary_cross_entropy binary_cross_entropy_with_logits kl_div "
    "soft_margin_loss poisson_nll_loss"
)
SAVES_TARGET = frozenset(f"{FUNCTIONAL_PREFIX}{n}" for n in _SAVING_TARGET.split())
SAVES_TARGET_MODULES = frozenset("CrossEntropyLoss KLDivLoss BCEWithLogitsLoss BCELoss".split())

# The last activation of a tensor (`values.Activation`), for the losses that expect logits
# or probabilities (GG110, GG111). Checked against torch 2.13.0: `torch.softmax`,
# `F.softmax`, `Tensor.softmax` and `nn.Softmax` compute the same probabilities (likewise
# the log_softmax and sigmoid spellings); `nn.Linear` returns an affine map of its input,
# unbounded.
ACTIVATION_FUNCTIONS = {
    "torch.softmax": "softmax",
    "torch.nn.functional.softmax": "softmax",
    "torch.log_softmax": "log_softmax",
    "torch.nn.functional.log_softmax": "log_softmax",
    "torch.sigmoid": "sigmoid",
    "torch.nn.functional.sigmoid": "sigmoid",
}
ACTIVATION_METHODS = {"softmax": "softmax", "log_softmax": "log_softmax", "sigmoid": "sigmoid"}
ACTIVATION_MODULES = {
    "Softmax": "softmax",
    "LogSoftmax": "log_softmax",
    "Sigmoid": "sigmoid",
    "Linear": "logits",
}
# Ops that only move, cast or reshape a tensor: every value stays what it was, so the last
# activation stays too. Everything else (arithmetic, clamp, indexing, dropout...) clears it.
ACTIVATION_KEEPING_METHODS = frozenset(
    "view view_as reshape reshape_as squeeze unsqueeze flatten to float double half bfloat16 "
    "contiguous cpu cuda type_as".split()
)
ACTIVATION_KEEPING_FUNCTIONS = frozenset(
    f"torch.{name}" for name in "reshape squeeze unsqueeze flatten".split()
)
# Losses whose first argument (`input`) must be logits or probabilities, by the name of
# their functional form: the torch.nn module classes and the functions. The modules' forward
# is `forward(input, target)` (torch 2.13.0).
LOSS_MODULES = {
    "CrossEntropyLoss": "cross_entropy",
    "NLLLoss": "nll_loss",
    "BCELoss": "binary_cross_entropy",
    "BCEWithLogitsLoss": "binary_cross_entropy_with_logits",
}
_LOSSES = "cross_entropy nll_loss binary_cross_entropy binary_cross_entropy_with_logits"
LOSS_FUNCTIONS = {f"{FUNCTIONAL_PREFIX}{name}": name for name in _LOSSES.split()}
LOSS_FUNCTIONS["torch.binary_cross_entropy_with_logits"] = "binary_cross_entropy_with_logits"
# Losses taking `(input, target, ...)`: the torch.nn module classes and the functional forms
# (torch 2.13.0). The target is the second positional argument or `target=`; losses of two
# inputs (`margin_ranking_loss(x1, x2, y)`, `triplet_margin_loss`, `cosine_embedding_loss`)
# and `ctc_loss` are not among them.
_TARGET_LOSSES = (
    "l1_loss mse_loss smooth_l1_loss huber_loss cross_entropy nll_loss kl_div "
    "binary_cross_entropy binary_cross_entropy_with_logits poisson_nll_loss gaussian_nll_loss "
    "soft_margin_loss multilabel_soft_margin_loss multilabel_margin_loss multi_margin_loss "
    "hinge_embedding_loss"
)
TARGET_LOSS_FUNCTIONS = frozenset(f"{FUNCTIONAL_PREFIX}{name}" for name in _TARGET_LOSSES.split())
TARGET_LOSS_MODULES = frozenset(
    (
        "L1Loss MSELoss SmoothL1Loss HuberLoss CrossEntropyLoss NLLLoss KLDivLoss BCELoss "
        "BCEWithLogitsLoss PoissonNLLLoss GaussianNLLLoss SoftMarginLoss "
        "MultiLabelSoftMarginLoss MultiLabelMarginLoss MultiMarginLoss HingeEmbeddingLoss"
    ).split()
)

# Parameters an optimizer step changes in place under a graph that saved them (GG205).
# Checked against torch 2.13.0 by running `out = layer(x)`, `out.mean().backward(
# retain_graph=True)`, `SGD(layer.parameters()).step()`, then a second backward through
# `out`: these layers save their weight whatever their input, so the second pass raises
# "one of the variables needed for gradient computation has been modified by an inplace
# operation". (LayerNorm, GroupNorm and BatchNorm do too, but only with their default
# `affine`/`elementwise_affine`, which a bare class name does not tell; LSTMCell, GRUCell,
# RNNCell, Embedding and InstanceNorm do not.)
SAVES_WEIGHT_MODULES = frozenset(
    "Conv1d Conv2d Conv3d ConvTranspose1d ConvTranspose2d ConvTranspose3d RNN GRU LSTM "
    "PReLU".split()
)
# ...and these save their weight only when their input requires grad (nn.Linear keeps its
# weight for the input's gradient alone: on a plain data batch the second pass works).
SAVES_WEIGHT_FOR_INPUT_MODULES = frozenset({"Linear"})
# Layers that run no parameters and pass autograd history through (their output requires
# grad when their input does), for following a tensor through an nn.Sequential.
HISTORY_KEEPING_LAYERS = frozenset(
    "ReLU LeakyReLU GELU SiLU ELU Tanh Sigmoid Softmax LogSoftmax Softplus Mish Hardtanh "
    "Identity Dropout Dropout1d Dropout2d Flatten Unflatten MaxPool1d MaxPool2d AvgPool1d "
    "AvgPool2d AdaptiveAvgPool1d AdaptiveAvgPool2d Upsample ReLU6 SELU CELU".split()
)

# Mixed-precision gradient scaling (GG609). Checked against torch 2.13.0: `torch.GradScaler`
# is `torch.amp.GradScaler`; `torch.cuda.amp.GradScaler` still exists (deprecated, CUDA only).
GRAD_SCALERS = frozenset(
    {
        "torch.GradScaler",
        "torch.amp.GradScaler",
        "torch.amp.grad_scaler.GradScaler",
        "torch.cuda.amp.GradScaler",
        "torch.cuda.amp.grad_scaler.GradScaler",
    }
)
# Functions that clip the `.grad` of the parameters they are given, in place.
GRAD_CLIPPERS = frozenset(
    {
        "torch.nn.utils.clip_grad_norm_",
        "torch.nn.utils.clip_grad_value_",
        "torch.nn.utils.clip_grad.clip_grad_norm_",
        "torch.nn.utils.clip_grad.clip_grad_value_",
        "torch.nn.utils.clip_grads_with_norm_",
    }
)
# Activation checkpointing (GG112): the positions of the arguments passed on to the
# checkpointed function(s), a slice `[first:end]` of the positional arguments. Checked
# against torch 2.13.0: `checkpoint(function, *args, use_reentrant=None, ...)` and
# `checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs)`; both
# warn and take `use_reentrant=True` when it is not passed, and the reentrant variant's
# output requires grad only if an input does. `checkpoint_sequential` checkpoints every
# segment but the last, which it runs plainly.
CHECKPOINT_FUNCTIONS: dict[str, tuple[int, int | None]] = {
    "torch.utils.checkpoint.checkpoint": (1, None),
    "torch.utils.checkpoint.checkpoint_sequential": (2, 3),
}
# Keywords of `checkpoint` that are not passed on to the function (torch 2.13.0).
CHECKPOINT_KEYWORDS = frozenset(
    {
        "use_reentrant",
        "preserve_rng_state",
        "context_fn",
        "determinism_check",
        "debug",
        "early_stop",
    }
)
# nn.Module methods that return a generator (GG610): iterated once, it yields nothing more.
# Checked against torch 2.13.0: each is a generator function on `nn.Module`.
MODULE_GENERATOR_METHODS = frozenset(
    "parameters named_parameters buffers named_buffers children named_children modules "
    "named_modules".split()
)
# torch functions that iterate an iterable of parameters to its end (GG610): the qualified
# name, the position and keyword of that argument, and what an exhausted generator makes
# them do: the error they raise, or None when they silently do nothing. Checked against
# torch 2.13.0: clip_grad_norm_ warns "`parameters` is an empty generator" and returns
# tensor(0.); clip_grad_value_ fails in `_group_tensors_by_device_and_dtype`;
# parameters_to_vector concatenates nothing; vector_to_parameters copies nothing;
# get_total_norm returns tensor(0.) and clip_grads_with_norm_ clips nothing.
ITERATING_FUNCTIONS: dict[str, tuple[int, str, str | None]] = {
    "torch.nn.utils.clip_grad_norm_": (0, "parameters", None),
    "torch.nn.utils.clip_grads_with_norm_": (0, "parameters", None),
    "torch.nn.utils.get_total_norm": (0, "tensors", None),
    "torch.nn.utils.clip_grad.clip_grad_norm_": (0, "parameters", None),
    "torch.nn.utils.clip_grad_value_": (
        0,
        "parameters",
        "Expected !nested_tensorlist[0].empty() to be true, but got false",
    ),
    "torch.nn.utils.clip_grad.clip_grad_value_": (
        0,
        "parameters",
        "Expected !nested_tensorlist[0].empty() to be true, but got false",
    ),
    "torch.nn.utils.parameters_to_vector": (
        0,
        "parameters",
        "torch.cat(): expected a non-empty list of Tensors",
    ),
    "torch.nn.utils.convert_parameters.parameters_to_vector": (
        0,
        "parameters",
        "torch.cat(): expected a non-empty list of Tensors",
    ),
    "torch.nn.utils.vector_to_parameters": (1, "parameters", None),
    "torch.nn.utils.convert_parameters.vector_to_parameters": (1, "parameters", None),
}
# What a torch.optim optimizer built from an exhausted generator raises (torch 2.13.0).
EMPTY_OPTIMIZER_ERROR = "optimizer got an empty parameter list"
# Functions that join the tensors of the sequence they are given into one new tensor whose
# history runs through each of them (checked against torch 2.13.0): `x = torch.cat([x, v])`
# grows `x` by `v` and keeps `v`'s graph, as `x += v` does for a total.
CONCATENATING = frozenset(
    f"torch.{name}"
    for name in "cat concat concatenate vstack hstack row_stack column_stack dstack".split()
)

# Dropout that returns its input object itself (the same tensor: its history, its leafness)
# when not training or when `p == 0` (checked against torch 2.13.0; `dropout3d` and
# `nn.Dropout3d` always compute a new tensor): function -> (keyword naming the training
# flag, its default; None when required). `p` is the second argument everywhere.
DROPOUT_RETURNING_INPUT: dict[str, tuple[str, bool | None]] = {
    f"{FUNCTIONAL_PREFIX}dropout": ("training", True),
    f"{FUNCTIONAL_PREFIX}dropout1d": ("training", True),
    f"{FUNCTIONAL_PREFIX}dropout2d": ("training", True),
    f"{FUNCTIONAL_PREFIX}alpha_dropout": ("training", False),
    f"{FUNCTIONAL_PREFIX}feature_alpha_dropout": ("training", False),
    "torch.dropout": ("train", None),
}
DEFAULT_DROPOUT_P = 0.5
# The layers of those functions: in eval mode, or built with `p=0`, they return their input.
DROPOUT_LAYERS_RETURNING_INPUT = frozenset(
    "Dropout Dropout1d Dropout2d AlphaDropout FeatureAlphaDropout".split()
)


# The hyperparameters a torch.nn layer keeps as attributes (`embed.embedding_dim`), by the
# position of the constructor argument each stores unchanged (None: derived, such as
# MultiheadAttention's `head_dim`). Checked against torch 2.13.0: each is a Python int
# (`p`: a float) built from the argument as given; reading one never gives a tensor.
_RECURRENT = {"input_size": 0, "hidden_size": 1, "num_layers": 2}
_CELL = {"input_size": 0, "hidden_size": 1}
_CONVOLUTION = {"in_channels": 0, "out_channels": 1, "groups": None}
_FEATURES: dict[str, int | None] = {"num_features": 0}
LAYER_ATTRIBUTES: dict[str, dict[str, int | None]] = {
    "Linear": {"in_features": 0, "out_features": 1},
    "Bilinear": {"in1_features": 0, "in2_features": 1, "out_features": 2},
    "Embedding": {"num_embeddings": 0, "embedding_dim": 1},
    "EmbeddingBag": {"num_embeddings": 0, "embedding_dim": 1},
    **{name: dict(_RECURRENT) for name in ("RNN", "LSTM", "GRU")},
    **{name: dict(_CELL) for name in ("RNNCell", "LSTMCell", "GRUCell")},
    **{f"Conv{d}d": dict(_CONVOLUTION) for d in (1, 2, 3)},
    **{f"ConvTranspose{d}d": dict(_CONVOLUTION) for d in (1, 2, 3)},
    **{f"BatchNorm{d}d": dict(_FEATURES) for d in (1, 2, 3)},
    **{f"InstanceNorm{d}d": dict(_FEATURES) for d in (1, 2, 3)},
    "GroupNorm": {"num_groups": 0, "num_channels": 1},
    "MultiheadAttention": {"embed_dim": 0, "num_heads": 1, "head_dim": None},
    **{name: {"p": 0} for name in ("Dropout", "Dropout1d", "Dropout2d", "Dropout3d")},
}
# Those kept as a tuple of ints whatever the constructor was given (`Conv2d(1, 8, 3)`
# keeps `kernel_size == (3, 3)`; `LayerNorm(64)` keeps `normalized_shape == (64,)`).
LAYER_SIZE_ATTRIBUTES: dict[str, frozenset[str]] = {
    **{f"Conv{d}d": frozenset({"kernel_size"}) for d in (1, 2, 3)},
    **{f"ConvTranspose{d}d": frozenset({"kernel_size"}) for d in (1, 2, 3)},
    "LayerNorm": frozenset({"normalized_shape"}),
}


def layer_settings(
    name: str, call: ast.Call, known: dict[ast.AST, object]
) -> dict[str, int | float]:
    """The hyperparameters of `LAYER_ATTRIBUTES` the torch.nn layer `name` built by `call`
    was given as known numbers (`known`: what its argument expressions hold), by attribute:
    `nn.Embedding(100, 32)` keeps `embedding_dim == 32`. Nothing after a `*args`."""
    positions = LAYER_ATTRIBUTES.get(name, {})
    if any(isinstance(a, ast.Starred) for a in call.args):
        return {}
    given: dict[str, ast.expr] = {kw.arg: kw.value for kw in call.keywords if kw.arg}
    for attribute, position in positions.items():
        if position is not None and position < len(call.args):
            given[attribute] = call.args[position]
    found: dict[str, int | float] = {}
    for attribute, expr in given.items():
        value = known.get(expr)
        wanted = float if attribute == "p" else int
        if attribute in positions and isinstance(value, int | float) and type(value) is wanted:
            found[attribute] = value
    return found


# `math` functions, whose result is always a Python number (checked against torch 2.13.0:
# given a one-element tensor, even one that requires grad, they convert it with
# `__float__`/`__index__` and return a float, int or bool; never a tensor). Not
# `math.prod` nor `math.sumprod`, which multiply their items with `*` and may return a
# tensor.
MATH_FUNCTIONS = frozenset(
    f"math.{name}"
    for name in (
        "sqrt cbrt exp exp2 expm1 log log2 log10 log1p pow cos sin tan acos asin atan atan2 "
        "cosh sinh tanh acosh asinh atanh fabs floor ceil trunc erf erfc gamma lgamma degrees "
        "radians isnan isinf isfinite isclose factorial isqrt gcd lcm comb perm fmod copysign "
        "hypot remainder ldexp dist fsum"
    ).split()
)
# `math` constants: Python floats.
MATH_CONSTANTS = frozenset({"math.pi", "math.e", "math.tau", "math.inf", "math.nan"})


# torch.distributions classes, by name, with the module of torch.distributions that defines
# each (`torch.distributions.Normal` and `torch.distributions.normal.Normal` alike). Checked
# against torch 2.13.0, each built from parameters that require grad: `log_prob(x)`,
# `entropy()` and `rsample()` return tensors whose history runs through the parameters
# (and through `x`: `log_prob` is differentiable in the value too), recording nothing under
# no_grad; `sample()` returns a tensor without history, whatever the parameters (it draws
# under no_grad). `Poisson.entropy()` and the `rsample()` of the discrete ones raise
# NotImplementedError: not listed as giving anything.
_DISTRIBUTIONS = {
    "Categorical": "categorical",
    "OneHotCategorical": "one_hot_categorical",
    "Bernoulli": "bernoulli",
    "Binomial": "binomial",
    "Geometric": "geometric",
    "Poisson": "poisson",
    "Normal": "normal",
    "LogNormal": "log_normal",
    "Laplace": "laplace",
    "Cauchy": "cauchy",
    "Exponential": "exponential",
    "Beta": "beta",
    "Gamma": "gamma",
    "Dirichlet": "dirichlet",
    "MultivariateNormal": "multivariate_normal",
    "Independent": "independent",
}
_REPARAMETRISED = frozenset(
    "Normal LogNormal Laplace Cauchy Exponential Beta Gamma Dirichlet MultivariateNormal "
    "Independent".split()
)
_WITHOUT_ENTROPY = frozenset({"Poisson"})
# Those that normalise their parameters when built (`logits - logits.logsumexp(-1)`,
# `probs / probs.sum(-1)`), keeping tensors for backward there: checked against torch
# 2.13.0, a second backward through `log_prob` or `entropy` of one such object built once
# (from a leaf) raises "Trying to backward through the graph a second time", logits or
# probs alike; `Normal` and `Beta` built once backpropagate twice without error.
NORMALISED_WHEN_BUILT = frozenset({"Categorical", "OneHotCategorical"})
DISTRIBUTION_PREFIX = "torch.distributions."
# `sample()` draws without recording history (checked against torch 2.13.0).
DISTRIBUTION_DRAWS = frozenset({"sample"})
# `kl_divergence(p, q)` of two distributions: differentiable in both one's parameters.
KL_DIVERGENCE = frozenset(
    {"torch.distributions.kl_divergence", "torch.distributions.kl.kl_divergence"}
)


def distribution_class(qualified: str | None) -> str | None:
    """The class name when `qualified` names a torch.distributions class listed above."""
    if qualified is None or not qualified.startswith(DISTRIBUTION_PREFIX):
        return None
    path = qualified[len(DISTRIBUTION_PREFIX) :].split(".")
    name = path[-1]
    module = _DISTRIBUTIONS.get(name)
    if module is None or path[:-1] not in ([], [module]):
        return None
    return name


def distribution_method_keeps_history(qualified: str, method: str) -> bool:
    """Whether `dist.method(...)` of the distribution class `qualified` returns a tensor
    whose history runs through the distribution's parameters."""
    name = distribution_class(qualified)
    if name is None:
        return False
    if method == "log_prob":
        return True
    if method == "entropy":
        return name not in _WITHOUT_ENTROPY
    return method == "rsample" and name in _REPARAMETRISED
