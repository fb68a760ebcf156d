"""VQA-style training engine that validates after every epoch.

Modelled on: https://github.com/MILVLG/mcan-vqa/issues/26

The reporter noticed that the engine calls net.train() once, before the
epoch loop, while the per-epoch evaluation puts the network into eval
mode and nothing switches it back. From the second epoch on, dropout is
disabled (and batch-norm would use running statistics) while training.
In this file the evaluation runs on the very network being trained, so
the leak is real.

Fixed version: net.train() is called at the start of every epoch.
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


class FusionNet(nn.Module):
    def __init__(self, img_dim=12, q_dim=10, hidden=32, answers=6, dropout=0.5):
        super().__init__()
        self.img_proj = nn.Linear(img_dim, hidden)
        self.q_proj = nn.Linear(q_dim, hidden)
        self.drop = nn.Dropout(dropout)
        self.classifier = nn.Linear(hidden, answers)

    def forward(self, img, q):
        fused = torch.relu(self.img_proj(img)) * torch.relu(self.q_proj(q))
        return self.classifier(self.drop(fused))


class Execution:
    def __init__(self, cfg):
        self.cfg = cfg
        self.mode_log = []

    def eval(self, net, dataset):
        net.eval()
        correct = 0
        with torch.no_grad():
            for img, q, ans in dataset:
                correct += (net(img, q).argmax(-1) == ans).sum().item()
        return correct

    def train(self, net, train_set, val_set):
        optim = torch.optim.Adam(net.parameters(), lr=self.cfg.lr)
        for epoch in range(self.cfg.epochs):
            net.train()
            for img, q, ans in train_set:
                self.mode_log.append((epoch, net.training))
                optim.zero_grad()
                F.cross_entropy(net(img, q), ans).backward()
                optim.step()
            self.eval(net, val_set)


def synthetic(n, g):
    return [(torch.randn(8, 12, generator=g), torch.randn(8, 10, generator=g), torch.randint(0, 6, (8,), generator=g)) for _ in range(n)]


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--lr", type=float, default=1e-3)
    cfg = parser.parse_args([])
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    engine = Execution(cfg)
    engine.train(FusionNet(), synthetic(3, g), synthetic(2, g))
    eval_mode_batches = [e for e, training in engine.mode_log if not training]
    if eval_mode_batches:
        print(f"BUGGY: {len(eval_mode_batches)} training batches ran with the model in eval mode")
    else:
        print("FIXED: ok")
