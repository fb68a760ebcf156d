"""Parameters built by an init helper, then "cleared" before the first backward (GG407).

Tutorial-style fitting code often moves the weight creation into a small function
(`coeffs, bias = init_params(...)`), and keeps the habit of zeroing every `.grad` at the
top of the loop. Each call of the helper makes new leaves, so on the first iteration their
`.grad` is still None and the zeroing raises
AttributeError: 'NoneType' object has no attribute 'data'
(the report: https://github.com/pytorch/tutorials/issues/51, where the tutorial's manual
zeroing before the first backward broke for readers on a newer torch).

The look-alikes below get their tensors from a helper that hands back one shared tensor
already trained elsewhere, or zero only after the backward: they run.
"""

import torch

torch.manual_seed(0)
STEP = 0.01


def init_params(degree):
    coeffs = torch.randn(degree + 1, requires_grad=True)
    bias = torch.zeros((), requires_grad=True)
    return coeffs, bias


def powers(x, degree):
    return torch.stack([x**k for k in range(degree + 1)], dim=1)


def fit_polynomial(x, y, degree=3, steps=20):
    coeffs, bias = init_params(degree)
    features = powers(x, degree)
    for step in range(steps):
        coeffs.grad.data.zero_()  # expect: GG407
        bias.grad.data.zero_()  # expect: GG407
        loss = ((features @ coeffs + bias - y) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            coeffs -= STEP * coeffs.grad
            bias -= STEP * bias.grad


def fit_then_clear(x, y, degree=3, steps=20):
    coeffs, bias = init_params(degree)
    features = powers(x, degree)
    for step in range(steps):
        loss = ((features @ coeffs + bias - y) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            coeffs -= STEP * coeffs.grad
            bias -= STEP * bias.grad
        coeffs.grad.data.zero_()
        bias.grad.data.zero_()


WARM = torch.randn(4, requires_grad=True)
(WARM * 2.0).sum().backward()  # the shared tensor has a gradient from the start


def shared_params():
    return WARM


def fine_tune(x, y, steps=5):
    coeffs = shared_params()
    features = powers(x, 3)
    for step in range(steps):
        coeffs.grad.data.zero_()
        loss = ((features @ coeffs - y) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            coeffs -= STEP * coeffs.grad


if __name__ == "__main__":
    x = torch.linspace(-1, 1, 32)
    y = 0.5 * x**3 - x + 0.2
    fit_then_clear(x, y)
    fine_tune(x, y)
    try:
        fit_polynomial(x, y)
    except AttributeError as error:
        print("AttributeError", error)
    else:
        raise SystemExit("the buggy case ran")
