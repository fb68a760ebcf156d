"""Initial values written as integers in a nested settings dict, made a tensor that
requires grad (GG402).

A curve-fitting script keeps its settings in one module-level dict with a section per
concern; the starting coefficients are written `[0, 0, 0]`. `torch.tensor(...)` of a list
of Python ints is an int64 tensor, and asking it to require grad raises "Only Tensors of
floating point and complex dtype can require gradients" before any fitting starts (checked
with torch 2.13.0 below). The dict is never changed by the file (its parts are only read,
copied into tensors or iterated), so its values are known wherever they are read. The
report behind the error message: https://github.com/pytorch/pytorch/issues/7021.

The look-alikes write the coefficients as floats, or pass `dtype=torch.float32`; the last
one changes the list in place before use, so its values are no longer known.
"""

import torch

SETTINGS = {
    "model": {"degree": 2, "start": [0, 0, 0], "start_float": [0.0, 0.0, 0.0]},
    "fit": {"steps": 3, "lr": 0.1},
}
TUNED = {"start": [1, 1, 1]}


def features(x, degree):
    return torch.stack([x**power for power in range(degree + 1)], dim=1)


def fit(x, y):
    coefficients = torch.tensor(SETTINGS["model"]["start"], requires_grad=True)  # expect: GG402
    return coefficients


def fit_floats(x, y):
    coefficients = torch.tensor(SETTINGS["model"]["start_float"], requires_grad=True)
    design = features(x, SETTINGS["model"]["degree"])
    for _ in range(SETTINGS["fit"]["steps"]):
        loss = ((design @ coefficients - y) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            coefficients -= SETTINGS["fit"]["lr"] * coefficients.grad
            coefficients.grad.zero_()
    return coefficients


def fit_cast():
    start = SETTINGS["model"]["start"]
    return torch.tensor(start, dtype=torch.float32, requires_grad=True)


def tune(values):
    values[0] = 0.5


def fit_tuned():
    tune(TUNED["start"])
    return torch.tensor(TUNED["start"], requires_grad=True)


if __name__ == "__main__":
    x = torch.linspace(-1, 1, 8)
    y = 1 + 2 * x
    try:
        fit(x, y)
    except RuntimeError as error:
        print(f"BUGGY: {error}")
    assert fit_floats(x, y).grad is not None
    assert fit_cast().requires_grad
    assert fit_tuned().requires_grad
