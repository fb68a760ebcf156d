"""The library table: which calls build a model, and what calling it returns."""

from __future__ import annotations

import ast

import pytest

from gradguard.analysis import libraries
from gradguard.analysis.libraries import TENSOR, ModelOutput, library_model


def _call(source: str) -> ast.Call:
    node = ast.parse(source, mode="eval").body
    assert isinstance(node, ast.Call)
    return node


@pytest.mark.parametrize(
    ("qualified", "source", "output"),
    [
        ("torchvision.models.resnet18", "f(num_classes=10)", TENSOR),
        ("torchvision.models.resnet.resnet50", "f(weights=None)", TENSOR),
        ("torchvision.models.vit_b_16", "f()", TENSOR),
        ("torchvision.models.efficientnet_v2_s", "f(**kw)", TENSOR),
        ("torchvision.models.get_model", "f('resnet18')", None),
        ("timm.create_model", "f('resnet18', pretrained=True)", TENSOR),
        ("timm.create_model", "f('resnet18', features_only=False)", TENSOR),
        ("timm.create_model", "f('resnet18', features_only=True)", None),
        ("timm.create_model", "f('resnet18', **cfg)", None),
        (
            "transformers.AutoModelForSequenceClassification.from_pretrained",
            "f('bert', num_labels=2)",
            ModelOutput(("logits",)),
        ),
        (
            "transformers.BertForQuestionAnswering.from_pretrained",
            "f('bert')",
            ModelOutput(("start_logits", "end_logits")),
        ),
        ("transformers.AutoModelForCausalLM.from_pretrained", "f('gpt2', config=c)", None),
        ("transformers.AutoModelForCausalLM.from_pretrained", "f('gpt2', return_dict=False)", None),
        ("transformers.AutoModel.from_pretrained", "f('bert')", None),
        ("transformers.GPT2Model.from_pretrained", "f('gpt2')", None),
    ],
)
def test_known_models(qualified: str, source: str, output: object) -> None:
    model = library_model(qualified, _call(source))
    assert model is not None
    assert model.kind.has_parameters
    assert model.kind.output == output


@pytest.mark.parametrize(
    "qualified",
    [
        "torchvision.models.inception_v3",  # auxiliary logits in train mode
        "torchvision.models.googlenet",
        "torchvision.models.detection.fasterrcnn_resnet50_fpn",  # a dict of losses
        "torchvision.models.segmentation.deeplabv3_resnet50",
        "torchvision.transforms.ToTensor",
        "transformers.AutoTokenizer.from_pretrained",
        "transformers.AutoConfig.from_pretrained",
        "timm.list_models",
    ],
)
def test_other_calls_are_not_models(qualified: str) -> None:
    assert library_model(qualified, _call("f()")) is None


def test_the_lightning_backward_is_named_alike_in_analysis_and_messages() -> None:
    """core/messages cannot import the analysis; the two spellings must not drift."""
    from gradguard.analysis.model import LIGHTNING_BACKWARD
    from gradguard.core import messages

    assert messages.LIGHTNING_BACKWARD == LIGHTNING_BACKWARD
    assert "Lightning" in messages.describe_backward("loss", LIGHTNING_BACKWARD)


@pytest.mark.parametrize(
    ("qualified", "attr", "runs"),
    [
        ("torchvision.models.resnet18", "fc", True),
        ("torchvision.models.resnext50_32x4d", "fc", True),
        ("torchvision.models.regnet_y_400mf", "fc", True),
        ("torchvision.models.vgg16_bn", "classifier", True),
        ("torchvision.models.efficientnet_b0", "classifier", True),
        ("torchvision.models.vit_b_16", "heads", True),
        ("torchvision.models.swin_t", "head", True),
        ("torchvision.models.resnet18", "classifier", False),  # another family's name
        ("torchvision.models.resnet18", "avgpool", False),  # not the head
        ("torchvision.models.inception_v3", "fc", False),  # not a known classifier
        ("timm.create_model", "fc", False),  # heads vary by architecture
    ],
)
def test_the_head_a_torchvision_classifier_runs(qualified: str, attr: str, runs: bool) -> None:
    assert libraries.runs_head(qualified, attr) is runs
