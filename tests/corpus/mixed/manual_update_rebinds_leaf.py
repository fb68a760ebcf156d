"""A hand-written gradient step that rebinds the weights (`w = w - lr * w.grad`) outside
`torch.no_grad()`: the new `w` is computed from the old one, so it is no longer a leaf and
the next iteration's `w.grad` is None ("unsupported operand type(s) for *: 'float' and
'NoneType'", GG403). The carried `w` is not a hidden state whose graph a second backward
finds freed: the subtraction saves nothing, so GG201 stays silent here. The fixed twin
updates in place under no_grad."""

import torch


def fit_line(xs, ys, steps=20, lr=0.1):
    w = torch.zeros(1, requires_grad=True)
    b = torch.zeros(1, requires_grad=True)
    for _ in range(steps):
        loss = ((w * xs + b - ys) ** 2).mean()
        loss.backward()
        w = w - lr * w.grad  # expect: GG403
        b = b - lr * b.grad  # expect: GG403
    return w, b


def fit_line_fixed(xs, ys, steps=20, lr=0.1):
    w = torch.zeros(1, requires_grad=True)
    b = torch.zeros(1, requires_grad=True)
    for _ in range(steps):
        loss = ((w * xs + b - ys) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            w -= lr * w.grad
            b -= lr * b.grad
        w.grad.zero_()
        b.grad.zero_()
    return w, b


xs = torch.linspace(0, 1, 16)
try:
    fit_line(xs, 2 * xs + 1)
except TypeError as error:
    assert "NoneType" in str(error)
print(fit_line_fixed(xs, 2 * xs + 1))
