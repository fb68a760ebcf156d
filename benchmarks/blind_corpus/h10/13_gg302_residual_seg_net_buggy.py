"""GG302: in-place ``+=`` on a tensor autograd saved for backward.

Mistake: the residual block of a small segmentation network activates the
branch output with ReLU and then adds the shortcut in place, ``out += residual``.
ReLU's backward needs its own output, which the in-place add has just
overwritten, so the first ``loss.backward()`` fails.
torch raises: RuntimeError: one of the variables needed for gradient computation
has been modified by an inplace operation: [torch.FloatTensor [...]], which is
output 0 of Relu, is at version 1; expected version 0 instead. ...
Modelled on: https://github.com/iMED-Lab/ER-Net/pull/3
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

cfg = {
    "in_ch": 1,
    "base": 8,
    "n_classes": 2,
    "lr": 1e-3,
    "epochs": 2,
    "batch_size": 4,
    "step_size": 1,
    "device": "cpu",
}


class ResEncoder(nn.Module):
    def __init__(self, in_ch, out_ch):
        super().__init__()
        self.conv1 = nn.Conv2d(in_ch, out_ch, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(out_ch)
        self.conv2 = nn.Conv2d(out_ch, out_ch, 3, padding=1)
        self.bn2 = nn.BatchNorm2d(out_ch)
        self.relu = nn.ReLU(inplace=False)
        self.conv1x1 = nn.Conv2d(in_ch, out_ch, kernel_size=1)

    def forward(self, x):
        residual = self.conv1x1(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out += residual  # bug: GG302
        return self.relu(out)


class TinySegNet(nn.Module):
    def __init__(self, in_ch, base, n_classes):
        super().__init__()
        self.enc1 = ResEncoder(in_ch, base)
        self.enc2 = ResEncoder(base, base * 2)
        self.pool = nn.MaxPool2d(2)
        self.up = nn.ConvTranspose2d(base * 2, base, 2, stride=2)
        self.dec = ResEncoder(base * 2, base)
        self.head = nn.Conv2d(base, n_classes, 1)

    def forward(self, x):
        e1 = self.enc1(x)
        e2 = self.enc2(self.pool(e1))
        d = self.dec(torch.cat([self.up(e2), e1], dim=1))
        return self.head(d)


def dice_loss(logits, target, eps=1.0):
    probs = F.softmax(logits, dim=1)[:, 1]
    inter = (probs * target).sum((1, 2))
    union = probs.sum((1, 2)) + target.sum((1, 2))
    return 1 - ((2 * inter + eps) / (union + eps)).mean()


def train(model, loader, optimizer, scheduler, device, epochs):
    for epoch in range(epochs):
        model.train()
        epoch_loss = 0.0
        for i, (img, mask) in enumerate(loader):
            img, mask = img.to(device), mask.to(device)
            logits = model(img)
            loss = F.cross_entropy(logits, mask.long()) + dice_loss(logits, mask)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            epoch_loss += loss.item()
        scheduler.step()
        print(f"epoch {epoch}: loss {epoch_loss / (i + 1):.4f} lr {scheduler.get_last_lr()[0]:.2e}")


def main():
    torch.manual_seed(0)
    device = torch.device(cfg["device"])
    imgs = torch.randn(16, cfg["in_ch"], 16, 16)
    masks = (torch.rand(16, 16, 16) > 0.7).float()
    loader = DataLoader(TensorDataset(imgs, masks), batch_size=cfg["batch_size"], shuffle=True)
    model = TinySegNet(cfg["in_ch"], cfg["base"], cfg["n_classes"]).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=cfg["step_size"], gamma=0.5)
    train(model, loader, optimizer, scheduler, device, cfg["epochs"])


if __name__ == "__main__":
    try:
        main()
    except RuntimeError as err:
        print("BUGGY:", str(err).splitlines()[0])
    else:
        raise SystemExit("NO BUG")
