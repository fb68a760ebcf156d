"""A numpy helper given a parameter by one of its callers (GG502).

Modelled on https://github.com/microsoft/EdgeML/issues/119: the trainer's hard-thresholding
step (`runHardThrsd`) copied the model's weight matrices with `np.copy`, which converts a
tensor through `Tensor.numpy()`, and training crashed with "Can't call numpy() on Variable
that requires grad" once the step first ran. Here one helper computes a sparsity threshold
from a tensor; the sparsity report hands it a detached copy, while the thresholding step
hands it the parameter itself. Whether the helper's `np.abs` raises depends on the caller,
so it is decided per call: the call given the parameter raises, the other does not.
"""

import numpy as np
import torch
from torch import nn


def threshold_of(weights, sparsity):
    magnitudes = np.abs(weights)  # expect: GG502
    return float(np.percentile(magnitudes, 100 * sparsity))


class Bonsai(nn.Module):
    def __init__(self, features=6, classes=3):
        super().__init__()
        self.W = nn.Parameter(torch.randn(features, classes))

    def forward(self, x):
        return x @ self.W


def report_sparsity(model):
    limit = threshold_of(model.W.detach(), 0.5)
    return float((model.W.detach().abs() < limit).float().mean())


def hard_threshold(model, sparsity):
    limit = threshold_of(model.W, sparsity)
    with torch.no_grad():
        model.W[model.W.abs() < limit] = 0.0


if __name__ == "__main__":
    model = Bonsai()
    assert 0.0 < report_sparsity(model) < 1.0
    try:
        hard_threshold(model, 0.5)
    except RuntimeError as error:
        assert "requires grad" in str(error)
    else:
        raise AssertionError("np.abs converted a parameter")
    print("ok")
