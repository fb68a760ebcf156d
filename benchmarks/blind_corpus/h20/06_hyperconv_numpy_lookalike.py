"""GG502 look-alike - .numpy() on model outputs, but only after detaching / under no_grad.

The session recommender is trained with torch ops only; the evaluation helper
turns scores into numpy arrays to compute HR@K and MRR@K. It runs under
torch.no_grad() and also detaches, so .numpy() is legal.

Modelled on: https://github.com/xiaxin1998/DHCN/issues/8
"""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

CONFIG = {"n_items": 40, "emb_size": 16, "layers": 2, "lr": 1e-3, "topk": 10}


class HyperConv(nn.Module):
    def __init__(self, layers):
        super().__init__()
        self.layers = layers

    def forward(self, adjacency, embedding):
        outs = [embedding]
        for _ in range(self.layers):
            outs.append(adjacency @ outs[-1])
        return torch.stack(outs).sum(0)


class SessionModel(nn.Module):
    def __init__(self, n_items, emb_size, layers):
        super().__init__()
        adj = torch.rand(n_items, n_items)
        self.register_buffer("adjacency", adj / adj.sum(1, keepdim=True))
        self.embedding = nn.Embedding(n_items, emb_size)
        self.conv = HyperConv(layers)

    def forward(self, sessions):
        item_emb = self.conv(self.adjacency, self.embedding.weight)
        return item_emb[sessions].mean(1) @ item_emb.t()


def evaluate(model, sessions, targets, topk):
    model.eval()
    hit, mrr = [], []
    with torch.no_grad():
        scores = model(sessions)
        top = scores.topk(topk, dim=1).indices.detach().cpu().numpy()
    tgt = targets.numpy()
    for row, t in zip(top, tgt):
        hit.append(np.isin(t, row))
        pos = np.where(row == t)[0]
        mrr.append(0.0 if len(pos) == 0 else 1.0 / (pos[0] + 1))
    return float(np.mean(hit)) * 100, float(np.mean(mrr)) * 100


def main():
    cfg = CONFIG
    torch.manual_seed(0)
    model = SessionModel(cfg["n_items"], cfg["emb_size"], cfg["layers"])
    opt = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
    sessions = torch.randint(0, cfg["n_items"], (16, 4))
    targets = torch.randint(0, cfg["n_items"], (16,))
    for step in range(3):
        model.train()
        opt.zero_grad()
        loss = F.cross_entropy(model(sessions), targets)
        loss.backward()
        opt.step()
    hr, mrr = evaluate(model, sessions, targets, cfg["topk"])
    print(f"HR@{cfg['topk']}={hr:.1f} MRR@{cfg['topk']}={mrr:.1f}")


if __name__ == "__main__":
    main()
    print("OK")
