"""Fixed: human-activity-recognition CNN returning logits, trained with nn.CrossEntropyLoss.

Modelled on: https://github.com/jindongwang/Deep-learning-activity-recognition/issues/10

The network returns ``F.softmax(out, dim=1)`` and the training loop feeds that
to ``nn.CrossEntropyLoss``, which applies ``log_softmax`` itself.  Softmax is
applied twice: the inputs of the loss are squeezed into [0, 1], gradients are
tiny, and the loss can never go below log(e + C - 1) - 1 (about 1.04 for six
activities) even for a perfect classifier.  Nothing crashes; training is just
silently crippled.

Fix (as the maintainer agreed): return the raw logits from ``forward`` and let
``nn.CrossEntropyLoss`` do the (log-)softmax.
"""
import argparse
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Network(nn.Module):
    def __init__(self, n_channels=9, n_classes=6, seq_len=32):
        super().__init__()
        self.layer1 = nn.Sequential(nn.Conv1d(n_channels, 16, 5, padding=2), nn.ReLU(), nn.MaxPool1d(2))
        self.layer2 = nn.Sequential(nn.Conv1d(16, 32, 5, padding=2), nn.ReLU(), nn.MaxPool1d(2))
        self.fc1 = nn.Linear(32 * (seq_len // 4), 64)
        self.fc2 = nn.Linear(64, n_classes)

    def forward(self, x):
        out = self.layer2(self.layer1(x))
        out = out.reshape(out.size(0), -1)
        out = F.relu(self.fc1(out))
        return self.fc2(out)  # raw logits; CrossEntropyLoss applies log_softmax


def load_har(n=24, n_channels=9, seq_len=32, n_classes=6, seed=0):
    g = torch.Generator().manual_seed(seed)
    y = torch.arange(n) % n_classes
    templates = torch.randn(n_classes, n_channels, seq_len, generator=g)
    x = templates[y] + 0.3 * torch.randn(n, n_channels, seq_len, generator=g)
    return x, y


def train(model, optimizer, x, y, epochs, batch_size=12):
    criterion = nn.CrossEntropyLoss()
    for _ in range(epochs):
        model.train()
        for i in range(0, len(x), batch_size):
            sample, target = x[i:i + batch_size], y[i:i + batch_size]
            output = model(sample)
            loss = criterion(output, target)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    model.eval()
    with torch.no_grad():
        return criterion(model(x), y).item()


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--nepoch", type=int, default=6)
    parser.add_argument("--lr", type=float, default=1e-2)
    args = parser.parse_args(argv)
    torch.manual_seed(0)
    x, y = load_har()
    model = Network()
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    return train(model, optimizer, x, y, args.nepoch)


if __name__ == "__main__":
    final_loss = main([])
    floor = math.log(math.e + 6 - 1) - 1
    print(f"final train loss {final_loss:.3f}, floor for probability inputs {floor:.3f}")
    assert final_loss < floor
    print("FIXED: ok")
