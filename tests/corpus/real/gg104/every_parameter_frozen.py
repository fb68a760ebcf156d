"""Fine-tuning where the freeze loop also froze the new head (GG104), and fixes.

Sources (rewritten in our own words, structure kept):
* https://github.com/TingsongYu/PyTorch-Tutorial-2nd/issues/7 - chapter 7 fine-tuning script:
  a loop over `model.parameters()` sets `requires_grad` to freeze the backbone.
* https://github.com/sicara/easy-few-shot-learning/issues/40 - fine-tuning raises "does not
  require grad and does not have a grad_fn" when nothing left trainable.
* PyTorch transfer-learning tutorial (ConvNet as fixed feature extractor): freeze first,
  then replace `model.fc`, whose new parameters require grad.
"""

import torch
from torch import nn


class SmallResNet(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.features = nn.Sequential(nn.Linear(12, 8), nn.ReLU())
        self.fc = nn.Linear(8, 10)

    def forward(self, x):
        return self.fc(self.features(x))


# Source: the head is replaced first, then the freeze loop runs over everything.
def finetune_head_replaced_first(images, labels, steps):
    model = SmallResNet()
    model.fc = nn.Linear(8, 2)
    for param in model.parameters():
        param.requires_grad = False
    optimizer = torch.optim.SGD(model.fc.parameters(), lr=0.01)
    for _ in range(steps):
        loss = nn.functional.cross_entropy(model(images), labels)
        optimizer.zero_grad()
        loss.backward()  # missed: GG104
        optimizer.step()


# Source: the same mistake in a function receiving the model.
def freeze_and_train(model, loader, criterion):
    for param in model.parameters():
        param.requires_grad = False
    optimizer = torch.optim.Adam([p for p in model.parameters()], lr=1e-3)
    for images, labels in loader:
        loss = criterion(model(images), labels)
        optimizer.zero_grad()
        loss.backward()  # missed: GG104
        optimizer.step()


# Negative: the tutorial order - freeze, then a new head that requires grad.
def finetune_fixed_feature_extractor(images, labels, steps):
    model = SmallResNet()
    for param in model.parameters():
        param.requires_grad = False
    model.fc = nn.Linear(8, 2)
    optimizer = torch.optim.SGD(model.fc.parameters(), lr=0.01)
    for _ in range(steps):
        loss = nn.functional.cross_entropy(model(images), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


# Negative: only the backbone is frozen.
def finetune_backbone_frozen(images, labels, steps):
    model = SmallResNet()
    for param in model.features.parameters():
        param.requires_grad = False
    optimizer = torch.optim.SGD(model.fc.parameters(), lr=0.01)
    for _ in range(steps):
        loss = nn.functional.cross_entropy(model(images), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
