"""GG602 look-alike - calls in forward() whose return value is unused on purpose.

Correct code: in the attention block, `self.act(hidden)` is an nn.ReLU(inplace=True),
which rewrites `hidden` itself, so ignoring its return value is fine; `self.stats(x)`
is an observer module that only records activation statistics and returns nothing.
The model trains and the activations really are rectified (checked). Runs cleanly.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

CONFIG = dict(d_model=32, n_heads=4, ff_mult=2, seq_len=10, classes=3, lr=1e-3, epochs=2, batch_size=8)


class ActivationStats(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("mean", torch.zeros(()))
        self.calls = 0

    def forward(self, x):
        with torch.no_grad():
            self.mean.mul_(0.9).add_(0.1 * x.mean())
        self.calls += 1


class FeedForward(nn.Module):
    def __init__(self, d_model, mult):
        super().__init__()
        self.fc1 = nn.Linear(d_model, d_model * mult)
        self.act = nn.ReLU(inplace=True)
        self.fc2 = nn.Linear(d_model * mult, d_model)
        self.last_hidden = None

    def forward(self, x):
        hidden = self.fc1(x)
        self.act(hidden)                 # in-place: hidden is now rectified
        self.last_hidden = hidden.detach()
        return self.fc2(hidden)


class AttentionBlock(nn.Module):
    def __init__(self, d_model, n_heads, ff_mult):
        super().__init__()
        self.norm1 = nn.LayerNorm(d_model)
        self.attn = nn.MultiheadAttention(d_model, n_heads, batch_first=True)
        self.norm2 = nn.LayerNorm(d_model)
        self.ff = FeedForward(d_model, ff_mult)
        self.stats = ActivationStats()

    def forward(self, x):
        h = self.norm1(x)
        attn_out, _ = self.attn(h, h, h, need_weights=False)
        x = x + attn_out
        self.stats(x)                    # observer, returns None by design
        return x + self.ff(self.norm2(x))


class Classifier(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.embed = nn.Linear(1, c["d_model"])
        self.block = AttentionBlock(c["d_model"], c["n_heads"], c["ff_mult"])
        self.head = nn.Linear(c["d_model"], c["classes"])

    def forward(self, x):
        return self.head(self.block(self.embed(x.unsqueeze(-1))).mean(1))


def train(model, loader, optimizer, epochs):
    for epoch in range(epochs):
        model.train()
        total = 0.0
        for x, y in loader:
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()
            total += loss.item()
        print(f"epoch {epoch}: {total / len(loader):.4f}")


def main():
    torch.manual_seed(0)
    c = CONFIG
    x, y = torch.randn(32, c["seq_len"]), torch.randint(0, c["classes"], (32,))
    model = Classifier(c)
    train(model, DataLoader(TensorDataset(x, y), batch_size=c["batch_size"]), torch.optim.Adam(model.parameters(), lr=c["lr"]), c["epochs"])
    hidden = model.block.ff.last_hidden
    assert hidden.min() >= 0
    assert model.block.stats.calls > 0


if __name__ == "__main__":
    main()
    print("OK")
