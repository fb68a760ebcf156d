"""A Dice loss given the metric's threshold binarises its input (GG108).

Modelled on https://github.com/qubvel-org/segmentation_models.pytorch/pull/611: the metrics
and the loss share one functional helper that binarises the prediction when it is given a
threshold (`if threshold is not None: pr = (pr > threshold)...`). A threshold makes sense for
the IoU metric; handed to the loss too, it turns the loss into a function of a comparison,
which has no gradient, and backward() raises "element 0 of tensors does not require grad".
Whether the helper binarises is decided by `threshold is not None`: known for a number
given by the caller, and for the default None a caller leaves. The look-alikes leave the
threshold out of the loss, and give it to the metric only.
"""

import torch
from torch import nn


def binarize(probs, threshold=None):
    if threshold is not None:
        return (probs > threshold).float()  # expect: GG108
    return probs


def dice_loss(logits, target, threshold=None, eps=1.0):
    probs = binarize(torch.sigmoid(logits), threshold)
    overlap = (probs * target).sum()
    return 1 - (2 * overlap + eps) / (probs.sum() + target.sum() + eps)


def iou(logits, target, threshold=0.5, eps=1.0):
    probs = binarize(torch.sigmoid(logits), threshold)
    overlap = (probs * target).sum()
    return (overlap + eps) / (probs.sum() + target.sum() - overlap + eps)


def batch():
    torch.manual_seed(0)
    return torch.randn(2, 3, 8, 8), (torch.rand(2, 1, 8, 8) > 0.5).float()


def step_with_threshold(model):
    images, masks = batch()
    loss = dice_loss(model(images), masks, threshold=0.5)
    loss.backward()


def step_without_threshold(model):
    images, masks = batch()
    logits = model(images)
    loss = dice_loss(logits, masks)
    loss.backward()
    with torch.no_grad():
        return iou(logits, masks).item()


if __name__ == "__main__":
    model = nn.Conv2d(3, 1, 3, padding=1)
    assert 0.0 <= step_without_threshold(model) <= 1.0
    assert model.weight.grad is not None
    try:
        step_with_threshold(model)
    except RuntimeError as error:
        assert "does not require grad" in str(error)
    else:
        raise AssertionError("backward through a thresholded loss ran")
    print("ok")
