"""Category GG108 -- backward() through argmax / integer casts only.
Status: buggy.
An object-coordinate regression network predicts, for every pixel, a classification
over 16 bins per axis (x, y, z).  The training script copies the decoding from the
test script: argmax over the bins, `.float()`, rescale to [-1, 1], and applies an L1
loss against the ground-truth coordinates.  argmax has no gradient, so the loss has
no grad_fn and backward() raises
RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
Modelled on: https://github.com/LZGMatrix/BOP19_CDPN_2019ICCV/issues/4
"""
import sys

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class cfg:
    coor_bin = 16
    img = 16
    out = 8
    batch = 4
    epochs = 1
    lr = 1e-4


class CoorHead(nn.Module):
    def __init__(self, n_bins):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1), nn.BatchNorm2d(16), nn.ReLU(),
                                      nn.Conv2d(16, 32, 3, 1, 1), nn.BatchNorm2d(32), nn.ReLU())
        self.x = nn.Conv2d(32, n_bins + 1, 1)
        self.y = nn.Conv2d(32, n_bins + 1, 1)
        self.z = nn.Conv2d(32, n_bins + 1, 1)
        self.mask = nn.Conv2d(32, 1, 1)

    def forward(self, img):
        f = self.backbone(img)
        return self.x(f), self.y(f), self.z(f), self.mask(f)


def decode_coords(out_x, out_y, out_z, n_bins):
    coor = torch.stack([torch.argmax(out_x, dim=1), torch.argmax(out_y, dim=1),
                        torch.argmax(out_z, dim=1)], dim=1)
    coor[coor == n_bins] = 0
    return 2.0 * coor.float() / (n_bins - 1) - 1.0


def train(model, loader, optimizer, epochs):
    l1 = nn.L1Loss(reduction="none")
    for epoch in range(epochs):
        for i, (img, gt_coor, gt_mask) in enumerate(loader):
            out_x, out_y, out_z, out_mask = model(img)
            pred_coor = decode_coords(out_x, out_y, out_z, cfg.coor_bin)
            loss_coor = (l1(pred_coor, gt_coor) * gt_mask).sum() / gt_mask.sum().clamp(min=1)
            optimizer.zero_grad()
            loss_coor.backward()  # bug: GG108
            optimizer.step()
            print(f"epoch {epoch} iter {i}: coor loss {loss_coor.item():.4f}")


def main():
    torch.manual_seed(0)
    n = 8
    img = torch.rand(n, 3, cfg.img, cfg.img)
    gt_coor = torch.rand(n, 3, cfg.out, cfg.out) * 2 - 1
    gt_mask = (torch.rand(n, 1, cfg.out, cfg.out) > 0.3).float()
    loader = DataLoader(TensorDataset(img, gt_coor, gt_mask), batch_size=cfg.batch, shuffle=True)
    model = CoorHead(cfg.coor_bin)
    optimizer = torch.optim.RMSprop(model.parameters(), lr=cfg.lr)
    train(model, loader, optimizer, cfg.epochs)


if __name__ == "__main__":
    try:
        main()
    except RuntimeError as e:
        print(f"BUGGY: {str(e).splitlines()[0]}")
        sys.exit(0)
    raise SystemExit("NO BUG")
