"""GG102 - backward() on a number that went through .item().

A metric-learning loss module returns its statistics (mean positive / negative
similarity, precision) as Python floats via .item(), together with the loss
tensor. The loss module returns them in the order (pos_sim, neg_sim, prec, loss)
but the trainer unpacks them as (loss, prec, pos_sim, neg_sim), so the name
`loss` ends up bound to the float produced by .item(). Calling backward() on it
fails with:
    AttributeError: 'float' object has no attribute 'backward'

Modelled on: https://github.com/bnu-wangxun/Deep_Metric/issues/26
(return order of the Weight loss did not match what trainer.py unpacked).
"""
import argparse
import sys
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


def get_args(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--dim", type=int, default=32)
    p.add_argument("--margin", type=float, default=0.5)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--epochs", type=int, default=1)
    p.add_argument("--batch-size", type=int, default=16)
    return p.parse_args(argv)


class Embedder(nn.Module):
    def __init__(self, in_dim=48, dim=32):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(in_dim, 64), nn.BatchNorm1d(64), nn.ReLU(), nn.Linear(64, dim))

    def forward(self, x):
        return F.normalize(self.net(x), dim=1)


class ContrastiveWeightLoss(nn.Module):
    def __init__(self, margin=0.5):
        super().__init__()
        self.margin = margin

    def forward(self, emb, labels):
        sim = emb @ emb.t()
        same = labels[:, None] == labels[None, :]
        eye = torch.eye(len(labels), dtype=torch.bool)
        pos = sim[same & ~eye]
        neg = sim[~same]
        pos_term = (1 - pos).clamp(min=0).mean()
        neg_term = (neg - self.margin).clamp(min=0).mean()
        loss = pos_term + neg_term
        prec = (neg < self.margin).float().mean().item()
        mean_pos_sim = pos.mean().item()
        mean_neg_sim = neg.mean().item()
        return mean_pos_sim, mean_neg_sim, prec, loss


def train(epoch, model, criterion, optimizer, loader):
    model.train()
    for i, (inputs, labels) in enumerate(loader):
        embed_feat = model(inputs)
        loss, inter_, dist_ap, dist_an = criterion(embed_feat, labels)
        optimizer.zero_grad()
        loss.backward()  # bug: GG102
        optimizer.step()
        if i % 2 == 0:
            print(f"[epoch {epoch} it {i}] loss {float(loss):.4f} prec {inter_:.3f} "
                  f"pos {dist_ap:.3f} neg {dist_an:.3f}")


def main(argv=None):
    args = get_args(argv or [])
    torch.manual_seed(0)
    x = torch.randn(64, 48)
    y = torch.randint(0, 4, (64,))
    loader = DataLoader(TensorDataset(x, y), batch_size=args.batch_size, shuffle=True, drop_last=True)
    model = Embedder(dim=args.dim)
    criterion = ContrastiveWeightLoss(args.margin)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    for epoch in range(args.epochs):
        train(epoch, model, criterion, optimizer, loader)


if __name__ == "__main__":
    try:
        main()
    except (RuntimeError, AttributeError) as err:
        print(f"BUGGY: {str(err).splitlines()[0]}")
        sys.exit(0)
    raise SystemExit("NO BUG")
