"""GG402 (fixed version): requires_grad=True requested on an integer tensor.

Mistake: an age estimator classifies into one bin per year, but the user wants
an L1 loss on the predicted age.  The predicted age comes from
``torch.max(logits, 1)`` (an int64 index tensor); since it has no grad, the
user flips ``requires_grad = True`` on it to "make the loss trainable".  Integer
tensors cannot carry gradients.
torch raises: RuntimeError: only Tensors of floating point and complex dtype can
require gradients
Fix: use the expected age under the softmax (a float, differentiable) instead
of forcing requires_grad on the argmax index.
Modelled on: https://github.com/pytorch/pytorch/issues/95110
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


def get_parser():
    p = argparse.ArgumentParser(description="age estimation as classification + L1")
    p.add_argument("--max-age", type=int, default=20)
    p.add_argument("--feat-dim", type=int, default=32)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--ce-weight", type=float, default=1.0)
    p.add_argument("--l1-weight", type=float, default=0.1)
    return p


class AgeNet(nn.Module):
    def __init__(self, feat_dim, max_age):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(feat_dim, 64), nn.ReLU(), nn.Dropout(0.1), nn.Linear(64, 64), nn.ReLU())
        self.age_head = nn.Linear(64, max_age + 1)

    def forward(self, x):
        return self.age_head(self.backbone(x))


class AgeTrainer:
    def __init__(self, model, optimizer, args):
        self.model = model
        self.optimizer = optimizer
        self.args = args
        self.l1 = nn.L1Loss()

    def predicted_age(self, logits):
        bins = torch.arange(logits.size(1), dtype=logits.dtype, device=logits.device)
        age = (F.softmax(logits, dim=1) * bins).sum(1)  # fixed: GG402
        return age

    def compute_loss(self, logits, ages):
        ce = F.cross_entropy(logits, ages)
        mae = self.l1(self.predicted_age(logits).float(), ages.float())
        return self.args.ce_weight * ce + self.args.l1_weight * mae, mae

    def train_epoch(self, loader, epoch):
        self.model.train()
        total_mae = 0.0
        for step, (feats, ages) in enumerate(loader):
            logits = self.model(feats)
            loss, mae = self.compute_loss(logits, ages)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            total_mae += mae.item()
        print(f"epoch {epoch}: train MAE {total_mae / (step + 1):.2f} years")


def main():
    args = get_parser().parse_args([])
    torch.manual_seed(0)
    feats = torch.randn(64, args.feat_dim)
    ages = torch.randint(0, args.max_age + 1, (64,))
    loader = DataLoader(TensorDataset(feats, ages), batch_size=args.batch_size, shuffle=True)
    model = AgeNet(args.feat_dim, args.max_age)
    trainer = AgeTrainer(model, torch.optim.Adam(model.parameters(), lr=args.lr), args)
    for epoch in range(args.epochs):
        trainer.train_epoch(loader, epoch)


if __name__ == "__main__":
    main()
    print("FIXED: ok")
