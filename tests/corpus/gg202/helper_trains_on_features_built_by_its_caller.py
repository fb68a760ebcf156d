"""A training helper looping over data its caller pushed through a layer: every iteration
backpropagates through the caller's graph, which the first iteration freed (GG202).

Modelled on lucidrains/denoising-diffusion-pytorch issue #109: a user fed the Trainer data
reshaped by a `Conv1d` applied once, before training started. The training loop ran fine
for one step, then raised "Trying to backward through the graph a second time" because the
convolution's saved input was freed by the first `backward()`. Here the loop lives in a
helper, `fit(model, features, steps)`, that the script calls once: the helper's own code
looks right, and the mistake is in what every caller hands it.

Look-alikes that run: the same helper given features computed under `torch.no_grad()`, or
`.detach()`ed (nothing saved before the call), and a helper that calls the
projection itself inside its loop.
"""

import torch
from torch import nn


def fit(model, features, steps):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    for _ in range(steps):
        loss = model(features).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()  # expect: GG202
        optimizer.step()


def fit_detached(model, features, steps):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    for _ in range(steps):
        loss = model(features).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def fit_frozen(model, features, steps):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    for _ in range(steps):
        loss = model(features).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def fit_projecting(model, projection, raw, steps):
    optimizer = torch.optim.SGD([*model.parameters(), *projection.parameters()], lr=0.05)
    for _ in range(steps):
        loss = model(projection(raw).flatten(1)).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def main():
    raw = torch.randn(8, 3, 16)
    projection = nn.Conv1d(3, 2, kernel_size=1)
    model = nn.Linear(32, 1)
    try:
        fit(model, projection(raw).flatten(1), 3)
    except RuntimeError as error:
        assert "backward through the graph a second time" in str(error), error
    else:
        raise AssertionError("the second iteration backpropagated through a freed graph")
    with torch.no_grad():
        frozen = projection(raw).flatten(1)
    fit_frozen(model, frozen, 3)
    fit_detached(model, projection(raw).flatten(1).detach(), 3)
    fit_projecting(model, projection, raw, 3)
    print("features built by the caller: second iteration raised; the look-alikes ran")


if __name__ == "__main__":
    main()
