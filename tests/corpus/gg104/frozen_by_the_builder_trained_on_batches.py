"""A fine-tuning script whose model builder freezes every parameter after adding the new
head, so nothing the training loop computes has history.

`build()` replaces the classifier and then runs the freeze loop over all parameters (the
intent was to freeze the backbone only); `train()` gets the model and batches from a
loader, which never require grad, so `loss.backward()` raises "element 0 of tensors does
not require grad and does not have a grad_fn" (checked with torch 2.13.0). Found by a blind
corpus a helper wrote for the team (fine-tuning a pretrained backbone).
"""

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Linear(6, 8), nn.ReLU())
        self.fc = nn.Linear(8, 4)

    def forward(self, x):
        return self.fc(self.features(x))


def build(num_classes):
    model = Backbone()
    model.fc = nn.Linear(8, num_classes)
    for param in model.parameters():  # expect: GG104
        param.requires_grad = False
    return model


def build_head_after_freeze(num_classes):
    model = Backbone()
    for param in model.parameters():
        param.requires_grad = False
    model.fc = nn.Linear(8, num_classes)
    return model


def train(model, loader, optimizer):
    for inputs, labels in loader:
        loss = nn.functional.cross_entropy(model(inputs), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def train_head(model, loader, optimizer):
    for inputs, labels in loader:
        loss = nn.functional.cross_entropy(model(inputs), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def data():
    return DataLoader(TensorDataset(torch.randn(8, 6), torch.randint(0, 3, (8,))), batch_size=4)


def main():
    frozen = build(3)
    try:
        train(frozen, data(), torch.optim.SGD(frozen.fc.parameters(), lr=0.1))
    except RuntimeError as error:
        assert "does not require grad" in str(error)
    else:
        raise AssertionError("expected backward to fail")
    tuned = build_head_after_freeze(3)
    train_head(tuned, data(), torch.optim.SGD(tuned.fc.parameters(), lr=0.1))


if __name__ == "__main__":
    main()
