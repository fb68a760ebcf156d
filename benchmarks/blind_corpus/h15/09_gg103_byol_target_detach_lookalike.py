"""GG103 look-alike - .detach() and .data on the target branch only.

Category: GG103 (look-alike, correct code).
BYOL-style self-supervised step: the target projection is detached and the
target network is updated by an EMA through .data, but the loss still
depends on the online branch, so backward() reaches the online encoder and
predictor.
Modelled on: none found (BYOL training-loop idiom)
"""
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


def mlp(d_in, d_h, d_out):
    return nn.Sequential(nn.Linear(d_in, d_h), nn.BatchNorm1d(d_h), nn.ReLU(), nn.Linear(d_h, d_out))


class BYOL(nn.Module):
    def __init__(self, d_in=24, d_rep=16, d_proj=8, tau=0.99):
        super().__init__()
        self.online_encoder = nn.Sequential(nn.Linear(d_in, d_rep), nn.ReLU())
        self.online_projector = mlp(d_rep, 32, d_proj)
        self.predictor = mlp(d_proj, 32, d_proj)
        self.target_encoder = copy.deepcopy(self.online_encoder)
        self.target_projector = copy.deepcopy(self.online_projector)
        for p in list(self.target_encoder.parameters()) + list(self.target_projector.parameters()):
            p.requires_grad = False
        self.tau = tau

    @staticmethod
    def regression_loss(p, z):
        return 2 - 2 * F.cosine_similarity(p, z, dim=-1).mean()

    def forward(self, v1, v2):
        p1 = self.predictor(self.online_projector(self.online_encoder(v1)))
        p2 = self.predictor(self.online_projector(self.online_encoder(v2)))
        z1 = self.target_projector(self.target_encoder(v1)).detach()
        z2 = self.target_projector(self.target_encoder(v2)).detach()
        return self.regression_loss(p1, z2) + self.regression_loss(p2, z1)

    def update_target(self):
        pairs = zip(list(self.online_encoder.parameters()) + list(self.online_projector.parameters()),
                    list(self.target_encoder.parameters()) + list(self.target_projector.parameters()))
        for online, target in pairs:
            target.data = self.tau * target.data + (1 - self.tau) * online.data


def augment(x):
    return x + 0.1 * torch.randn_like(x)


def train_epoch(model, loader, optimizer):
    total = 0.0
    for (x,) in loader:
        loss = model(augment(x), augment(x))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        model.update_target()
        total += loss.item()
    return total / len(loader)


def main():
    torch.manual_seed(0)
    model = BYOL()
    trainable = [p for p in model.parameters() if p.requires_grad]
    before = model.online_encoder[0].weight.detach().clone()
    optimizer = torch.optim.SGD(trainable, lr=0.05)
    loader = DataLoader(TensorDataset(torch.randn(64, 24)), batch_size=16, shuffle=True)
    for epoch in range(2):
        print(f"epoch {epoch}: loss {train_epoch(model, loader, optimizer):.4f}")
    assert not torch.equal(before, model.online_encoder[0].weight)


if __name__ == "__main__":
    main()
    print("OK")
