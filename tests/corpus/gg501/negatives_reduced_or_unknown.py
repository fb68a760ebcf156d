"""Backward calls that resemble GG501 but are fine (or whose shape cannot be known)."""

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(6, 32), nn.ReLU(), nn.Linear(32, 3))
criterion = nn.MSELoss(reduction="none")
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)


def reduced_per_sample_loss():
    x, y = torch.randn(16, 6), torch.randn(16, 3)
    weights = torch.rand(16, 1)
    per_sample = criterion(model(x), y)
    (per_sample * weights).mean().backward()
    loss = criterion(model(x), y)
    loss.sum().backward()


def default_reductions():
    x, y = torch.randn(16, 6), torch.randn(16, 3)
    F.mse_loss(model(x), y).backward()
    nn.L1Loss()(model(x), y).backward()
    F.cross_entropy(model(x), torch.randint(0, 3, (16,))).backward()
    F.mse_loss(model(x), y, reduction="sum").backward()


def explicit_gradients():
    x = torch.randn(16, 6)
    out = model(x)
    out.backward(torch.ones_like(out))
    out = model(x)
    out.backward(gradient=torch.full_like(out, 0.5))
    w = torch.linspace(0.0, 1.0, 5, requires_grad=True)
    (g,) = torch.autograd.grad(w.exp(), w, grad_outputs=torch.ones(5))
    torch.autograd.backward([w * 2], [torch.ones(5)])


def single_elements():
    b = torch.randn(1, requires_grad=True)
    (b * 3).backward()
    c = torch.zeros(1, 1, requires_grad=True)
    torch.autograd.backward(c.exp())
    scalar = torch.tensor(2.0, requires_grad=True)
    (scalar**2).backward()


def unknown_shapes(batch, target, features: torch.Tensor):
    # Parameters and loader batches: the analysis does not know their shapes.
    out = model(batch)
    loss = F.mse_loss(out, target, reduction="none")
    (features * 2).backward() if features.numel() == 1 else None
    head = nn.Linear(32, 1)
    score = head(torch.relu(model[0](batch)))
    score.backward()
    return loss


def shape_changing_ops():
    v = torch.randn(4, requires_grad=True)
    (v @ v).backward()
    v.norm().backward()
    (v * v).sum(dim=0).backward()


def per_element_via_dim(x: torch.Tensor):
    y = model(torch.randn(5, 6)).sum(dim=1)
    y.mean().backward()


if __name__ == "__main__":
    for case in (reduced_per_sample_loss, default_reductions, explicit_gradients, single_elements, shape_changing_ops):
        case()
    unknown_shapes(torch.randn(1, 6), torch.randn(1, 3), torch.randn(1, requires_grad=True))
    print("ok")
