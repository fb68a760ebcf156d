"""GG601 - training loop steps the optimizer but never clears gradients.

A keypoint (tennis-court) heatmap detector is trained by a ``train`` function
in ``base_trainer`` style: forward, MSE on heatmaps, ``loss.backward()``,
``optimizer.step()``.  FIXED version: ``optimizer.zero_grad()`` is called at
the top of every iteration, so each step uses only the current batch's
gradient (checked against a fresh autograd.grad of the same loss).

Modelled on: https://github.com/yastrebksv/TennisCourtDetector/issues/7
"""
import sys

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

CONFIG = {
    "num_keypoints": 4,
    "input_size": 32,
    "batch_size": 4,
    "lr": 1e-3,
    "steps_per_epoch": 3,
    "epochs": 1,
    "debug_grads": True,
}


class ConvBlock(nn.Module):
    def __init__(self, c_in, c_out):
        super().__init__()
        self.block = nn.Sequential(nn.Conv2d(c_in, c_out, 3, padding=1), nn.ReLU(), nn.BatchNorm2d(c_out))

    def forward(self, x):
        return self.block(x)


class CourtNet(nn.Module):
    def __init__(self, out_channels):
        super().__init__()
        self.down = nn.Sequential(ConvBlock(3, 8), nn.MaxPool2d(2), ConvBlock(8, 16))
        self.up = nn.Sequential(nn.Upsample(scale_factor=2), ConvBlock(16, 8))
        self.head = nn.Conv2d(8, out_channels, 1)

    def forward(self, x):
        return torch.sigmoid(self.head(self.up(self.down(x))))


def fresh_gradients(model, loss):
    params = [p for p in model.parameters() if p.requires_grad]
    return torch.autograd.grad(loss, params, retain_graph=True)


def train(model, train_loader, optimizer, criterion, device, epoch, max_iters, debug=False):
    model.train()
    losses, grad_checks = [], []
    for iter_id, (img, hm_gt) in enumerate(train_loader):
        out = model(img.to(device))
        loss = criterion(out, hm_gt.to(device))
        expected = fresh_gradients(model, loss) if debug else None
        optimizer.zero_grad()
        loss.backward()  # fixed: GG601
        if debug:
            params = [p for p in model.parameters() if p.requires_grad]
            grad_checks.append(all(torch.allclose(p.grad, e, atol=1e-6) for p, e in zip(params, expected)))
        optimizer.step()
        losses.append(loss.item())
        print(f"epoch {epoch} iter {iter_id}: loss {loss.item():.5f}")
        if iter_id + 1 >= max_iters:
            break
    return sum(losses) / len(losses), grad_checks


def make_loader(cfg):
    n = cfg["batch_size"] * cfg["steps_per_epoch"]
    imgs = torch.rand(n, 3, cfg["input_size"], cfg["input_size"])
    hms = torch.rand(n, cfg["num_keypoints"], cfg["input_size"], cfg["input_size"])
    return DataLoader(TensorDataset(imgs, hms), batch_size=cfg["batch_size"], shuffle=False)


def main():
    torch.manual_seed(0)
    device = torch.device("cpu")
    model = CourtNet(CONFIG["num_keypoints"]).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=CONFIG["lr"])
    criterion = nn.MSELoss()
    loader = make_loader(CONFIG)
    checks = []
    for epoch in range(CONFIG["epochs"]):
        avg, c = train(model, loader, optimizer, criterion, device, epoch,
                       CONFIG["steps_per_epoch"], debug=CONFIG["debug_grads"])
        checks += c
        print(f"epoch {epoch}: avg loss {avg:.5f}")
    return checks


if __name__ == "__main__":
    checks = main()
    assert all(checks), checks
    print("FIXED: ok")
