"""A subclass trained through a `forward` it inherits, which runs under no_grad (GG101).

Modelled on https://github.com/sicara/easy-few-shot-learning/issues/55: a few-shot
classifier written for inference computes its features in a method decorated with
`@torch.no_grad()`, and a subclass that only changes `__init__` inherits that `forward`.
Training the subclass "classically" then fails at backward() with "element 0 of tensors
does not require grad". The subclass's `forward` is its base class's: a call of an instance
runs the method the class inherits. The look-alike subclass overrides `forward` with one
that keeps the graph.
"""

import torch
import torch.nn.functional as F
from torch import nn


class Classifier(nn.Module):
    def __init__(self, classes=3):
        super().__init__()
        self.backbone = nn.Linear(6, 4)
        self.head = nn.Linear(4, classes)

    @torch.no_grad()  # expect: GG101
    def forward(self, x):
        return self.head(torch.relu(self.backbone(x)))


class ClassicalClassifier(Classifier):
    def __init__(self):
        super().__init__(classes=3)


class TrainableClassifier(Classifier):
    def forward(self, x):
        return self.head(torch.relu(self.backbone(x)))


def classical_training(x, y):
    model = ClassicalClassifier()
    loss = F.cross_entropy(model(x), y)
    loss.backward()


def trainable(x, y):
    model = TrainableClassifier()
    loss = F.cross_entropy(model(x), y)
    loss.backward()


if __name__ == "__main__":
    x, y = torch.randn(8, 6), torch.randint(0, 3, (8,))
    trainable(x, y)
    try:
        classical_training(x, y)
    except RuntimeError as error:
        assert "does not require grad" in str(error)
    else:
        raise AssertionError("backward through a no_grad forward ran")
    print("ok")
