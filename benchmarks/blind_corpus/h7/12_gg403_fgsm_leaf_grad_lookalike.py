"""GG403 look-alike (correct code) - reading .grad of tensors that are leaves.

FGSM adversarial training.  The attack reads ``x_adv.grad`` after a backward,
and the training loop reads ``p.grad`` of parameters for a gradient-norm log.
``x_adv`` is built with ``x.clone().detach().requires_grad_(True)``: although it
is derived from another tensor, ``detach()`` makes it a fresh leaf, so its
``.grad`` is populated.  Parameters are leaves too.

Modelled on: https://github.com/pkmr06/pytorch-smoothgrad/issues/5 (input
gradients for attribution; here done with a proper leaf)
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

SETTINGS = {"eps": 0.03, "epochs": 2, "lr": 0.01, "adv_weight": 0.5}


def build_model():
    return nn.Sequential(nn.Flatten(), nn.Linear(3 * 8 * 8, 32), nn.ReLU(), nn.Linear(32, 4))


def fgsm(model, x, y, eps):
    x_adv = x.clone().detach().requires_grad_(True)
    loss = F.cross_entropy(model(x_adv), y)
    loss.backward()
    step = eps * x_adv.grad.sign()
    model.zero_grad(set_to_none=True)
    return (x_adv + step).clamp(0, 1).detach()


def grad_norm(model):
    norms = [p.grad.norm() for p in model.parameters() if p.grad is not None]
    return torch.stack(norms).norm().item()


def train(model, loader, opt, settings):
    for epoch in range(settings["epochs"]):
        for x, y in loader:
            x_adv = fgsm(model, x, y, settings["eps"])
            opt.zero_grad()
            clean = F.cross_entropy(model(x), y)
            adv = F.cross_entropy(model(x_adv), y)
            loss = (1 - settings["adv_weight"]) * clean + settings["adv_weight"] * adv
            loss.backward()
            gn = grad_norm(model)
            opt.step()
        print(f"epoch {epoch}: loss {loss.item():.4f} grad-norm {gn:.4f}")


def main():
    torch.manual_seed(0)
    ds = TensorDataset(torch.rand(24, 3, 8, 8), torch.randint(0, 4, (24,)))
    model = build_model()
    opt = torch.optim.SGD(model.parameters(), lr=SETTINGS["lr"])
    train(model, DataLoader(ds, batch_size=8, shuffle=True), opt, SETTINGS)


if __name__ == "__main__":
    main()
    print("OK")
