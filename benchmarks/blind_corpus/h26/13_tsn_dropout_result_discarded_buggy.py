"""GG602 - a module is called in forward() and its result is thrown away.

Temporal-segment style video classifier: a small 2D CNN backbone runs on every
segment, the features go through dropout and a new fc layer, and the segment
scores are averaged (the consensus).  forward() calls self.dropout(base_out) but
never assigns the result, so dropout never acts: two forward passes in training
mode give exactly the same scores.
No error is raised (silent).

Modelled on: https://github.com/yjxiong/tsn-pytorch/issues/41
"""
import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description="TSN-like action recognition (toy)")
    parser.add_argument("--num_class", type=int, default=5)
    parser.add_argument("--num_segments", type=int, default=3)
    parser.add_argument("--dropout", type=float, default=0.8)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--batch_size", type=int, default=4)
    return parser.parse_args(argv)


class ConsensusModule(nn.Module):
    def __init__(self, consensus_type="avg"):
        super().__init__()
        self.consensus_type = consensus_type

    def forward(self, x):
        if self.consensus_type == "avg":
            return x.mean(dim=1, keepdim=True)
        return x


class TSN(nn.Module):
    def __init__(self, num_class, num_segments, dropout=0.8, feature_dim=32):
        super().__init__()
        self.num_segments = num_segments
        self.base_model = nn.Sequential(
            nn.Conv2d(3, 16, 3, stride=2, padding=1), nn.BatchNorm2d(16), nn.ReLU(inplace=True),
            nn.Conv2d(16, feature_dim, 3, stride=2, padding=1), nn.BatchNorm2d(feature_dim),
            nn.ReLU(inplace=True), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
        )
        self.dropout = nn.Dropout(p=dropout)
        self.new_fc = nn.Linear(feature_dim, num_class)
        self.consensus = ConsensusModule("avg")

    def forward(self, input):
        sample_len = 3
        base_out = self.base_model(input.view((-1, sample_len) + input.size()[-2:]))
        if self.dropout.p > 0:
            self.dropout(base_out)  # bug: GG602
        base_out = self.new_fc(base_out)
        base_out = base_out.view((-1, self.num_segments) + base_out.size()[1:])
        output = self.consensus(base_out)
        return output.squeeze(1)


def train(train_loader, model, criterion, optimizer, epoch):
    model.train()
    for i, (clips, target) in enumerate(train_loader):
        output = model(clips)
        loss = criterion(output, target)
        optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 20)
        optimizer.step()
        print(f"Epoch: [{epoch}][{i}/{len(train_loader)}]\tLoss {loss.item():.4f}")


def main(argv=None):
    args = parse_args(argv)
    torch.manual_seed(0)
    clips = torch.randn(12, args.num_segments * 3, 16, 16)
    labels = torch.randint(0, args.num_class, (12,))
    loader = DataLoader(TensorDataset(clips, labels), batch_size=args.batch_size, shuffle=True)
    model = TSN(args.num_class, args.num_segments, dropout=args.dropout)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    criterion = nn.CrossEntropyLoss()
    for epoch in range(args.epochs):
        train(loader, model, criterion, optimizer, epoch)
    return model, clips[:4]


def dropout_is_active(model, clips):
    """In train mode with p=0.8, two passes over the same clips should differ."""
    model.train()
    bn_state = {k: v.clone() for k, v in model.state_dict().items()}
    with torch.no_grad():
        a, b = model(clips), model(clips)
    model.load_state_dict(bn_state)
    return not torch.allclose(a, b)


if __name__ == "__main__":
    model, clips = main([])
    if not dropout_is_active(model, clips):
        print("BUGGY: dropout output is discarded - two train-mode passes give identical scores")
        raise SystemExit(0)
    raise SystemExit("NO BUG")
