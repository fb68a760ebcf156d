"""GG501 - backward() without a gradient argument on a tensor with more than one element.

Mistake: a BYOL-style self-supervised trainer.  The regression loss helper
returns ``2 - 2 * cosine_similarity`` *per sample* (shape [batch]) and the
trainer adds the two symmetric terms and calls ``loss.backward()`` directly,
forgetting to average over the batch.

torch raises: RuntimeError: grad can be implicitly created only for scalar outputs

Modelled on: https://github.com/MrChenFeng/Adaptive-Soft-Contrastive-Learning_ICPR2022/issues/2
"""
import copy
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

CONF = {"in_dim": 32, "feat": 24, "proj": 16, "pred_hidden": 32, "batch": 8,
        "epochs": 2, "lr": 3e-3, "tau_base": 0.99}


def mlp(i, h, o):
    return nn.Sequential(nn.Linear(i, h), nn.BatchNorm1d(h), nn.ReLU(), nn.Linear(h, o))


class Siamese(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(c["in_dim"], c["feat"]), nn.ReLU())
        self.projector = mlp(c["feat"], 32, c["proj"])

    def forward(self, x):
        return self.projector(self.encoder(x))


def augment(x):
    return x * (1 + 0.1 * torch.randn_like(x)) + 0.05 * torch.randn_like(x)


def regression_loss(p, z):
    p = F.normalize(p, dim=-1)
    z = F.normalize(z, dim=-1)
    return 2 - 2 * (p * z).sum(dim=-1)


class BYOL:
    def __init__(self, c):
        self.online = Siamese(c)
        self.predictor = mlp(c["proj"], c["pred_hidden"], c["proj"])
        self.target = copy.deepcopy(self.online).requires_grad_(False)
        params = list(self.online.parameters()) + list(self.predictor.parameters())
        self.opt = torch.optim.Adam(params, lr=c["lr"])
        self.c = c

    @torch.no_grad()
    def update_target(self, step, total):
        tau = 1 - (1 - self.c["tau_base"]) * (math.cos(math.pi * step / total) + 1) / 2
        for po, pt in zip(self.online.parameters(), self.target.parameters()):
            pt.mul_(tau).add_(po.detach(), alpha=1 - tau)

    def train_step(self, x):
        v1, v2 = augment(x), augment(x)
        p1, p2 = self.predictor(self.online(v1)), self.predictor(self.online(v2))
        with torch.no_grad():
            z1, z2 = self.target(v1), self.target(v2)
        loss = regression_loss(p1, z2) + regression_loss(p2, z1)
        self.opt.zero_grad()
        loss.backward()  # bug: GG501
        self.opt.step()
        return loss


def main():
    torch.manual_seed(0)
    data = DataLoader(TensorDataset(torch.randn(32, CONF["in_dim"])), batch_size=CONF["batch"], shuffle=True)
    learner = BYOL(CONF)
    total = CONF["epochs"] * len(data)
    step = 0
    for epoch in range(CONF["epochs"]):
        for (x,) in data:
            loss = learner.train_step(x)
            learner.update_target(step, total)
            step += 1
        print(f"epoch {epoch}: byol loss {loss.mean().item():.4f}")


if __name__ == "__main__":
    try:
        main()
    except RuntimeError as err:
        print(f"BUGGY: {str(err).splitlines()[0]}")
        raise SystemExit(0)
    raise SystemExit("NO BUG")
