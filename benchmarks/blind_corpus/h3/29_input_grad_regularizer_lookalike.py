"""GG503 look-alike (correct code).

torch.autograd.grad is used twice without create_graph=True, both legally:
(1) an FGSM example is built from the input gradient and detached, so it
is never differentiated again; (2) a per-layer gradient-norm diagnostic
reads parameter gradients only for logging.  The one place where a
gradient does enter the loss (an input-gradient smoothness penalty) uses
create_graph=True, and the check confirms it reaches the parameters.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


def fgsm(model, x, y, eps=0.05):
    x = x.clone().requires_grad_(True)
    g, = torch.autograd.grad(F.cross_entropy(model(x), y), x)
    return (x + eps * g.sign()).detach()


def grad_norm_report(model, loss):
    grads = torch.autograd.grad(loss, list(model.parameters()), retain_graph=True)
    return {n: g.norm().item() for (n, _), g in zip(model.named_parameters(), grads)}


def smoothness_penalty(model, x, y):
    x = x.clone().requires_grad_(True)
    loss = F.cross_entropy(model(x), y)
    g, = torch.autograd.grad(loss, x, create_graph=True)
    return g.pow(2).sum(1).mean()


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 24), nn.Softplus(), nn.Linear(24, 3))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    x, y = torch.randn(32, 6), torch.randint(0, 3, (32,))
    for step in range(3):
        x_adv = fgsm(model, x, y)
        ce = F.cross_entropy(model(x), y) + F.cross_entropy(model(x_adv), y)
        pen = smoothness_penalty(model, x, y)
        report = grad_norm_report(model, ce)
        pen_grads = torch.autograd.grad(pen, list(model.parameters()), retain_graph=True)
        assert any(g.abs().sum() > 0 for g in pen_grads)   # penalty really reaches the weights
        opt.zero_grad()
        (ce + 0.1 * pen).backward()
        opt.step()
        print(f"step {step}: ce={ce.item():.4f} pen={pen.item():.5f} |g0|={report['0.weight']:.4f}")


if __name__ == "__main__":
    main()
    print("OK")
