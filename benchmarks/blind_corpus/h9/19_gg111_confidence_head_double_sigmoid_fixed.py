"""GG111 (fixed) - the confidence head outputs logits; sigmoid only in forward().

A keypoint-matching network has a small confidence head that predicts whether a
match is correct. The fix drops nn.Sigmoid from the head, so BCEWithLogitsLoss
gets real logits, and applies torch.sigmoid only where probabilities are wanted
(forward). Negative examples' loss now goes well below log(2).

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
        self.token = nn.Sequential(nn.Linear(dim, 1))
        self.loss_fn = nn.BCEWithLogitsLoss(reduction="none")

    def forward(self, desc):
        return torch.sigmoid(self.token(desc)).squeeze(-1)

    def loss(self, desc, correct):
        logit = self.token(desc).squeeze(-1)
        return self.loss_fn(logit, correct.float())  # fixed: GG111


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
    assert neg_min < math.log(2)
    print("FIXED: ok")
