"""Logging every few steps changes a saved tensor in place, on a pass that certainly runs (GG302).

A small decoder ends in `torch.sigmoid`, which keeps its own result for the backward pass.
Every `log_every` iterations the loop rescales that very result in place to pixel values for
a preview, between computing the loss and calling `backward()`. The preview is conditional,
but the loop runs over `range(6)` and `it % log_every == 0` holds on the first pass, so that
pass changes the kept result and its backward raises "one of the variables needed for
gradient computation has been modified by an inplace operation" (checked with torch 2.13.0
by running this file). The second loop is the other way round: the `else` block of a warm-up
test runs from the third pass on and grows the gate in place before that pass's backward.

Modelled on the every-N-iterations sample saving of pytorch/examples' `dcgan/main.py`
(which saves a detached copy), with the preview made in place instead.
"""

import torch
from torch import nn
from torch.nn import functional as F


class Decoder(nn.Module):
    def __init__(self, latent=4, pixels=6):
        super().__init__()
        self.fc = nn.Linear(latent, pixels)

    def forward(self, z):
        return torch.sigmoid(self.fc(z))


def train_decoder():
    torch.manual_seed(0)
    decoder = Decoder()
    opt = torch.optim.SGD(decoder.parameters(), lr=0.1)
    target = torch.rand(5, 6)
    log_every = 3
    for it in range(6):
        recon = decoder(torch.randn(5, 4))
        loss = F.binary_cross_entropy(recon, target)
        if it % log_every == 0:
            recon.mul_(255)  # expect: GG302
            print("preview", recon.round()[0].tolist())
        opt.zero_grad()
        loss.backward()
        opt.step()


def warm_up_then_widen_gate():
    w = torch.randn(3, 4, requires_grad=True)
    warmup = 2
    for step in range(5):
        gate = torch.sigmoid(w)
        total = gate.sum()
        if step < warmup:
            print("warming up", step)
        else:
            gate += 0.1  # expect: GG302
        total.backward()


if __name__ == "__main__":
    for run in (train_decoder, warm_up_then_widen_gate):
        try:
            run()
        except RuntimeError as err:
            print(run.__name__, "raises:", str(err).splitlines()[0][:90])
