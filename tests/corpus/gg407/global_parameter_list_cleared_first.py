"""A module-level list of every network's parameters, cleared by a helper before the first
backward (GG407).

An autoencoder script in the "one file, networks at module level" style gathers the
parameters of its encoder and decoder into one list, `ALL_PARAMS = ENC_PARAMS + DEC_PARAMS`,
and clears them with `clear_all()`, which walks that global list. `fit()` calls it at the
top of its loop, so on the first iteration no backward has run since the layers were built
and the first parameter's `.grad` is still None:
"AttributeError: 'NoneType' object has no attribute 'zero_'" (checked with torch 2.13.0
below). `+` of two lists is a new list holding the elements of both, every one a fresh
parameter. The `try` around `main()` only reports the failure.

Modelled on wiseodd/generative-models#26 (a `reset_grad()` over the global parameter list of
a GAN script, called at the top of the training loop).
"""

import torch
from torch import nn

ENCODER = nn.Sequential(nn.Linear(6, 3), nn.Tanh())
DECODER = nn.Linear(3, 6)
ENC_PARAMS = list(ENCODER.parameters())
DEC_PARAMS = list(DECODER.parameters())
ALL_PARAMS = ENC_PARAMS + DEC_PARAMS
OPTIMIZER = torch.optim.SGD(ALL_PARAMS, lr=0.05)


def clear_all():
    for tensor in ALL_PARAMS:
        tensor.grad.zero_()  # expect: GG407


def fit(batches):
    for batch in batches:
        clear_all()
        loss = (DECODER(ENCODER(batch)) - batch).pow(2).mean()
        loss.backward()
        OPTIMIZER.step()


def main():
    fit([torch.randn(4, 6) for _ in range(3)])


if __name__ == "__main__":
    try:
        main()
    except AttributeError as error:
        assert "'NoneType' object has no attribute 'zero_'" in str(error)
    else:
        raise AssertionError("expected the first parameter's missing gradient to fail")
