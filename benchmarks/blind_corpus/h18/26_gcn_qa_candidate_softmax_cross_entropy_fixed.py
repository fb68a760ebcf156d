"""GG110 (fixed) - the QA model returns raw candidate scores to nn.CrossEntropyLoss.

Same Transformer-GCN style QA script; the trailing softmax is removed from
forward(), so CrossEntropyLoss gets logits and the training loss on the easy
task drops well below the log(1 + (C-1)/e) floor of the double-softmax version.

Modelled on: https://github.com/bowang-lab/Transformer-GCN-QA/pull/32
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

CONFIG = {"n_candidates": 4, "feat_dim": 12, "hidden": 32, "n_gcn_layers": 2, "lr": 1e-2, "steps": 80, "batch": 16}


class GCNLayer(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.self_loop = nn.Linear(dim, dim)
        self.neigh = nn.Linear(dim, dim)

    def forward(self, h, adj):
        deg = adj.sum(-1, keepdim=True).clamp(min=1)
        return F.relu(self.self_loop(h) + self.neigh(adj @ h) / deg)


class TransformerGCNQA(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(cfg["feat_dim"] * 2, cfg["hidden"]), nn.Tanh())
        self.gcn = nn.ModuleList([GCNLayer(cfg["hidden"]) for _ in range(cfg["n_gcn_layers"])])
        self.scorer = nn.Linear(cfg["hidden"], 1)

    def forward(self, query, candidates, adj):
        q = query.unsqueeze(1).expand_as(candidates)
        h = self.encoder(torch.cat([candidates, q], dim=-1))
        for layer in self.gcn:
            h = layer(h, adj)
        scores = self.scorer(h).squeeze(-1)
        return scores


def make_batch(cfg, generator):
    b, c, d = cfg["batch"], cfg["n_candidates"], cfg["feat_dim"]
    query = torch.randn(b, d, generator=generator)
    candidates = torch.randn(b, c, d, generator=generator)
    answer = torch.randint(0, c, (b,), generator=generator)
    candidates[torch.arange(b), answer] = query + 0.1 * torch.randn(b, d, generator=generator)
    adj = torch.ones(b, c, c) - torch.eye(c)
    return query, candidates, adj, answer


def train(model, optimizer, criterion, cfg):
    g = torch.Generator().manual_seed(1)
    fixed_batch = make_batch(cfg, g)
    losses = []
    for step in range(cfg["steps"]):
        model.train()
        query, candidates, adj, answer = fixed_batch
        optimizer.zero_grad()
        output = model(query, candidates, adj)
        loss = criterion(output, answer)  # fixed: GG110
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        if step % 50 == 0:
            print(f"step {step}: loss {loss.item():.4f}")
    return losses


def main():
    torch.manual_seed(0)
    cfg = CONFIG
    model = TransformerGCNQA(cfg)
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
    criterion = nn.CrossEntropyLoss()
    losses = train(model, optimizer, criterion, cfg)
    floor = math.log(1 + (cfg["n_candidates"] - 1) / math.e)
    return min(losses), floor


if __name__ == "__main__":
    best, floor = main()
    assert best < floor, (best, floor)
    print("FIXED: ok")
