"""Temperature-scaled logistic regression from scratch with torch.optim.

Modelled on: https://github.com/pytorch/tutorials/issues/3716 (counterpart)

Looks like the non-leaf optimizer parameter: tensors created with
requires_grad=True are scaled (Xavier factor, exp of a log-temperature) and
the optimizer is built nearby.  The optimizer receives the raw leaves; the
scaled tensors are recomputed inside the model function on every call.
"""
import math

import torch
import torch.nn.functional as F
from torch import optim

torch.set_num_threads(1)

N_FEATURES, N_CLASSES = 32, 5


def synthetic_data(n, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, N_FEATURES, generator=g)
    return x, x[:, :N_CLASSES].argmax(1)


class ScratchModel:
    def __init__(self):
        self.raw_weights = torch.randn(N_FEATURES, N_CLASSES, requires_grad=True)
        self.bias = torch.zeros(N_CLASSES, requires_grad=True)
        self.log_temp = torch.zeros((), requires_grad=True)
        self.scale = 1.0 / math.sqrt(N_FEATURES)

    def parameters(self):
        return [self.raw_weights, self.bias, self.log_temp]

    def __call__(self, xb):
        weights = self.raw_weights * self.scale
        temperature = self.log_temp.exp()
        return F.log_softmax((xb @ weights + self.bias) / temperature, dim=-1)


def fit(epochs=2, bs=16, lr=0.1):
    x, y = synthetic_data(64)
    model = ScratchModel()
    opt = optim.SGD(model.parameters(), lr=lr)
    for _ in range(epochs):
        for i in range(0, x.shape[0], bs):
            loss = F.nll_loss(model(x[i:i + bs]), y[i:i + bs])
            loss.backward()
            opt.step()
            opt.zero_grad()
    return model


if __name__ == "__main__":
    torch.manual_seed(0)
    m = fit()
    assert all(p.is_leaf for p in m.parameters())
    print("OK")
