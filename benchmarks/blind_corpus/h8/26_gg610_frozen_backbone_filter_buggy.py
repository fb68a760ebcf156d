"""GG610 - a filter() over model.parameters() is consumed by logging before the optimizer.

Mistake: `build_optimizer` freezes the backbone, wraps `model.parameters()` in
`filter(lambda p: p.requires_grad, ...)`, sums the trainable sizes for the log
line, and then hands the *same* filter object to Adam.  The sum already
exhausted the iterator, so the optimizer receives nothing.
Error raised by torch: `ValueError: optimizer got an empty parameter list`.

Modelled on: https://github.com/YanaiEliyahu/AdasOptimizer/issues/2
"""
import logging
import os
import tempfile

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
log = logging.getLogger("finetune")

CFG = {
    "num_classes": 5,
    "lr": 1e-3,
    "epochs": 2,
    "batch_size": 16,
    "freeze_backbone": True,
    "save_dir": tempfile.mkdtemp(prefix="frozen_"),
}


class FeatureExtractor(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
        )

    def forward(self, x):
        return torch.flatten(self.body(x), 1)


class Classifier(nn.Module):
    def __init__(self, num_classes):
        super().__init__()
        self.backbone = FeatureExtractor()
        self.classifier = nn.Sequential(nn.Dropout(0.2), nn.Linear(32, num_classes))

    def forward(self, x):
        return self.classifier(self.backbone(x))


def build_optimizer(model, cfg):
    if cfg["freeze_backbone"]:
        for p in model.backbone.parameters():
            p.requires_grad = False
    trainable = filter(lambda p: p.requires_grad, model.parameters())
    n_trainable = sum(p.numel() for p in trainable)
    n_total = sum(p.numel() for p in model.parameters())
    log.info(f"trainable parameters: {n_trainable:,} / {n_total:,}")
    return torch.optim.Adam(trainable, lr=cfg["lr"])  # bug: GG610


def run_epoch(model, loader, optimizer, criterion):
    model.train()
    model.backbone.eval()  # keep frozen BatchNorm statistics fixed
    correct = 0
    for images, labels in loader:
        optimizer.zero_grad()
        logits = model(images)
        loss = criterion(logits, labels)
        loss.backward()
        optimizer.step()
        correct += (logits.argmax(1) == labels).sum().item()
    return loss.item(), correct / len(loader.dataset)


def main(cfg):
    images = torch.randn(64, 3, 16, 16)
    labels = torch.randint(0, cfg["num_classes"], (64,))
    loader = DataLoader(TensorDataset(images, labels), batch_size=cfg["batch_size"], shuffle=True)
    model = Classifier(cfg["num_classes"])
    optimizer = build_optimizer(model, cfg)
    criterion = nn.CrossEntropyLoss()
    for epoch in range(cfg["epochs"]):
        loss, acc = run_epoch(model, loader, optimizer, criterion)
        log.info(f"epoch {epoch}: loss {loss:.4f} acc {acc:.2f}")
    torch.save(model.classifier.state_dict(), os.path.join(cfg["save_dir"], "head.pt"))
    return model


if __name__ == "__main__":
    torch.manual_seed(0)
    try:
        main(CFG)
    except ValueError as err:
        print(f"BUGGY: {str(err).splitlines()[0]}")
    else:
        raise SystemExit("NO BUG")
