"""GG501 look-alike (correct code).

Per-sample losses (reduction="none") are backpropagated in two legal
ways: once with an explicit gradient argument holding the per-sample
weights (vector-Jacobian product), and once on a loss of shape [1]
produced by keepdim reductions, which has exactly one element and so
needs no gradient argument.  The result is checked against an ordinary
scalar weighted mean.
"""
import torch
import torch.nn as nn


class Regressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(3, 16), nn.SiLU(), nn.Linear(16, 1))

    def forward(self, x):
        return self.body(x).squeeze(-1)


def grads_of(model):
    return [p.grad.clone() for p in model.parameters()]


def main():
    torch.manual_seed(0)
    model = Regressor()
    crit = nn.SmoothL1Loss(reduction="none")
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x, y = torch.randn(10, 3), torch.randn(10)
    w = torch.rand(10)

    # 1) vector loss with explicit gradient = normalised weights
    opt.zero_grad()
    per_sample = crit(model(x), y)
    per_sample.backward(gradient=w / w.sum())
    g_vjp = grads_of(model)

    # 2) one-element loss (shape [1]) built with keepdim
    opt.zero_grad()
    per_sample = crit(model(x), y)
    loss_1 = (per_sample * w).sum(0, keepdim=True) / w.sum()
    assert loss_1.shape == (1,)
    loss_1.backward()
    g_keep = grads_of(model)

    # 3) reference scalar loss
    opt.zero_grad()
    ref = (crit(model(x), y) * w).sum() / w.sum()
    ref.backward()
    for a, b, c in zip(g_vjp, g_keep, grads_of(model)):
        assert torch.allclose(a, c, atol=1e-6) and torch.allclose(b, c, atol=1e-6)
    opt.step()
    print(f"weighted loss {ref.item():.4f}")


if __name__ == "__main__":
    main()
    print("OK")
