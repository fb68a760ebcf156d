"""GG111 - sigmoid output fed to BCEWithLogitsLoss (sigmoid applied twice).

A keypoint-matching network has a small confidence head that predicts whether a
match is correct. The head is nn.Sequential(nn.Linear(dim, 1), nn.Sigmoid()), and
its loss() method feeds that probability to nn.BCEWithLogitsLoss, which applies
another sigmoid. Nothing raises; silently the "logit" is stuck in [0, 1], so the
loss of a negative example can never go below log(2) ~= 0.693 and the head cannot
become confident. Shown below: after training, every negative example's loss is
still >= log(2).

Modelled on: https://github.com/cvg/glue-factory/issues/89
"""
import math

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

CONF = {"dim": 32, "lr": 1e-2, "epochs": 10, "batch_size": 32, "n": 256}


class TokenConfidence(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.token = nn.Sequential(nn.Linear(dim, 1), nn.Sigmoid())
        self.loss_fn = nn.BCEWithLogitsLoss(reduction="none")

    def forward(self, desc):
        return self.token(desc).squeeze(-1)

    def loss(self, desc, correct):
        logit = self.token(desc).squeeze(-1)
        return self.loss_fn(logit, correct.float())  # bug: GG111


class Matcher(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.desc_net = nn.Sequential(nn.Linear(dim, dim), nn.ReLU(), nn.Linear(dim, dim))
        self.confidence = TokenConfidence(dim)

    def forward(self, x):
        return self.desc_net(x)


def train(model, loader, optimizer, epochs):
    for epoch in range(epochs):
        for x, correct in loader:
            desc = model(x)
            loss = model.confidence.loss(desc, correct).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        if epoch % 3 == 0:
            print(f"epoch {epoch} conf loss {loss.item():.4f}")


def main():
    torch.manual_seed(0)
    x = torch.randn(CONF["n"], CONF["dim"])
    correct = (x[:, 0] + x[:, 1] > 0).long()
    model = Matcher(CONF["dim"])
    optimizer = torch.optim.Adam(model.parameters(), lr=CONF["lr"])
    loader = DataLoader(TensorDataset(x, correct), batch_size=CONF["batch_size"], shuffle=True)
    train(model, loader, optimizer, CONF["epochs"])
    with torch.no_grad():
        per_ex = model.confidence.loss(model(x), correct)
    neg_min = per_ex[correct == 0].min().item()
    print(f"min loss over negative examples: {neg_min:.4f} (log 2 = {math.log(2):.4f})")
    return neg_min


if __name__ == "__main__":
    neg_min = main()
    if neg_min >= math.log(2) - 1e-6:
        print(f"BUGGY: negatives' BCE never drops below log(2)={math.log(2):.3f}; sigmoid applied twice")
        raise SystemExit(0)
    raise SystemExit("NO BUG")
