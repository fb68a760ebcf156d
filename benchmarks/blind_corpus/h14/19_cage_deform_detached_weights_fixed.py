"""GG608 - an optimizer steps a network the backpropagated loss never reaches (FIXED).

Fix: the .detach() on the predicted weights in deform() is removed.

A cage-based deformation model has two networks with their own optimizers:
a cage predictor and a weight predictor.  Inside deform() the predicted
weights are .detach()ed (a leftover from a debugging session), so neither the
reconstruction loss nor the weight regulariser reaches the weight network.
The training step still calls weight_optimizer.step(), which silently does
nothing: the weight network's parameters never change, whatever the
regulariser's coefficient.

Modelled on: https://github.com/yifita/deep_cage/issues/16
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

OPT = {"n_pts": 64, "n_cage": 8, "lr": 1e-3, "mvc_weight": 10.0, "steps": 4, "batch": 4}


class CageNet(nn.Module):
    def __init__(self, n_cage):
        super().__init__()
        self.n_cage = n_cage
        self.enc = nn.Sequential(nn.Linear(3, 32), nn.ReLU(), nn.Linear(32, 32))
        self.dec = nn.Linear(32, n_cage * 3)

    def forward(self, pts):
        g = self.enc(pts).max(dim=1).values
        return self.dec(g).view(-1, self.n_cage, 3)


class WeightNet(nn.Module):
    def __init__(self, n_cage):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(3, 32), nn.ReLU(), nn.Linear(32, n_cage))

    def forward(self, pts):
        return F.softmax(self.net(pts), dim=-1)


def deform(pts, cage, new_cage, weights):
    offset = new_cage - cage
    return pts + torch.bmm(weights, offset), weights


def mvc_reg_loss(weights):
    return (weights.clamp(max=0) ** 2).sum(-1).mean() + (weights.sum(-1) - 1).pow(2).mean() + weights.var(-1).mean()


class DeformTrainer:
    def __init__(self, opt):
        self.opt = opt
        self.cage_net, self.weight_net = CageNet(opt["n_cage"]), WeightNet(opt["n_cage"])
        self.cage_optimizer = torch.optim.Adam(self.cage_net.parameters(), lr=opt["lr"])
        self.weight_optimizer = torch.optim.Adam(self.weight_net.parameters(), lr=opt["lr"])
        self.loss = {}

    def train_step(self, source, target):
        cage = self.cage_net(source)
        new_cage = self.cage_net(target)
        deformed, w = deform(source, cage, new_cage, self.weight_net(source))
        self.loss["recon"] = F.mse_loss(deformed, target)
        self.loss["WREG"] = mvc_reg_loss(w) * self.opt["mvc_weight"]
        total = sum(self.loss.values())
        self.cage_optimizer.zero_grad()
        self.weight_optimizer.zero_grad()
        total.backward()
        self.cage_optimizer.step()
        self.weight_optimizer.step()  # fixed: GG608 (deform() no longer detaches the weights)
        return {k: v.item() for k, v in self.loss.items()}


def main():
    torch.manual_seed(0)
    trainer = DeformTrainer(OPT)
    before = [p.detach().clone() for p in trainer.weight_net.parameters()]
    for step in range(OPT["steps"]):
        src = torch.randn(OPT["batch"], OPT["n_pts"], 3)
        tgt = src * 1.2 + 0.1 * torch.randn_like(src)
        logs = trainer.train_step(src, tgt)
        print(f"step {step}: " + " ".join(f"{k}={v:.4f}" for k, v in logs.items()))
    return all(torch.equal(b, p) for b, p in zip(before, trainer.weight_net.parameters()))


if __name__ == "__main__":
    unchanged = main()
    assert not unchanged
    print("FIXED: ok")
