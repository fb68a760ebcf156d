"""GG607 look-alike - mid-epoch validation that restores the previous mode.

A small segmentation trainer validates every `val_every` steps, in the middle
of an epoch.  The evaluate() helper calls model.eval(), but remembers
model.training beforehand and restores it with model.train(was_training) in a
finally block, so the following training steps run in train mode again.
Runs cleanly.

Modelled on: none found (correct counterpart of the eval-mode leak bug)
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

CFG = {"epochs": 2, "val_every": 3, "lr": 1e-3, "batch": 4}


class MiniUNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.down = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU())
        self.pool = nn.MaxPool2d(2)
        self.mid = nn.Sequential(nn.Conv2d(8, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.Dropout2d(0.2))
        self.up = nn.ConvTranspose2d(16, 8, 2, stride=2)
        self.out = nn.Conv2d(16, 1, 1)

    def forward(self, x):
        d = self.down(x)
        u = self.up(self.mid(self.pool(d)))
        return self.out(torch.cat([d, u], dim=1))


def dice_score(logits, mask, eps=1e-6):
    pred = (torch.sigmoid(logits) > 0.5).float()
    inter = (pred * mask).sum()
    return (2 * inter + eps) / (pred.sum() + mask.sum() + eps)


def evaluate(model, loader):
    was_training = model.training
    model.eval()
    try:
        with torch.no_grad():
            scores = [dice_score(model(x), m) for x, m in loader]
        return torch.stack(scores).mean().item()
    finally:
        model.train(was_training)


def fit(model, train_loader, val_loader, optimizer):
    modes, global_step = [], 0
    for epoch in range(CFG["epochs"]):
        model.train()
        for x, m in train_loader:
            modes.append(model.training)
            loss = F.binary_cross_entropy_with_logits(model(x), m)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            global_step += 1
            if global_step % CFG["val_every"] == 0:
                print(f"step {global_step}: loss {loss.item():.4f} val dice {evaluate(model, val_loader):.4f}")
    return modes


def main():
    torch.manual_seed(0)
    x = torch.randn(24, 1, 8, 8)
    m = (torch.rand(24, 1, 8, 8) > 0.5).float()
    train_loader = DataLoader(TensorDataset(x[:16], m[:16]), batch_size=CFG["batch"], shuffle=True)
    val_loader = DataLoader(TensorDataset(x[16:], m[16:]), batch_size=CFG["batch"])
    model = MiniUNet()
    optimizer = torch.optim.Adam(model.parameters(), lr=CFG["lr"])
    modes = fit(model, train_loader, val_loader, optimizer)
    assert all(modes)


if __name__ == "__main__":
    main()
    print("OK")
