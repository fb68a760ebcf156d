"""Learned weights passed through an activation that works in place.

Modelled on pytorch/pytorch#42525: a feature-fusion block keeps per-input weights as an
`nn.Parameter` and rectifies them with an `nn.ReLU` layer before normalising; the layer
works in place, so the forward calls `torch.relu_` on the parameter itself and raises "a
leaf Variable that requires grad is being used in an in-place operation". The functional
spellings (`F.relu(w, inplace=True)`, `torch.relu_(w)`) do the same as `w.relu_()`.

The look-alikes are the usual fixes and the safe uses of in-place activations: a copy of
the weights, the out-of-place form, changes made under `torch.no_grad()`, a dropout layer
in evaluation mode (it returns its input untouched), a parameter that does not require
grad, an in-place ReLU on an activation (no leaf), a block whose first layer works out of
place, and initialisers (which work under no_grad themselves).
"""

import torch
import torch.nn.functional as F
from torch import nn


class WeightedFusion(nn.Module):
    def __init__(self, inputs: int, eps: float = 1e-4) -> None:
        super().__init__()
        self.eps = eps
        self.weights = nn.Parameter(torch.ones(inputs))
        self.relu = nn.ReLU(inplace=True)

    def forward(self, features: list[torch.Tensor]) -> torch.Tensor:
        w = self.relu(self.weights)  # expect: GG301
        w = w / (w.sum() + self.eps)
        return sum(w[i] * f for i, f in enumerate(features))


class GatedSum(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.gate = nn.Parameter(torch.zeros(2))

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        g = F.relu(self.gate, inplace=True)  # expect: GG301
        return g[0] * a + g[1] * b


def rectified_step(lr: float) -> torch.Tensor:
    scale = torch.randn(4, requires_grad=True)
    torch.relu_(scale)  # expect: GG301
    loss = (scale * 2).sum()
    loss.backward()
    return scale


class CopiedFusion(nn.Module):
    """The fix: rectify a copy (a non-leaf whose gradient flows back to the weights)."""

    def __init__(self, inputs: int) -> None:
        super().__init__()
        self.weights = nn.Parameter(torch.ones(inputs))
        self.relu = nn.ReLU(inplace=True)
        self.plain = nn.ReLU()
        self.drop = nn.Dropout(0.1, inplace=True)
        self.frozen = nn.Parameter(torch.ones(inputs), requires_grad=False)
        self.head = nn.Sequential(nn.Linear(inputs, inputs), nn.ReLU(inplace=True))
        nn.init.uniform_(self.weights, 0.5, 1.0)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        w = self.relu(self.weights.clone())
        v = self.plain(self.weights) + F.relu(self.weights)
        f = self.relu(self.frozen)
        h = self.relu(x * w)
        return self.head(self.weights) + v + f + h


class EvalDropout(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.bias = nn.Parameter(torch.ones(3))
        self.drop = nn.Dropout(0.5, inplace=True)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.drop(self.bias)


def clipped_without_recording() -> torch.Tensor:
    scale = torch.randn(4, requires_grad=True)
    with torch.no_grad():
        torch.relu_(scale)
        F.relu(scale, inplace=True)
    return scale


if __name__ == "__main__":
    for run in (
        lambda: WeightedFusion(2)([torch.randn(3), torch.randn(3)]),
        lambda: GatedSum()(torch.randn(3), torch.randn(3)),
        lambda: rectified_step(0.1),
    ):
        try:
            run()
        except RuntimeError as error:
            assert "a leaf Variable that requires grad" in str(error), error
        else:
            raise AssertionError("expected the leaf error")
    copied = CopiedFusion(3)
    copied(torch.randn(3)).sum().backward()
    assert copied.weights.grad is not None
    evaluated = EvalDropout()
    evaluated.eval()
    evaluated(torch.randn(3)).sum().backward()
    clipped_without_recording()
