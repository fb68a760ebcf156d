"""Gradients switched off by a phase flag that never equals the value tested.

The options class says `phase = "training"`, and the step enables gradients with
`torch.set_grad_enabled(opt.phase == "train")`: the comparison is always False, so the
whole step runs without recording. The author then forced `loss.requires_grad = True` to
silence "element 0 of tensors does not require grad", so `backward()` runs and trains
nothing (checked with torch 2.13.0: the weights never change). A class constant nothing
reassigns is a known string, and comparing two known literals gives a known flag.

Silent: the same step whose options class names the value tested. Modelled on a
blind-corpus case (an ArcFace trainer with a mistyped phase string and the requires_grad
"fix"), written anew for this corpus.
"""

import torch
from torch import nn


class Options:
    phase = "training"
    lr = 0.1


class GoodOptions:
    stage = "train"
    lr = 0.1


def step(model, optimizer, x, y):
    opt = Options()
    with torch.set_grad_enabled(opt.phase == "train"):
        loss = nn.functional.mse_loss(model(x), y)
    loss.requires_grad = True  # expect: GG109
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()


def step_good(model, optimizer, x, y):
    opt = GoodOptions()
    with torch.set_grad_enabled(opt.stage == "train"):
        loss = nn.functional.mse_loss(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()


def main():
    x, y = torch.randn(4, 3), torch.randn(4, 1)
    model = nn.Linear(3, 1)
    before = model.weight.detach().clone()
    step(model, torch.optim.SGD(model.parameters(), lr=Options.lr), x, y)
    assert torch.equal(before, model.weight)
    good = nn.Linear(3, 1)
    step_good(good, torch.optim.SGD(good.parameters(), lr=GoodOptions.lr), x, y)


if __name__ == "__main__":
    main()
