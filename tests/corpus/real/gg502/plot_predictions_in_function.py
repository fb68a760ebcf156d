"""A curve-fitting notebook's `fit(model, optimizer, xs, ys)` trains a small network and then
plots its predictions with matplotlib, passing `model(xs)` (computed with gradients on) to
`plt.plot`, which converts it with `Tensor.numpy()`: "Can't call numpy() on Tensor that
requires grad". The fixed twin predicts under `torch.no_grad()`.

Sources (rewritten in our own words, structure kept):
* https://tutorialreference.com/python/examples/faq/python-pytorch-error-runtimeerror-cant-call-numpy-on-tensor-that-requires-grad-detach
  - converting a tensor that requires grad for Matplotlib raises the error.
"""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402
from torch import nn  # noqa: E402


def fit(model, optimizer, xs, ys, steps=20):
    for _ in range(steps):
        loss = ((model(xs) - ys) ** 2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    preds = model(xs)
    plt.plot(xs.numpy(), preds)  # expect: GG502
    return preds


def fit_fixed(model, optimizer, xs, ys, steps=20):
    for _ in range(steps):
        loss = ((model(xs) - ys) ** 2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    with torch.no_grad():
        preds = model(xs)
    plt.plot(xs.numpy(), preds)
    return preds


net = nn.Sequential(nn.Linear(1, 16), nn.Tanh(), nn.Linear(16, 1))
opt = torch.optim.Adam(net.parameters(), lr=1e-2)
xs = torch.linspace(-2, 2, 50).unsqueeze(1)
ys = torch.sin(xs)
try:
    fit(net, opt, xs, ys)
    raise AssertionError("expected an error")
except RuntimeError as error:
    assert "Can't call numpy() on Tensor that requires grad" in str(error)
fit_fixed(net, opt, xs, ys)
out = net(xs)
try:
    plt.scatter(xs.numpy(), np.asarray(out))  # expect: GG502
    raise AssertionError("expected an error")
except RuntimeError as error:
    assert "Can't call numpy() on Tensor that requires grad" in str(error)
