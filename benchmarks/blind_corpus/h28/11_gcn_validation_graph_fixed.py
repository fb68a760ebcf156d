"""Full-graph GCN node classification with per-epoch validation.

Modelled on: https://github.com/dmlc/dgl/issues/745

Fixed version: evaluate() runs the validation forward under torch.no_grad(),
so no autograd graph is built and the kept logits hold plain values only.
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)


def build_graph(num_nodes, num_feats, num_classes, seed=0):
    g = torch.Generator().manual_seed(seed)
    adj = (torch.rand(num_nodes, num_nodes, generator=g) < 0.05).float()
    adj = ((adj + adj.T) > 0).float() + torch.eye(num_nodes)
    deg_inv_sqrt = adj.sum(1).pow(-0.5)
    norm_adj = deg_inv_sqrt[:, None] * adj * deg_inv_sqrt[None, :]
    features = torch.randn(num_nodes, num_feats, generator=g)
    labels = torch.randint(0, num_classes, (num_nodes,), generator=g)
    perm = torch.randperm(num_nodes, generator=g)
    train_mask = torch.zeros(num_nodes, dtype=torch.bool)
    val_mask = torch.zeros(num_nodes, dtype=torch.bool)
    train_mask[perm[: num_nodes // 2]] = True
    val_mask[perm[num_nodes // 2:]] = True
    return norm_adj, features, labels, train_mask, val_mask


class GraphConv(nn.Module):
    def __init__(self, in_feats, out_feats):
        super().__init__()
        self.linear = nn.Linear(in_feats, out_feats)

    def forward(self, adj, h):
        return adj @ self.linear(h)


class GCN(nn.Module):
    def __init__(self, in_feats, hidden, n_classes, dropout):
        super().__init__()
        self.layers = nn.ModuleList([GraphConv(in_feats, hidden), GraphConv(hidden, n_classes)])
        self.dropout = nn.Dropout(dropout)

    def forward(self, adj, features):
        h = features
        for i, layer in enumerate(self.layers):
            if i:
                h = self.dropout(F.relu(h))
            h = layer(adj, h)
        return h


def evaluate(model, adj, features, labels, mask):
    model.eval()
    with torch.no_grad():
        logits = model(adj, features)
        logits = logits[mask]
    correct = (logits.argmax(1) == labels[mask]).sum().item()
    return correct / int(mask.sum()), logits


def main(args):
    adj, features, labels, train_mask, val_mask = build_graph(
        args.num_nodes, args.in_feats, args.n_classes)
    model = GCN(args.in_feats, args.hidden, args.n_classes, args.dropout)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr, weight_decay=5e-4)
    kept = []
    for epoch in range(args.n_epochs):
        model.train()
        logits = model(adj, features)
        loss = F.cross_entropy(logits[train_mask], labels[train_mask])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        acc, val_logits = evaluate(model, adj, features, labels, val_mask)
        kept.append(val_logits)
    return kept


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--num-nodes", type=int, default=60)
    p.add_argument("--in-feats", type=int, default=8)
    p.add_argument("--hidden", type=int, default=16)
    p.add_argument("--n-classes", type=int, default=3)
    p.add_argument("--dropout", type=float, default=0.5)
    p.add_argument("--lr", type=float, default=1e-2)
    p.add_argument("--n-epochs", type=int, default=3)
    torch.manual_seed(0)
    kept = main(p.parse_args([]))
    alive = sum(v.grad_fn is not None for v in kept)
    assert alive == 0
    print("FIXED: ok")
