"""A hand-written soft Dice loss for segmentation that ends with `return torch.tensor(...)`
around the score it computed from the network's probabilities: the loss the training loop
backpropagates is a new leaf without history, so `loss.backward()` raises "element 0 of
tensors does not require grad and does not have a grad_fn". The fix returns the tensor
itself.

Source (rewritten in our own words, structure kept):
* https://discuss.pytorch.org/t/gradient-is-lost-when-use-torch-tensor-t1-t2/23261 - values
  with history gathered with `torch.tensor(...)` lose their gradient.
"""

import torch
from torch import nn


def dice_loss(logits, mask, eps=1.0):
    probs = torch.sigmoid(logits)
    inter = (probs * mask).sum()
    union = probs.sum() + mask.sum()
    score = (2 * inter + eps) / (union + eps)
    return torch.tensor(1 - score)  # expect: GG105


def dice_loss_fixed(logits, mask, eps=1.0):
    probs = torch.sigmoid(logits)
    inter = (probs * mask).sum()
    union = probs.sum() + mask.sum()
    score = (2 * inter + eps) / (union + eps)
    return 1 - score


class SegNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Conv2d(1, 4, 3, padding=1)
        self.out = nn.Conv2d(4, 1, 1)

    def forward(self, x):
        return self.out(torch.relu(self.body(x)))


def train(model, optimizer, loader):
    for images, masks in loader:
        optimizer.zero_grad()
        loss = dice_loss(model(images), masks)
        loss.backward()
        optimizer.step()


def train_fixed(model, optimizer, loader):
    for images, masks in loader:
        optimizer.zero_grad()
        loss = dice_loss_fixed(model(images), masks)
        loss.backward()
        optimizer.step()


net = SegNet()
opt = torch.optim.Adam(net.parameters(), lr=1e-3)
batches = [(torch.randn(2, 1, 8, 8), (torch.rand(2, 1, 8, 8) > 0.5).float())]
try:
    train(net, opt, batches)
    raise AssertionError("expected an error")
except RuntimeError as error:
    assert "does not require grad" in str(error)
train_fixed(net, opt, batches)
seg = SegNet()
seg_opt = torch.optim.SGD(seg.parameters(), lr=0.1)
try:
    seg_opt.zero_grad()
    seg_loss = dice_loss(seg(batches[0][0]), batches[0][1])
    seg_loss.backward()
    seg_opt.step()
except RuntimeError as error:
    assert "does not require grad" in str(error)
