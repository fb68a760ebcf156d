"""GG501 - backward() without a gradient argument on a tensor with more than one element.

Fixed version: the runner averages the per-cloud losses before backward().

Mistake (in the buggy file): the masked point autoencoder returns its reconstruction loss per sample
(the helper reduces only over points, not over the batch). The runner calls
`_loss.backward()` on that (B,) vector as if it were a scalar.
torch raises: RuntimeError: grad can be implicitly created only for scalar outputs

Modelled on: https://github.com/WisconsinAIVision/MaskPoint/issues/7
(pre-training runner where the model's forward returned a loss that was no longer a
scalar, then `_loss.backward()` in the runner failed).
"""
import argparse
import os
import tempfile

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def get_args():
    p = argparse.ArgumentParser(description="masked point pretraining")
    p.add_argument("--num_points", type=int, default=64)
    p.add_argument("--mask_ratio", type=float, default=0.5)
    p.add_argument("--batch_size", type=int, default=8)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--ckpt_dir", type=str, default=tempfile.gettempdir())
    return p.parse_args([])


def chamfer_l2(pred, gt):
    # pred, gt: (B, N, 3); returns a distance per cloud
    d = torch.cdist(pred, gt) ** 2
    return d.min(dim=2).values.mean(dim=1) + d.min(dim=1).values.mean(dim=1)


class PointEncoder(nn.Module):
    def __init__(self, dim=32):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(3, dim), nn.ReLU(), nn.Linear(dim, dim))

    def forward(self, pts):
        return self.mlp(pts).max(dim=1).values


class MaskedPointAE(nn.Module):
    def __init__(self, num_points, mask_ratio, dim=32):
        super().__init__()
        self.num_points = num_points
        self.mask_ratio = mask_ratio
        self.encoder = PointEncoder(dim)
        self.decoder = nn.Sequential(nn.Linear(dim, 64), nn.ReLU(), nn.Linear(64, num_points * 3))

    def forward(self, pts):
        b, n, _ = pts.shape
        keep = int(n * (1 - self.mask_ratio))
        idx = torch.rand(b, n).argsort(dim=1)[:, :keep]
        visible = torch.gather(pts, 1, idx.unsqueeze(-1).expand(-1, -1, 3))
        z = self.encoder(visible)
        rec = self.decoder(z).view(b, self.num_points, 3)
        return chamfer_l2(rec, pts)  # one value per cloud


def run_net(args, model, loader, optimizer, device):
    model.train()
    for epoch in range(args.epochs):
        for idx, (points,) in enumerate(loader):
            points = points.to(device)
            _loss = model(points).mean()
            optimizer.zero_grad()
            _loss.backward()  # fixed: GG501
            optimizer.step()
            if idx % 2 == 0:
                print(f"[epoch {epoch} it {idx}] loss={_loss.item():.4f}")
        torch.save(model.state_dict(), os.path.join(args.ckpt_dir, "h11_gg501_ckpt.pth"))


def main():
    args = get_args()
    torch.manual_seed(0)
    device = torch.device("cpu")
    clouds = torch.randn(32, args.num_points, 3)
    loader = DataLoader(TensorDataset(clouds), batch_size=args.batch_size, shuffle=True)
    model = MaskedPointAE(args.num_points, args.mask_ratio).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    run_net(args, model, loader, optimizer, device)


if __name__ == "__main__":
    main()
    print("FIXED: ok")
