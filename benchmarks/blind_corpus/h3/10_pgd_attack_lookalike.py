"""GG401 look-alike (correct code).

A PGD adversarial-training loop sets requires_grad on the perturbed input
at every attack step.  The perturbed input is rebuilt from detached tensors
(x + delta).detach() / clone(), so it is always a fresh leaf and setting the
flag is legal.  The model output it is compared with is never touched.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


def pgd_attack(model, x, y, eps=0.1, alpha=0.03, steps=3):
    x_adv = x.clone().detach() + torch.empty_like(x).uniform_(-eps, eps)
    for _ in range(steps):
        x_adv = x_adv.detach()
        x_adv.requires_grad = True
        loss = F.cross_entropy(model(x_adv), y)
        grad, = torch.autograd.grad(loss, x_adv)
        x_adv = x_adv + alpha * grad.sign()
        x_adv = torch.min(torch.max(x_adv, x - eps), x + eps)
    return x_adv.detach()


def normalize(x, mean, std):
    out = ((x - mean) / std)
    return out.requires_grad_()   # mean/std/x have no grad: result is a leaf


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 3))
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    x_all, y_all = torch.randn(48, 10), torch.randint(0, 3, (48,))
    mean, std = x_all.mean(0), x_all.std(0)
    for epoch in range(2):
        for i in range(0, 48, 16):
            xb = normalize(x_all[i:i + 16], mean, std)
            yb = y_all[i:i + 16]
            model.eval()
            xb_adv = pgd_attack(model, xb.detach(), yb)
            model.train()
            loss = F.cross_entropy(model(xb), yb) + F.cross_entropy(model(xb_adv), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
        print(f"epoch {epoch}: loss {loss.item():.4f}, input grad norm {xb.grad.norm():.4f}")


if __name__ == "__main__":
    main()
    print("OK")
