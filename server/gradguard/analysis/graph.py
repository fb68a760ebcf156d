"""Which operations save tensors for backward, and the graph nodes they create.

Autograd keeps, on each node of the graph, the tensors its backward formula needs
(`sigmoid` keeps its output, `mul` and `nn.Linear` keep their inputs). `backward()` frees
them unless `retain_graph=True`, so a second backward through that node raises `Trying to
backward through the graph a second time`; and an in-place change of a kept tensor before
the backward raises `one of the variables needed for gradient computation has been modified
by an inplace operation`. The dataflow gives every value the set of such nodes its history
certainly passes through (`Value.graph`) and every tensor the nodes that keep it
(`Value.saved_in`); these lists say which operations create such nodes.

Only operations checked against torch 2.13.0 are listed; `add`, `sum`, `mean`, views and
indexing keep nothing, and anything unlisted is treated as keeping nothing, so silence is
the default.
"""

from __future__ import annotations

import ast
import enum
from dataclasses import dataclass

from gradguard.analysis.node_cache import cached_by_node


class Saves(enum.Enum):
    """What an operation keeps for its backward."""

    OUTPUT = "output"  # its own result (sigmoid, tanh, exp, softmax, relu...)
    INPUTS = "inputs"  # each input, when another input requires grad (mul, matmul, Linear...)
    INPUT = "input"  # its (first) input, whenever it records history (log, sin, gelu, x ** 2)
    OTHER = "other"  # something the program cannot touch (a mask, indices, a copy)


@dataclass(frozen=True, eq=False)
class SavedNode:
    """One evaluation of an operation that saved tensors for backward.

    Identity matters: the same expression evaluated again (in the next loop iteration)
    creates another node. `node` is the expression (or the call of a function of the file
    whose result certainly went through such operations).
    """

    node: ast.AST
    saves: Saves
    # Inside a function: the parameters' stand-ins (see `graph_inputs`) one of which must
    # require grad for the operation to save anything (its inputs' grad was not known
    # there); empty when the node certainly saved.
    given: frozenset[SavedNode] = frozenset()
    # The history a parameter's argument certainly brought from every call (`node` is the
    # parameter, see `brought_history`): a graph built before the call, not a stand-in.
    brought: bool = False


@cached_by_node
def brought_history(param: ast.arg) -> SavedNode:
    """The one node standing, inside a function, for the graph every call's argument for
    `param` certainly went through before the call. One object per parameter for a check and
    the incremental checks after it (`node_cache.tree_scope`), so the callers' facts stay
    equal across passes and edits of the callers. (Not kept on the node itself: a node
    holding it, which holds the node, would make the tree cyclic garbage.)"""
    return SavedNode(param, Saves.OTHER, brought=True)


# Key of the environment entry holding the graph state of a program point (see
# `interpreter.FunctionInterpreter`); not an identifier, so no program name collides with it.
GRAPH_STATE_KEY = "%graph"

# Checked against torch 2.13.0: an in-place change of the result (not of the input) makes
# the backward fail for every name in _OUTPUT_SAVERS; of the input (not of the result), for
# the layers listed with INPUTS below (norm layers keep their input for the weight's
# gradient even when the input itself does not require grad; `nn.RMSNorm` does not).
_OUTPUT_SAVERS = frozenset(
    "exp sigmoid tanh softmax log_softmax relu sqrt rsqrt exp2 expm1 reciprocal tan".split()
)
_INPUT_SAVERS = frozenset("mul div matmul mm bmm mv dot outer einsum".split())
# Checked against torch 2.13.0: an in-place change of the input (not of the result) makes
# the backward fail for every name in _INPUT_KEEPERS (functions, tensor methods, layers).
_INPUT_KEEPERS = frozenset(
    "pow log log1p log2 log10 sin cos cosh sinh abs square erf lgamma atan".split()
)
_OTHER_SAVERS = frozenset(
    "clamp clip norm prod std var cdist "
    "logsumexp gather index_select masked_fill where cumprod addmm baddbmm "
    "max min maximum minimum".split()
)
_FUNCTIONAL = {
    **dict.fromkeys("relu sigmoid tanh softmax log_softmax softmin".split(), Saves.OUTPUT),
    **dict.fromkeys("linear bilinear conv1d conv2d conv3d".split(), Saves.INPUTS),
    **dict.fromkeys(
        "gelu silu elu leaky_relu softplus mish selu celu hardtanh relu6 hardswish "
        "hardsigmoid logsigmoid".split(),
        Saves.INPUT,
    ),
    **dict.fromkeys(
        "layer_norm batch_norm group_norm "
        "embedding mse_loss l1_loss smooth_l1_loss huber_loss cross_entropy nll_loss "
        "binary_cross_entropy binary_cross_entropy_with_logits kl_div normalize "
        "cosine_similarity".split(),
        Saves.OTHER,
    ),
}
_MODULES = {
    **dict.fromkeys("ReLU Sigmoid Tanh Softmax LogSoftmax Softmin Softmax2d".split(), Saves.OUTPUT),
    **dict.fromkeys(
        "Linear Bilinear Conv1d Conv2d Conv3d ConvTranspose1d ConvTranspose2d ConvTranspose3d "
        "BatchNorm1d BatchNorm2d BatchNorm3d LayerNorm GroupNorm".split(),
        Saves.INPUTS,
    ),
    **dict.fromkeys(
        "GELU SiLU ELU LeakyReLU Softplus Mish Hardtanh ReLU6 Hardswish SELU CELU".split(),
        Saves.INPUT,
    ),
    **dict.fromkeys(
        "MSELoss L1Loss "
        "SmoothL1Loss HuberLoss CrossEntropyLoss NLLLoss BCELoss BCEWithLogitsLoss KLDivLoss "
        "Embedding RNN GRU LSTM RNNCell GRUCell LSTMCell PReLU MultiheadAttention".split(),
        Saves.OTHER,
    ),
}
_BINARY = {
    ast.Mult: Saves.INPUTS,
    ast.Div: Saves.INPUTS,
    ast.MatMult: Saves.INPUTS,
    ast.Pow: Saves.INPUT,
}


