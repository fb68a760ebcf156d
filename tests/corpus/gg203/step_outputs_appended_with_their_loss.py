"""A training loop keeps each step's output dict, loss tensor included (GG203).

`step()` returns `{"loss": loss, "size": n}` and the loop backpropagates `output["loss"]`
and then appends the whole dict to `outputs` (for an epoch-end summary). Each kept dict
holds a loss tensor with its `grad_fn`, so every iteration's graph stays alive (checked
with torch 2.13.0 below: the kept losses still have a grad_fn). The look-alike keeps the
number (`.item()`) in what it appends.

Modelled on a Lightning-style trainer of the team's second blind corpus
(`training_step` outputs collected for `training_epoch_end`).
"""

import torch
from torch import nn


def step(model, x):
    loss = model(x).pow(2).mean()
    return {"loss": loss, "size": x.shape[0]}


def train(model, batches):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    outputs = []
    for x in batches:
        output = step(model, x)
        optimizer.zero_grad()
        output["loss"].backward()
        optimizer.step()
        outputs.append(output)  # expect: GG203
    return outputs


def train_logged(model, batches):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    outputs = []
    for x in batches:
        output = step(model, x)
        optimizer.zero_grad()
        output["loss"].backward()
        optimizer.step()
        outputs.append({"loss": output["loss"].item(), "size": output["size"]})
    return outputs


if __name__ == "__main__":
    batches = [torch.randn(2, 3) for _ in range(3)]
    kept = train(nn.Linear(3, 1), batches)
    assert all(o["loss"].grad_fn is not None for o in kept), "graphs were released"
    assert all(isinstance(o["loss"], float) for o in train_logged(nn.Linear(3, 1), batches))
