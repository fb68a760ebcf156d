"""Predictions of a model handed in, converted to numpy without no_grad (GG502).

`predict(model, loader)` gets the model from its caller; `model.eval()` says it is an
`nn.Module` (nothing else has that method taking no argument), whose parameters require grad
unless something freezes them, and `eval()` does not turn autograd off. Its output moved with
`.cpu()` is still a tensor that requires grad, so `.numpy()` raises "Can't call numpy() on
Tensor that requires grad" (checked with torch 2.13.0). The usual evaluation helper with the
`torch.no_grad()` forgotten.

The look-alikes run under no_grad, detach before converting, or call an `eval` that takes
an argument (not a module's). (A file that freezes parameters anywhere says nothing of a
module of unknown class: its outputs may not require grad.)
"""

import numpy as np
import torch


def predict(model, loader):
    model.eval()
    outputs = []
    for x, _ in loader:
        out = model(x)
        outputs.append(out.cpu().numpy())  # expect: GG502
    return np.concatenate(outputs)


# --- look-alikes ---------------------------------------------------------------------------


def predict_no_grad(model, loader):
    model.eval()
    outputs = []
    with torch.no_grad():
        for x, _ in loader:
            outputs.append(model(x).cpu().numpy())
    return np.concatenate(outputs)


def predict_detached(model, loader):
    model.eval()
    return [model(x).detach().cpu().numpy() for x, _ in loader]


def score_with_booster(booster, data, x):
    booster.eval(data)
    return booster(x).cpu().numpy()
