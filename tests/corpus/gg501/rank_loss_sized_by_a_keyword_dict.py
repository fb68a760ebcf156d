"""A per-sample rank loss, sized by settings kept in `dict(...)` (GG501).

Modelled on https://github.com/dillondavis/RecurrentAttentionConvolutionalNeuralNetwork/issues/4:
a pairwise rank loss between the scores of two scales was written per sample, which works
with batches of one and fails with "grad can be implicitly created only for scalar outputs"
as soon as the batch size is larger. The settings live in a dict built with keywords
(`dict(batch_size=4, ...)`), which builds the same dict as the display `{...}`: nothing in
the file changes it, so the batch size, and with it the loss's size, is known. The
look-alike reduces the loss with `.mean()`.
"""

import torch
from torch import nn

SETTINGS = dict(batch_size=4, features=6, margin=0.05)


def scores():
    torch.manual_seed(0)
    coarse_head = nn.Linear(SETTINGS["features"], 1)
    fine_head = nn.Linear(SETTINGS["features"], 1)
    x = torch.randn(SETTINGS["batch_size"], SETTINGS["features"])
    return torch.sigmoid(coarse_head(x)), torch.sigmoid(fine_head(x))


def step_per_sample():
    coarse, fine = scores()
    loss = torch.clamp(coarse - fine + SETTINGS["margin"], min=0)
    loss.backward()  # expect: GG501


def step_reduced():
    coarse, fine = scores()
    loss = torch.clamp(coarse - fine + SETTINGS["margin"], min=0).mean()
    loss.backward()


if __name__ == "__main__":
    step_reduced()
    try:
        step_per_sample()
    except RuntimeError as error:
        assert "scalar outputs" in str(error)
    else:
        raise AssertionError("backward of a per-sample loss ran")
    print("ok")
