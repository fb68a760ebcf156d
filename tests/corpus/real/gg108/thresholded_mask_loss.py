"""A segmentation helper thresholds the sigmoid output (`probs > 0.5`) into a binary mask and
computes an IoU loss from the masks; the comparison has no gradient, so the loss the trainer
backpropagates raises "element 0 of tensors does not require grad and does not have a
grad_fn". The fix computes a soft IoU from the probabilities.

Sources (rewritten in our own words, structure kept):
* https://forums.fast.ai/t/why-does-the-nll-has-grad-fn-while-accuracy-doesnt/50891 - a
  metric built from comparisons has no grad_fn.
* https://ai.stackexchange.com/questions/41264/how-to-do-backpropagation-with-argmax
"""

import torch
from torch import nn


def iou_loss(logits, target):
    mask = (torch.sigmoid(logits) > 0.5).float()  # expect: GG108
    inter = (mask * target).sum()
    union = mask.sum() + target.sum() - inter
    return 1 - inter / (union + 1e-6)


def soft_iou_loss(logits, target):
    probs = torch.sigmoid(logits)
    inter = (probs * target).sum()
    union = probs.sum() + target.sum() - inter
    return 1 - inter / (union + 1e-6)


class Trainer:
    def __init__(self):
        self.model = nn.Conv2d(1, 1, 3, padding=1)
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=1e-3)

    def step(self, image, target):
        loss = iou_loss(self.model(image), target)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()

    def step_fixed(self, image, target):
        loss = soft_iou_loss(self.model(image), target)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()


trainer = Trainer()
image, target = torch.randn(2, 1, 8, 8), (torch.rand(2, 1, 8, 8) > 0.5).float()
try:
    trainer.step(image, target)
    raise AssertionError("expected an error")
except RuntimeError as error:
    assert "does not require grad" in str(error)
trainer.step_fixed(image, target)
conv = nn.Conv2d(1, 1, 3, padding=1)
hard = (torch.sigmoid(conv(image)) > 0.5).float()  # expect: GG108
loss = (hard - target).abs().mean()
try:
    loss.backward()
    raise AssertionError("expected an error")
except RuntimeError as error:
    assert "does not require grad" in str(error)
