"""GG402 - requires_grad on an integer tensor (fixed).

The bin centres are created as float32 (dtype=torch.float32 in torch.arange), so they can
be a trainable nn.Parameter.
"""
import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F


class SoftBinning(nn.Module):
    """Predicts a distribution over bins and returns its expected value."""

    def __init__(self, in_dim, n_bins=8, max_value=8):
        super().__init__()
        self.logits = nn.Linear(in_dim, n_bins)
        step = max_value // n_bins
        self.centers = nn.Parameter(torch.arange(0, max_value, step, dtype=torch.float32))  # fixed: GG402
        self.temperature = nn.Parameter(torch.ones(1))

    def forward(self, feats):
        weights = F.softmax(self.logits(feats) / self.temperature, dim=-1)
        return (weights * self.centers).sum(-1)


class DepthRegressor(nn.Module):
    def __init__(self, in_dim=10, hidden=32, n_bins=8):
        super().__init__()
        self.features = nn.Sequential(nn.Linear(in_dim, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.binning = SoftBinning(hidden, n_bins)

    def forward(self, x):
        return self.binning(self.features(x))


def train(model, x, y, optimizer, epochs=80):
    for epoch in range(epochs):
        pred = model(x)
        loss = F.smooth_l1_loss(pred, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if epoch % 20 == 0:
            print(f"epoch {epoch} loss {loss.item():.4f}")
    return loss.item()


def main():
    torch.manual_seed(0)
    x = torch.randn(200, 10)
    y = (x[:, 0].abs() * 3).clamp(max=7.5)
    model = DepthRegressor()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    final = train(model, x, y, optimizer)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "depth.ckpt")
        torch.save({"model": model.state_dict(), "loss": final}, path)
    return final, model.binning.centers.detach()


if __name__ == "__main__":
    final, centers = main()
    assert centers.dtype == torch.float32 and final < 1.0, final
    print("FIXED: ok")
