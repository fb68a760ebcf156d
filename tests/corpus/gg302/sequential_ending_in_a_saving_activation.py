"""A head built as `nn.Sequential(..., nn.ReLU())` whose output is then written into: the
ReLU kept that output for its backward, so the write breaks it (GG302).

Modelled on JDAI-CV/LIO (classification/models/coord_predict.py, issue #9): a coordinate
predictor ends in `nn.ReLU()`, its output is reshaped with `.view(...)` and the entries at
the most discriminative position are zeroed by index assignment. The view shares the ReLU
output's storage, so `backward()` raises "one of the variables needed for gradient
computation has been modified by an inplace operation ... output 0 of Relu".

Look-alikes that run: the same head ending in `nn.Linear` (which keeps its input, not its
output), or in `nn.GELU` (which keeps its input too), and the ReLU head written into after
`.clone()`.
"""

import torch
from torch import nn


class ReluHead(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.predictor = nn.Sequential(
            nn.Linear(dim, 2 * dim), nn.ReLU(), nn.Linear(2 * dim, 2), nn.ReLU()
        )

    def forward(self, x, rows, cols):
        n, s, c = x.shape
        coords = self.predictor(x.reshape(n * s, c)).view(n, s, 2)
        coords[rows, cols, :] = 0.0  # expect: GG302
        return coords.pow(2).mean()


class LinearHead(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.predictor = nn.Sequential(nn.Linear(dim, 2 * dim), nn.ReLU(), nn.Linear(2 * dim, 2))

    def forward(self, x, rows, cols):
        n, s, c = x.shape
        coords = self.predictor(x.reshape(n * s, c)).view(n, s, 2)
        coords[rows, cols, :] = 0.0
        return coords.pow(2).mean()


class GeluHead(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.predictor = nn.Sequential(nn.Linear(dim, 2), nn.GELU())

    def forward(self, x, rows, cols):
        n, s, c = x.shape
        coords = self.predictor(x.reshape(n * s, c)).view(n, s, 2)
        coords[rows, cols, :] = 0.0
        return coords.pow(2).mean()


class ClonedReluHead(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.predictor = nn.Sequential(nn.Linear(dim, 2), nn.ReLU())

    def forward(self, x, rows, cols):
        n, s, c = x.shape
        coords = self.predictor(x.reshape(n * s, c)).view(n, s, 2).clone()
        coords[rows, cols, :] = 0.0
        return coords.pow(2).mean()


if __name__ == "__main__":
    x, rows, cols = torch.randn(2, 5, 4), torch.arange(2), torch.tensor([1, 3])
    relu_head = ReluHead(4)
    try:
        relu_head(x, rows, cols).backward()
    except RuntimeError as error:
        assert "modified by an inplace operation" in str(error), error
    else:
        raise AssertionError("writing into the ReLU head's output did not break backward")
    LinearHead(4)(x, rows, cols).backward()
    GeluHead(4)(x, rows, cols).backward()
    ClonedReluHead(4)(x, rows, cols).backward()
    print("ReLU head: backward raised; Linear, GELU and cloned heads ran")
