"""GG112 - reentrant activation checkpoint whose inputs do not require grad (fixed).

The forward is checkpointed with use_reentrant=False, which records gradients for the
model's parameters even when the tensor passed in does not require grad.
"""
import warnings

import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint
from torch.utils.data import DataLoader, TensorDataset


class ResidualBlock(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.net = nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, x):
        return x + self.net(x)


class DeepMLP(nn.Module):
    def __init__(self, dim=16, depth=4, n_out=1, use_checkpoint=True):
        super().__init__()
        self.blocks = nn.ModuleList(ResidualBlock(dim) for _ in range(depth))
        self.head = nn.Linear(dim, n_out)
        self.use_checkpoint = use_checkpoint

    def _forward_impl(self, x):
        for block in self.blocks:
            x = block(x)
        return self.head(x.mean(dim=1) if x.dim() == 3 else x)

    def forward(self, x):
        if self.use_checkpoint and self.training:
            # recompute activations in backward instead of storing them
            return checkpoint(self._forward_impl, x, use_reentrant=False)  # fixed: GG112
        return self._forward_impl(x)


def train(model, loader, optimizer, criterion, epochs=2):
    model.train()
    for epoch in range(epochs):
        for step, (xb, yb) in enumerate(loader):
            pred = model(xb).squeeze(-1)
            loss = criterion(pred, yb)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch}: loss {loss.item():.4f}")


def main():
    torch.manual_seed(0)
    x = torch.randn(128, 16)
    y = x[:, :4].sum(-1)
    loader = DataLoader(TensorDataset(x, y), batch_size=32, shuffle=True)
    model = DeepMLP()
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-2, momentum=0.9)
    train(model, loader, optimizer, nn.MSELoss())


if __name__ == "__main__":
    main()
    print("FIXED: ok")
