"""Physics-informed fit of exponential decay on an arange grid with float bounds.

Modelled on: https://github.com/pytorch/pytorch/issues/14275 (counterpart)

Looks like the int64 arange that cannot require grad: the collocation grid
is built with torch.arange(..., requires_grad=True).  Its bounds and step are
Python floats, so arange returns a float32 tensor and the flag is legal.  The
integer arange below is only used as an index for subsampling and never asks
for gradients.
"""
import torch
import torch.nn as nn

torch.set_num_threads(1)


class DecayNet(nn.Module):
    def __init__(self, hidden=12):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(1, hidden), nn.Tanh(), nn.Linear(hidden, 1))

    def forward(self, t):
        return self.net(t.unsqueeze(-1)).squeeze(-1)


def make_grid(t_end, dt):
    return torch.arange(0.0, t_end, dt, requires_grad=True)


def physics_loss(model, t, k):
    u = model(t)
    du = torch.autograd.grad(u.sum(), t, create_graph=True)[0]
    return (du + k * u).pow(2).mean()


def fit(k=0.5, iters=5, lr=1e-2):
    model = DecayNet()
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    t = make_grid(2.0, 0.1)
    every_other = torch.arange(0, t.shape[0], 2)
    for _ in range(iters):
        optimizer.zero_grad()
        loss = physics_loss(model, t, k)
        u0 = model(torch.zeros(1))
        loss = loss + (u0 - 1.0).pow(2).sum()
        loss = loss + 1e-3 * model(t[every_other]).pow(2).mean()
        loss.backward()
        optimizer.step()
    return loss.item()


if __name__ == "__main__":
    torch.manual_seed(0)
    loss = fit()
    assert loss == loss
    print("OK")
