"""GG111 (fixed) - sigmoid output given to a BCE-with-logits based loss.

Fix: the tagger returns logits during training; sigmoid lives in predict().

A multi-label image tagger ends with nn.Sigmoid, and its outputs are passed to
a FocalLoss module built on F.binary_cross_entropy_with_logits, which applies a
second sigmoid. Inputs to the BCE are stuck in [0, 1], so the per-element BCE
can never go below -log(sigmoid(1)) ~= 0.313 even for perfect predictions
(silent: the loss floor and vanishing gradients hide the problem).

Modelled on: https://github.com/itakurah/focal-loss-pytorch/pull/5
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

HPARAMS = {"tags": 6, "img": 12, "batch": 8, "epochs": 3, "lr": 3e-3, "gamma": 2.0, "alpha": 0.25}


class FocalLoss(nn.Module):
    def __init__(self, gamma=2.0, alpha=0.25, reduction="mean"):
        super().__init__()
        self.gamma, self.alpha, self.reduction = gamma, alpha, reduction
        self.last_bce = None

    def forward(self, inputs, targets):
        bce = F.binary_cross_entropy_with_logits(inputs, targets, reduction="none")
        self.last_bce = bce.detach()
        p_t = torch.exp(-bce)
        alpha_t = self.alpha * targets + (1 - self.alpha) * (1 - targets)
        loss = alpha_t * (1 - p_t) ** self.gamma * bce
        return loss.mean() if self.reduction == "mean" else loss.sum()


class Tagger(nn.Module):
    def __init__(self, tags):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
        )
        self.classifier = nn.Linear(16, tags)

    def forward(self, x):
        return self.classifier(self.features(x))

    @torch.no_grad()
    def predict(self, x):
        return torch.sigmoid(self(x))


def train_one_epoch(model, loader, criterion, optimizer):
    model.train()
    running = 0.0
    for images, targets in loader:
        outputs = model(images)
        loss = criterion(outputs, targets)  # fixed: GG111
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        running += loss.item() * images.size(0)
    return running / len(loader.dataset)


def main():
    torch.manual_seed(0)
    hp = HPARAMS
    images = torch.randn(32, 3, hp["img"], hp["img"])
    targets = (torch.rand(32, hp["tags"]) > 0.7).float()
    loader = DataLoader(TensorDataset(images, targets), batch_size=hp["batch"], shuffle=True)
    model = Tagger(hp["tags"])
    criterion = FocalLoss(hp["gamma"], hp["alpha"])
    optimizer = torch.optim.Adam(model.parameters(), lr=hp["lr"])
    for epoch in range(hp["epochs"]):
        print(f"epoch {epoch}: focal loss {train_one_epoch(model, loader, criterion, optimizer):.5f}")
    # what would a perfect model score under this pipeline?
    perfect = criterion(torch.where(targets > 0, 20.0, -20.0), targets)
    return criterion, perfect


if __name__ == "__main__":
    criterion, perfect = main()
    assert perfect.item() < 1e-6, perfect.item()
    print("FIXED: ok")
