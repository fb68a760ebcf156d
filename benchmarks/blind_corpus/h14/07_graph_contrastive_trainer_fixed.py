"""GG601 - optimizer stepped every epoch but gradients never cleared (FIXED).

Fix: self.optimizer.zero_grad() before loss.backward().

A graph contrastive clustering trainer (two MLP encoders over smoothed node
attributes) keeps its optimizer on self and calls loss.backward() and
self.optimizer.step() every epoch, but never zero_grad().  Every .grad keeps
the sum of all previous epochs' gradients, so each update uses stale
gradients and the model does not converge.  Silent: no error; the
gradient seen at epoch 2 equals epoch 1's gradient plus epoch 2's own.

Modelled on: https://github.com/yueliu1999/HSAN/issues/6
"""
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F

OPT = {"n_nodes": 40, "n_feat": 16, "hidden": 32, "t": 2, "lr": 1e-3, "epochs": 3, "tau": 0.5}


def smooth_features(x, adj, t):
    deg = adj.sum(1, keepdim=True).clamp(min=1)
    norm_adj = adj / deg
    for _ in range(t):
        x = 0.5 * x + 0.5 * norm_adj @ x
    return x


class Encoder(nn.Module):
    def __init__(self, in_dim, hidden):
        super().__init__()
        self.layers = nn.Sequential(nn.Linear(in_dim, hidden), nn.ReLU(), nn.Linear(hidden, hidden))

    def forward(self, x):
        return F.normalize(self.layers(x), dim=1)


class ContrastiveModel(nn.Module):
    def __init__(self, in_dim, hidden):
        super().__init__()
        self.enc1 = Encoder(in_dim, hidden)
        self.enc2 = Encoder(in_dim, hidden)

    def forward(self, x):
        return self.enc1(x), self.enc2(x)


def hard_sample_loss(z1, z2, tau):
    sim = z1 @ z2.t() / tau
    weights = torch.sigmoid(sim.detach())
    targets = torch.arange(z1.size(0))
    return F.cross_entropy(sim * weights, targets)


class Trainer:
    def __init__(self, model, opt):
        self.model = model
        self.opt = opt
        self.optimizer = torch.optim.Adam(model.parameters(), lr=opt["lr"])
        self.history = []

    def train_step(self, x):
        self.model.train()
        z1, z2 = self.model(x)
        loss = hard_sample_loss(z1, z2, self.opt["tau"])
        self.optimizer.zero_grad()  # fixed: GG601
        loss.backward()
        self.optimizer.step()
        self.history.append(loss.item())
        return loss


def true_gradient(model, x, tau):
    """Gradient of one epoch's loss alone, from a throw-away copy."""
    m = copy.deepcopy(model)
    m.zero_grad()
    z1, z2 = m(x)
    hard_sample_loss(z1, z2, tau).backward()
    return m.enc1.layers[0].weight.grad.clone()


def main():
    torch.manual_seed(0)
    adj = (torch.rand(OPT["n_nodes"], OPT["n_nodes"]) > 0.8).float()
    adj = ((adj + adj.t()) > 0).float()
    x = smooth_features(torch.randn(OPT["n_nodes"], OPT["n_feat"]), adj, OPT["t"])
    model = ContrastiveModel(OPT["n_feat"], OPT["hidden"])
    trainer = Trainer(model, OPT)

    trainer.train_step(x)
    g_epoch1 = model.enc1.layers[0].weight.grad.clone()
    g_alone = true_gradient(model, x, OPT["tau"])
    trainer.train_step(x)
    g_seen = model.enc1.layers[0].weight.grad.clone()
    for _ in range(OPT["epochs"] - 2):
        trainer.train_step(x)
    print("losses:", [round(v, 4) for v in trainer.history])
    return g_seen, g_alone, g_epoch1


if __name__ == "__main__":
    g_seen, g_alone, g_epoch1 = main()
    assert torch.allclose(g_seen, g_alone, atol=1e-6)
    print("FIXED: ok")