def _by_name(name: str) -> Saves | None:
    if name in _OUTPUT_SAVERS:
        return Saves.OUTPUT
    if name in _INPUT_SAVERS:
        return Saves.INPUTS
    if name in _INPUT_KEEPERS:
        return Saves.INPUT
    if name in _OTHER_SAVERS:
        return Saves.OTHER
    return None


# `torch.special` spellings of the functions above (checked against torch 2.13.0).
_SPECIAL = {"expit": Saves.OUTPUT, "exp2": Saves.OUTPUT, "expm1": Saves.OUTPUT}


def function_saves(qualified: str) -> Saves | None:
    """What `torch.X(...)`, `torch.nn.functional.X(...)` or `torch.special.X(...)` keeps for
    backward, if known."""
    if qualified.startswith("torch.special."):
        return _SPECIAL.get(qualified[len("torch.special.") :])
    if qualified.startswith("torch.nn.functional."):
        return _FUNCTIONAL.get(qualified[len("torch.nn.functional.") :])
    if qualified.count(".") == 1:
        return _by_name(qualified[len("torch.") :])
    return None


def method_saves(name: str) -> Saves | None:
    """What the tensor method `x.name(...)` keeps for backward, if known."""
    return _by_name(name)


def module_saves(qualified: str, *, inplace: bool = False) -> Saves | None:
    """What calling a `torch.nn.X` module keeps for backward, if known (`inplace`: it was
    built with `inplace=True`, which makes some activations keep their result instead)."""
    if not qualified.startswith("torch.nn."):
        return None
    name = qualified.rsplit(".", 1)[-1]
    if inplace and name in _OUTPUT_SAVERS_WHEN_INPLACE:
        return Saves.OUTPUT
    return _MODULES.get(name)


# Activations whose in-place form keeps its own result for backward (the out-of-place form
# keeps its input). Checked against torch 2.13.0: `nn.Sequential(nn.Linear(3, 3), layer,
# nn.Dropout(0.5, inplace=True))` raises in backward for each of these.
_OUTPUT_SAVERS_WHEN_INPLACE = frozenset("LeakyReLU ELU CELU SELU RReLU".split())
# torch.nn layers built with `inplace=True` that change their input in place whatever the
# module's mode, and those that do so in training mode only (in evaluation mode dropout
# returns its input untouched). Checked against torch 2.13.0.
INPLACE_LAYERS = frozenset(
    "ReLU LeakyReLU ELU CELU SELU RReLU Threshold Hardtanh ReLU6 SiLU Mish Hardswish "
    "Hardsigmoid".split()
)
INPLACE_IN_TRAINING = frozenset(
    "Dropout Dropout1d Dropout2d Dropout3d AlphaDropout FeatureAlphaDropout".split()
)


def changes_input_in_place(qualified: str | None, *, training: bool) -> bool:
    """Whether a `torch.nn` layer built with `inplace=True` changes its input in place when
    called; `training`: the module is certainly in training mode."""
    if qualified is None or not qualified.startswith("torch.nn."):
        return False
    name = qualified.rsplit(".", 1)[-1]
    return name in INPLACE_LAYERS or (training and name in INPLACE_IN_TRAINING)


def binary_saves(op: ast.operator) -> Saves | None:
    """What `a * b`, `a / b`, `a @ b`, `a ** b` keep for backward (`+` and `-` keep nothing;
    `a ** b` keeps `a`)."""
    return _BINARY.get(type(op))
