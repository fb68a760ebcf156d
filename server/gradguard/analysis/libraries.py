"""What the libraries people train with build: calls that return an `nn.Module` whose own
parameters require grad, and what calling that module returns.

Knowledge as data, like `torch_api`: each entry says which calls it covers and why its output
is certain, from each library's documented API (torchvision's model builders since 0.13,
timm's `create_model` since 0.9, transformers 4.x, where `return_dict` is on by default).
Nothing here is imported or run; the libraries need not be installed. A call that
matches no entry stays unknown (and so silent); an entry matched with arguments that could
change the output's structure (`features_only=`, `return_dict=`, `**kwargs`, a custom
`config`) gives a module whose output is unknown.

Every model these entries build owns parameters that require grad when built (pretrained or
not; a `from_pretrained` model comes back in eval mode but with grad on), so under grad mode
its output has history unless the file freezes something — which the interpreter already
checks for any module (`may_be_frozen`).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping
from dataclasses import dataclass

from gradguard.analysis.node_cache import cached_by_node
from gradguard.analysis.torch_api import ModuleKind

TENSOR = "tensor"


@dataclass(frozen=True)
class ModelOutput:
    """A `transformers` `ModelOutput` (a dict-like object whose fields are also attributes):
    `fields` are the tensors every model of the class returns, computed from its parameters.
    Other fields (`loss` only with labels, `hidden_states` only when asked) are unknown."""

    fields: tuple[str, ...]


# torchvision classification builders (`torchvision.models.resnet18(...)`): each returns a
# model whose forward returns the logits tensor in train and eval mode alike. Left out on
# purpose: `inception_v3` and `googlenet` (a named tuple with auxiliary logits in train
# mode), detection, segmentation and video models (dicts or lists of dicts), `get_model`
# (any of them, by name).
_TORCHVISION_CLASSIFIERS = re.compile(
    r"torchvision\.models(?:\.\w+)?\."
    r"(?:alexnet|convnext_(?:tiny|small|base|large)|densenet(?:121|161|169|201)"
    r"|efficientnet_(?:b[0-7]|v2_[sml])|mnasnet(?:0_5|0_75|1_0|1_3)"
    r"|mobilenet_v2|mobilenet_v3_(?:large|small)|regnet_[xy]_\w+"
    r"|resnet(?:18|34|50|101|152)|resnext(?:50_32x4d|101_32x8d|101_64x4d)"
    r"|wide_resnet(?:50|101)_2|shufflenet_v2_x(?:0_5|1_0|1_5|2_0)|squeezenet1_[01]"
    r"|swin_(?:v2_)?[tsb]|vgg(?:11|13|16|19)(?:_bn)?|vit_(?:b_16|b_32|l_16|l_32|h_14)"
    r"|maxvit_t)"
)
# The classification head each torchvision family's forward ends with, the submodule
# fine-tuning replaces (`model.fc = nn.Linear(...)`): ResNet-like families name it `fc`,
# ViT `heads`, Swin `head`, the others `classifier` (from each family's `forward`).
_TORCHVISION_HEADS = (
    (re.compile(r"(?:resnet|resnext|wide_resnet|regnet_|shufflenet_v2)"), "fc"),
    (re.compile(r"vit_"), "heads"),
    (re.compile(r"swin_"), "head"),
    (
        re.compile(
            r"(?:alexnet|vgg|densenet|mobilenet|efficientnet|mnasnet|squeezenet|convnext|maxvit)"
        ),
        "classifier",
    ),
)


def runs_head(qualified: str, attr: str) -> bool:
    """True when `attr` is the head the torchvision classifier built by `qualified` runs in
    its forward (`fc` of `torchvision.models.resnet18`)."""
    if not _TORCHVISION_CLASSIFIERS.fullmatch(qualified):
        return False
    builder = qualified.rsplit(".", 1)[-1]
    return any(family.match(builder) and attr == head for family, head in _TORCHVISION_HEADS)


# Building any torchvision model by name: a module with parameters, output unknown.
_TORCHVISION_ANY = frozenset({"torchvision.models.get_model"})

# `timm.create_model(name, ...)`: every timm model's forward is forward_features followed by
# forward_head and returns one tensor, unless built with `features_only=True` (a list of
# feature maps).
_TIMM = frozenset({"timm.create_model", "timm.models.create_model"})
_ANY = object()
_TIMM_STRUCTURE_KEYWORDS: Mapping[str, object] = {"features_only": False}

# transformers: `<Auto|Arch>For<Task>.from_pretrained(...)` and `AutoModel.from_pretrained`.
# The fields below are tensors every model of that head returns (with the default
# `return_dict=True`).
_TRANSFORMERS_HEADS: dict[str, tuple[str, ...]] = {
    "SequenceClassification": ("logits",),
    "CausalLM": ("logits",),
    "MaskedLM": ("logits",),
    "TokenClassification": ("logits",),
    "Seq2SeqLM": ("logits",),
    "ImageClassification": ("logits",),
    "MultipleChoice": ("logits",),
    "AudioClassification": ("logits",),
    "QuestionAnswering": ("start_logits", "end_logits"),
}
_TRANSFORMERS_LOADER = re.compile(r"transformers\.(?:\w+\.)*(\w+?)(?:For(\w+))?\.from_pretrained")
# Keywords that may change what the model returns or which parameters require grad: a
# custom config (`return_dict` may be off), tuples instead of ModelOutput, remote code,
# quantized weights.
_TRANSFORMERS_STRUCTURE_KEYWORDS: Mapping[str, object] = {
    "config": _ANY,
    "return_dict": True,
    "torchscript": False,
    "trust_remote_code": False,
    "load_in_8bit": False,
    "load_in_4bit": False,
    "quantization_config": _ANY,
}


@dataclass(frozen=True)
class LibraryModel:
    """A model a library call builds: its qualified builder and what its forward returns."""

    builder: str
    kind: ModuleKind


def _sets_structure(call: ast.Call, keywords: Mapping[str, object]) -> bool:
    """True when the call passes `**kwargs`, or one of `keywords` with another value than
    the literal the mapping gives as harmless (`_ANY`: every value may change the output)."""
    for keyword in call.keywords:
        if keyword.arg is None:
            return True
        if keyword.arg not in keywords:
            continue
        harmless = keywords[keyword.arg]
        value = keyword.value
        if harmless is _ANY or not isinstance(value, ast.Constant) or value.value is not harmless:
            return True
    return False


def _transformers_model(qualified: str, call: ast.Call) -> LibraryModel | None:
    """The model a `transformers` `from_pretrained` loader builds; None for other loaders
    (tokenizers, configs, processors) and other calls."""
    match = _TRANSFORMERS_LOADER.fullmatch(qualified)
    if match is None:
        return None
    stem, head = match.group(1), match.group(2)
    if head is None and not stem.endswith("Model"):
        return None
    # A bare `AutoModel`/`BertModel` returns what its architecture returns (CLIP's has no
    # `last_hidden_state`): a model, output unknown.
    output: ModelOutput | None = None
    fields = _TRANSFORMERS_HEADS.get(head) if head is not None else None
    if fields is not None and not _sets_structure(call, _TRANSFORMERS_STRUCTURE_KEYWORDS):
        output = ModelOutput(fields)
    return LibraryModel(qualified, ModuleKind(True, output))


def library_model(qualified: str, call: ast.Call) -> LibraryModel | None:
    """The model `call` (resolved to `qualified`) builds, when a library table knows it."""
    if _TORCHVISION_CLASSIFIERS.fullmatch(qualified):
        return LibraryModel(qualified, ModuleKind(True, TENSOR))
    if qualified in _TORCHVISION_ANY:
        return LibraryModel(qualified, ModuleKind(True, None))
    if qualified in _TIMM:
        output = None if _sets_structure(call, _TIMM_STRUCTURE_KEYWORDS) else TENSOR
        return LibraryModel(qualified, ModuleKind(True, output))
    return _transformers_model(qualified, call)


# PyTorch Lightning's `LightningModule` is an `nn.Module` whose hooks the Trainer calls.
LIGHTNING_MODULES = frozenset(
    f"{package}.{path}LightningModule"
    for package in ("pytorch_lightning", "lightning.pytorch", "lightning")
    for path in ("", "core.", "core.module.")
)
# Hooks the Trainer runs inside its evaluation loops, under `torch.no_grad()` or
# `torch.inference_mode()` (Trainer(inference_mode=...) decides which): what they compute
# has no history there, whatever a plain call of the method would give.
_EVALUATION_HOOKS = re.compile(r"(?:on_)?(?:validation|test|predict)_\w+")


def evaluation_hook(name: str) -> bool:
    """True for a LightningModule method the Trainer runs with gradient recording off."""
    return _EVALUATION_HOOKS.fullmatch(name) is not None


@cached_by_node
def backpropagates_training_step(lightning_class: ast.ClassDef) -> bool:
    """True when the Trainer runs backward on what the class's `training_step` returns:
    automatic optimization, unless the class turns it off (`self.automatic_optimization =
    False`, or an `automatic_optimization` property of its own)."""
    for node in ast.walk(lightning_class):
        if isinstance(node, ast.Attribute) and node.attr == "automatic_optimization":
            if isinstance(node.ctx, ast.Store):
                return False
        elif isinstance(node, ast.FunctionDef) and node.name == "automatic_optimization":
            return False
    return True


# matplotlib.pyplot functions that turn every positional data argument into a NumPy array
# (through `Tensor.__array__`, which calls `.numpy()`): a tensor that requires grad raises
# "Can't call numpy() on Tensor that requires grad" (checked with matplotlib 3.11 and torch
# 2.13.0 for plot, scatter, bar, hist and imshow, on tensors and on lists of 0-d tensors).
PLOTTING_METHODS = frozenset(
    (
        "plot scatter bar barh hist imshow matshow step stem fill_between errorbar semilogx "
        "semilogy loglog boxplot violinplot stackplot hist2d hexbin pcolormesh contour contourf"
    ).split()
)
PLOTTING_FUNCTIONS = frozenset(f"matplotlib.pyplot.{name}" for name in PLOTTING_METHODS)
# The same methods of an Axes: `fig, ax = plt.subplots()` gives the Axes second (an array of
# them for a grid), `plt.gca()`, `plt.subplot(...)` and `plt.axes()` give one; an Axes'
# `twinx()`/`twiny()` give another.
SUBPLOTS = "matplotlib.pyplot.subplots"
AXES_FUNCTIONS = frozenset(
    {"matplotlib.pyplot.gca", "matplotlib.pyplot.subplot", "matplotlib.pyplot.axes"}
)
AXES_METHODS = frozenset({"twinx", "twiny"})


# scikit-learn metrics: each turns its inputs into NumPy arrays (`check_array` /
# `np.asarray`, through `Tensor.__array__`), so a tensor that requires grad, or a list of
# them, raises "Can't call numpy() on Tensor that requires grad" (checked with
# scikit-learn 1.9.1 and torch 2.13.0, positional and keyword inputs alike).
SKLEARN_METRICS = frozenset(
    f"sklearn.metrics.{name}"
    for name in (
        "accuracy_score balanced_accuracy_score f1_score precision_score recall_score "
        "roc_auc_score average_precision_score log_loss confusion_matrix mean_squared_error "
        "mean_absolute_error r2_score"
    ).split()
)
# Their keyword names for the arrays they convert.
METRIC_INPUTS = frozenset({"y_true", "y_pred", "y_score", "y_prob"})


# Objects whose `.backward(loss, **kwargs)` runs `loss.backward(**kwargs)` (after scaling it
# for mixed precision or gradient accumulation, which changes no autograd fact):
# accelerate's `Accelerator` and Lightning's `Fabric`.
BACKWARD_OWNERS = frozenset(
    {
        "accelerate.Accelerator",
        "accelerate.accelerator.Accelerator",
        "lightning.Fabric",
        "lightning.fabric.Fabric",
        "lightning_fabric.Fabric",
    }
)


# peft wraps a model with adapters whose parameters require grad, freezing the base model's:
# the wrapped model returns what the base model returns, and its output requires grad.
ADAPTER_WRAPPERS = frozenset({"peft.get_peft_model", "peft.mapping.get_peft_model"})

# Calls that hand out the items of the iterable they are given first, in order (or the first
# of them): `itertools.islice(loader, n)` (its `start`, `stop` and `step` only skip items),
# and tqdm's progress bars over an iterable (`tqdm(loader, desc=...)`), which yield what
# they wrap. Their items are those of the iterable (a loader's batches stay batches).
ITEM_WRAPPERS = frozenset(
    {
        "itertools.islice",
        "tqdm.tqdm",
        "tqdm.auto.tqdm",
        "tqdm.notebook.tqdm",
        "tqdm.std.tqdm",
        "tqdm.rich.tqdm",
    }
)
