"""GG402 - requires_grad=True on a tensor with an integer dtype.

Mistake: a from-scratch polynomial fit (tutorial style, module-level script,
manual gradient descent).  The coefficients are created with
``torch.tensor(CONFIG["init_coeffs"], requires_grad=True)`` where the initial
values in the config were written as integers (``[0, 0, 0]``), so the tensor is
int64 and cannot require gradients.

torch raises: RuntimeError: Only Tensors of floating point and complex dtype can
require gradients

Modelled on: https://github.com/pytorch/pytorch/issues/53466
"""
import json
import os
import tempfile

import torch

CONFIG = {
    "degree": 2,
    "init_coeffs": [0, 0, 0],
    "lr": 0.05,
    "iters": 50,
    "n_points": 64,
    "noise": 0.05,
    "log_every": 10,
}


def make_data(n, noise):
    xs = torch.linspace(-1, 1, n)
    ys = 0.5 - 1.5 * xs + 2.0 * xs ** 2 + noise * torch.randn(n)
    return xs, ys


def design_matrix(xs, degree):
    return torch.stack([xs ** k for k in range(degree + 1)], dim=1)


def fit(xs, ys):
    X = design_matrix(xs, CONFIG["degree"])
    coeffs = torch.tensor(CONFIG["init_coeffs"], requires_grad=True)  # bug: GG402
    history = []
    for it in range(CONFIG["iters"]):
        pred = X @ coeffs
        loss = ((pred - ys) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            coeffs -= CONFIG["lr"] * coeffs.grad
            coeffs.grad.zero_()
        history.append(loss.item())
        if it % CONFIG["log_every"] == 0:
            print(f"iter {it:3d}  mse={loss.item():.4f}")
    return coeffs.detach(), history


torch.manual_seed(0)
if __name__ == "__main__":
    try:
        xs, ys = make_data(CONFIG["n_points"], CONFIG["noise"])
        coeffs, history = fit(xs, ys)
        out = os.path.join(tempfile.mkdtemp(), "poly_fit.json")
        with open(out, "w") as fh:
            json.dump({"coeffs": coeffs.tolist(), "final_mse": history[-1]}, fh)
        print("coefficients:", [round(c, 3) for c in coeffs.tolist()])
    except RuntimeError as err:
        print(f"BUGGY: {str(err).splitlines()[0]}")
        raise SystemExit(0)
    raise SystemExit("NO BUG")
