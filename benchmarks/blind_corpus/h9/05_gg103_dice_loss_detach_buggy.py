"""GG103 - backward() on a loss built from a detached copy of the logits.

A tiny segmentation CNN trained with a soft Dice loss module. The loss's
_prepare() helper does `logits.clone().detach()` ("so the metric code cannot
modify the network output"), which cuts the graph: the loss has no grad_fn and
nothing in it requires grad. torch raises at backward():
    RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn

Modelled on: https://github.com/pytorch/pytorch/issues/91529
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

CFG = {"channels": 8, "lr": 3e-3, "epochs": 2, "batch_size": 4, "smooth": 1.0, "device": "cpu"}


class TinySegNet(nn.Module):
    def __init__(self, ch):
        super().__init__()
        self.down = nn.Sequential(nn.Conv2d(1, ch, 3, padding=1), nn.BatchNorm2d(ch), nn.ReLU(), nn.MaxPool2d(2))
        self.mid = nn.Sequential(nn.Conv2d(ch, ch, 3, padding=1), nn.ReLU())
        self.up = nn.ConvTranspose2d(ch, ch, 2, stride=2)
        self.out = nn.Conv2d(ch, 1, 1)

    def forward(self, x):
        return self.out(self.up(self.mid(self.down(x))))


class SoftDiceLoss(nn.Module):
    def __init__(self, smooth=1.0):
        super().__init__()
        self.smooth = smooth

    @staticmethod
    def _prepare(logits, target):
        # work on copies so the metric code never touches the network output
        return logits.clone().detach().float(), target.float()

    def forward(self, logits, target):
        logits, target = self._prepare(logits, target)
        probs = torch.sigmoid(logits).flatten(1)
        target = target.flatten(1)
        inter = (probs * target).sum(1)
        denom = probs.sum(1) + target.sum(1)
        dice = (2 * inter + self.smooth) / (denom + self.smooth)
        return 1 - dice.mean()


def train(model, loader, optimizer, criterion, device):
    model.train()
    losses = []
    for i, (img, mask) in enumerate(loader):
        img, mask = img.to(device), mask.to(device)
        logits = model(img)
        loss = criterion(logits, mask)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()  # bug: GG103
        optimizer.step()
        losses.append(loss.item())
    return sum(losses) / len(losses)


def make_data(n=16, size=16):
    imgs = torch.rand(n, 1, size, size)
    masks = (imgs > 0.6).float()
    return TensorDataset(imgs, masks)


def main():
    torch.manual_seed(0)
    device = torch.device(CFG["device"])
    model = TinySegNet(CFG["channels"]).to(device)
    loader = DataLoader(make_data(), batch_size=CFG["batch_size"], shuffle=True)
    optimizer = torch.optim.AdamW(model.parameters(), lr=CFG["lr"])
    criterion = SoftDiceLoss(CFG["smooth"])
    for epoch in range(CFG["epochs"]):
        avg = train(model, loader, optimizer, criterion, device)
        print(f"epoch {epoch} dice loss {avg:.4f}")


if __name__ == "__main__":
    try:
        main()
    except RuntimeError as e:
        print(f"BUGGY: {str(e).splitlines()[0]}")
        raise SystemExit(0)
    raise SystemExit("NO BUG")
