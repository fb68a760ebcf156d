"""GG403: .grad read on stored feature maps (non-leaf tensors) after backward(): it is None.

A Taylor-expansion channel-pruning helper records every conv output with forward hooks,
runs backward() on the training loss and then scores channels with
|activation * activation.grad|. Feature maps are intermediate (non-leaf) tensors, so
autograd does not populate their .grad unless retain_grad() was called on them.
Torch: UserWarning "The .grad attribute of a Tensor that is not a leaf Tensor is being
accessed..." and .grad is None, so the score computation fails with
TypeError: unsupported operand type(s) for *: 'Tensor' and 'NoneType'.

Modelled on: https://github.com/pytorch/pytorch/issues/2384

FIXED VERSION: the forward hook calls output.retain_grad() on each feature map.
"""
import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

warnings.simplefilter("ignore", UserWarning)


class SmallVGG(nn.Module):
    def __init__(self, num_classes=5):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2))
        self.classifier = nn.Linear(16 * 4 * 4, num_classes)

    def forward(self, x):
        return self.classifier(self.features(x).flatten(1))


class TaylorRanker:
    """Accumulates a first-order Taylor importance score per conv output channel."""

    def __init__(self, model):
        self.model = model
        self.activations = {}
        self.scores = {}
        self.handles = []
        for name, module in model.named_modules():
            if isinstance(module, nn.Conv2d):
                self.handles.append(module.register_forward_hook(self._make_hook(name)))

    def _make_hook(self, name):
        def hook(module, inputs, output):
            output.retain_grad()  # fixed: GG403
            self.activations[name] = output
        return hook

    def accumulate(self):
        for name, act in self.activations.items():
            grad = act.grad
            score = (act * grad).mean(dim=(0, 2, 3)).abs().detach()
            self.scores[name] = self.scores.get(name, 0) + score

    def lowest(self, k=2):
        return {name: s.argsort()[:k].tolist() for name, s in self.scores.items()}

    def remove(self):
        for h in self.handles:
            h.remove()


def rank_filters(model, loader, criterion):
    ranker = TaylorRanker(model)
    model.train()
    for images, labels in loader:
        model.zero_grad()
        loss = criterion(model(images), labels)
        loss.backward()
        ranker.accumulate()
    ranker.remove()
    return ranker.lowest()


def main():
    torch.manual_seed(0)
    data = TensorDataset(torch.randn(16, 3, 16, 16), torch.randint(0, 5, (16,)))
    loader = DataLoader(data, batch_size=8)
    model = SmallVGG()
    prune_plan = rank_filters(model, loader, nn.CrossEntropyLoss())
    print("filters to prune:", prune_plan)


if __name__ == "__main__":
    main()
    print("FIXED: ok")
