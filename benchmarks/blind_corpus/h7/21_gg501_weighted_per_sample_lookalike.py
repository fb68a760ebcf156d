"""GG501 look-alike (correct code) - backward() on tensors that are not 0-d, done right.

Importance-weighted regression.  The per-sample loss vector is back-propagated
with an explicit ``gradient=`` argument (the normalised importance weights),
which is legal for a non-scalar tensor.  A second auxiliary term is built with
``torch.mm`` and therefore has shape [1, 1]: a one-element tensor, on which a
bare ``backward()`` is allowed.  Both look like "backward on a non-scalar".

Modelled on: https://github.com/MrChenFeng/Adaptive-Soft-Contrastive-Learning_ICPR2022/issues/2
(the per-sample loss situation, handled with an explicit gradient argument)
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

CFG = {"in_dim": 6, "hidden": 16, "epochs": 3, "lr": 1e-2, "l2": 1e-3}


class Regressor(nn.Module):
    def __init__(self, d, h):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(d, h), nn.Tanh(), nn.Linear(h, 1))

    def forward(self, x):
        return self.body(x).squeeze(-1)


def importance_weights(x):
    w = torch.exp(-x.pow(2).sum(1) / 10)
    return w / w.sum()


def train(model, loader, opt):
    crit = nn.MSELoss(reduction="none")
    for epoch in range(CFG["epochs"]):
        for x, y in loader:
            opt.zero_grad()
            per_sample = crit(model(x), y)
            per_sample.backward(gradient=importance_weights(x))
            w = model.body[0].weight.flatten().unsqueeze(0)
            l2 = CFG["l2"] * torch.mm(w, w.t())
            l2.backward()
            opt.step()
        print(f"epoch {epoch}: weighted mse {(per_sample.detach() * importance_weights(x)).sum().item():.4f}")


@torch.no_grad()
def validate(model, x, y):
    model.eval()
    err = (model(x) - y).pow(2)
    model.train()
    return {"mse": err.mean().item(), "worst": err.max().item()}


def main():
    torch.manual_seed(0)
    x = torch.randn(32, CFG["in_dim"])
    y = x[:, 0] - 0.5 * x[:, 1]
    model = Regressor(CFG["in_dim"], CFG["hidden"])
    opt = torch.optim.Adam(model.parameters(), lr=CFG["lr"])
    train(model, DataLoader(TensorDataset(x[:24], y[:24]), batch_size=8, shuffle=True), opt)
    stats = validate(model, x[24:], y[24:])
    print(f"validation: mse {stats['mse']:.4f} worst {stats['worst']:.4f}")


if __name__ == "__main__":
    main()
    print("OK")
