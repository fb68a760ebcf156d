"""An `nn.Sequential` whose first layer works in place changes the tensor it is given.

Modelled on pytorch/pytorch#727: an in-place dropout applied to the result of an in-place
ReLU breaks the backward, because ReLU keeps its result for its gradient and the dropout
overwrites it ("one of the variables needed for gradient computation has been modified by
an inplace operation"). Here the in-place layer hides at the head of a container: a
classifier head `nn.Sequential(nn.Dropout(p, inplace=True), nn.Linear(...))` applied to a
tanh-pooled feature (tanh keeps its result), and a pre-activation block
`nn.Sequential(nn.ReLU(inplace=True), nn.Linear(...))` applied to a sigmoid's result.

Look-alikes that run: a head whose first layer works out of place (its in-place ReLU only
changes the Linear's fresh output), an in-place-first block given a Linear's output (the
Linear keeps its input, not its result), and a ResNet basic block (in-place ReLU after
BatchNorm, `out += identity` on the BatchNorm's output).
"""

import torch
from torch import nn


class PooledClassifier(nn.Module):
    def __init__(self, dim: int, classes: int) -> None:
        super().__init__()
        self.pool = nn.Linear(dim, dim)
        self.head = nn.Sequential(nn.Dropout(0.1, inplace=True), nn.Linear(dim, classes))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        pooled = torch.tanh(self.pool(x))
        logits = self.head(pooled)  # expect: GG302
        return logits + pooled.mean()


class GatedPreActivation(nn.Module):
    def __init__(self, dim: int) -> None:
        super().__init__()
        self.fc = nn.Linear(dim, dim)
        self.block = nn.Sequential(nn.ReLU(inplace=True), nn.Linear(dim, dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        gate = torch.sigmoid(self.fc(x))
        return self.block(gate) * 0.5  # expect: GG302


class SafeHeads(nn.Module):
    def __init__(self, dim: int, classes: int) -> None:
        super().__init__()
        self.pool = nn.Linear(dim, dim)
        self.head = nn.Sequential(nn.Linear(dim, dim), nn.ReLU(inplace=True))
        self.block = nn.Sequential(nn.ReLU(inplace=True), nn.Linear(dim, classes))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        pooled = torch.tanh(self.pool(x))
        hidden = self.head(pooled)
        return self.block(self.pool(hidden)) + pooled.mean()


class BasicBlock(nn.Module):
    def __init__(self, channels: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        out += identity
        return self.relu(out)


def train_pooled(batches: list[torch.Tensor]) -> None:
    model = PooledClassifier(8, 3)
    for x in batches:
        model(x).sum().backward()


def train_gated(batches: list[torch.Tensor]) -> None:
    model = GatedPreActivation(8)
    for x in batches:
        model(x).sum().backward()


def train_safe(batches: list[torch.Tensor], images: list[torch.Tensor]) -> None:
    heads = SafeHeads(8, 3)
    block = BasicBlock(4)
    for x, image in zip(batches, images):
        heads(x).sum().backward()
        block(image).sum().backward()


if __name__ == "__main__":
    batches = [torch.randn(4, 8)]
    for run in (train_pooled, train_gated):
        try:
            run(batches)
        except RuntimeError as error:
            assert "modified by an inplace operation" in str(error), error
        else:
            raise AssertionError("expected the in-place error")
    train_safe(batches, [torch.randn(2, 4, 6, 6)])
