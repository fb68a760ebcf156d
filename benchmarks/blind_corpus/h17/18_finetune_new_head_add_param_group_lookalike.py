"""GG604 look-alike - classifier head replaced after the optimizer exists, then registered.

The fine-tuning script builds its optimizer from the pretrained model, then
swaps model.fc for a fresh head sized for the new label set.  That would leave
the new head untrained -- but the script immediately hands the new head's
parameters to the existing optimizer with add_param_group(), so both the
backbone and the new head are updated (checked below).

Modelled on: none found (fine-tuning with add_param_group)
"""
import os
import tempfile

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

CFG = {"old_classes": 10, "new_classes": 3, "backbone_lr": 1e-3, "head_lr": 1e-2,
       "epochs": 2, "batch_size": 8}


class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
                                  nn.MaxPool2d(2), nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(),
                                  nn.AdaptiveAvgPool2d(1))

    def forward(self, x):
        return self.conv(x).flatten(1)


class Classifier(nn.Module):
    def __init__(self, num_classes):
        super().__init__()
        self.backbone = Backbone()
        self.fc = nn.Linear(32, num_classes)

    def forward(self, x):
        return self.fc(self.backbone(x))


def load_pretrained(path):
    model = Classifier(CFG["old_classes"])
    if os.path.exists(path):
        model.load_state_dict(torch.load(path))
    return model


def build_optimizer(model):
    return torch.optim.SGD(model.backbone.parameters(), lr=CFG["backbone_lr"], momentum=0.9)


def adapt_head(model, optimizer, num_classes):
    model.fc = nn.Linear(model.fc.in_features, num_classes)
    optimizer.add_param_group({"params": model.fc.parameters(), "lr": CFG["head_lr"]})
    return model


def train(model, loader, optimizer, criterion):
    model.train()
    for epoch in range(CFG["epochs"]):
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch} loss {loss.item():.4f}")


def main():
    torch.manual_seed(0)
    with tempfile.TemporaryDirectory() as tmp:
        ckpt = os.path.join(tmp, "pretrained.pt")
        torch.save(Classifier(CFG["old_classes"]).state_dict(), ckpt)
        model = load_pretrained(ckpt)
        optimizer = build_optimizer(model)
        model = adapt_head(model, optimizer, CFG["new_classes"])
    head_before = model.fc.weight.detach().clone()
    conv_before = model.backbone.conv[0].weight.detach().clone()
    x = torch.randn(24, 3, 12, 12)
    y = torch.randint(0, CFG["new_classes"], (24,))
    loader = DataLoader(TensorDataset(x, y), batch_size=CFG["batch_size"], shuffle=True)
    train(model, loader, optimizer, nn.CrossEntropyLoss())
    assert not torch.equal(head_before, model.fc.weight)
    assert not torch.equal(conv_before, model.backbone.conv[0].weight)


if __name__ == "__main__":
    main()
    print("OK")
