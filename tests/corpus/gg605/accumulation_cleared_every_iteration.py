"""Gradient accumulation whose gradients are cleared on every iteration (GG605).

Modelled on https://github.com/dscripka/openWakeWord/issues/316: a training loop meant to
accumulate gradients over several batches before each step, but called
`optimizer.zero_grad()` at the top of every iteration, so each step applied the last
batch's gradients and the others were computed for nothing. Two guards are shown: a step
every k iterations, and a step once a hand-kept count of samples reaches a bound (reset in
the guarded block). The look-alikes clear the gradients after the step.
"""

import torch
from torch import nn

SETTINGS = {"accumulate": 2, "samples_per_step": 8}


def train_every_k(model, optimizer, batches):
    for i, (x, y) in enumerate(batches):
        optimizer.zero_grad()  # expect: GG605
        loss = nn.functional.mse_loss(model(x), y) / SETTINGS["accumulate"]
        loss.backward()
        if (i + 1) % SETTINGS["accumulate"] == 0:
            optimizer.step()


def train_by_samples(model, optimizer, batches):
    seen = 0
    for x, y in batches:
        optimizer.zero_grad()  # expect: GG605
        nn.functional.mse_loss(model(x), y).backward()
        seen += x.shape[0]
        if seen >= SETTINGS["samples_per_step"]:
            optimizer.step()
            seen = 0


def train_every_k_cleared_after(model, optimizer, batches):
    for i, (x, y) in enumerate(batches):
        loss = nn.functional.mse_loss(model(x), y) / SETTINGS["accumulate"]
        loss.backward()
        if (i + 1) % SETTINGS["accumulate"] == 0:
            optimizer.step()
            optimizer.zero_grad()


def first_step(train):
    """The weight after one step on two batches whose gradients cancel out."""
    model = nn.Linear(1, 1, bias=False)
    nn.init.zeros_(model.weight)
    optimizer = torch.optim.SGD(model.parameters(), lr=1.0)
    x = torch.ones(4, 1)
    train(model, optimizer, [(x, torch.full((4, 1), 1.0)), (x, torch.full((4, 1), -1.0))])
    return model.weight.item()


if __name__ == "__main__":
    # The accumulated gradients cancel, so a correct step leaves the weight at 0; clearing
    # on every iteration applies the second batch's gradient alone.
    assert first_step(train_every_k_cleared_after) == 0.0
    assert first_step(train_every_k) != 0.0
    assert first_step(train_by_samples) != 0.0
    print("each step applied one batch's gradients")
