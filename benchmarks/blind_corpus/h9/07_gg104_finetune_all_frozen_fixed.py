"""GG104 (fixed) - the fine-tuning config names the real head, so it stays trainable.

Fine-tuning script: freeze_for_finetune() first calls model.requires_grad_(False)
and then re-enables the parameters whose names start with one of
cfg["trainable"]. The fix puts the head's real attribute name ("fc") in the
config, so the head's weight and bias require grad and backward() works.

Modelled on: https://runebook.dev/en/docs/pytorch/generated/torch.nn.module/torch.nn.Module.requires_grad_
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

cfg = {
    "num_classes": 5,
    "trainable": ["fc"],
    "lr": 1e-3,
    "epochs": 1,
    "batch_size": 8,
    "label_smoothing": 0.1,
}


class ConvBlock(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, 3, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(cout)

    def forward(self, x):
        return F.max_pool2d(F.relu(self.bn(self.conv(x))), 2)


class SmallResNetish(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.stem = ConvBlock(3, 16)
        self.layer1 = ConvBlock(16, 32)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(32, num_classes)

    def forward(self, x):
        x = self.layer1(self.stem(x))
        return self.fc(self.pool(x).flatten(1))


def freeze_for_finetune(model, trainable_prefixes):
    model.requires_grad_(False)
    enabled = []
    for name, p in model.named_parameters():
        if any(name.startswith(pref) for pref in trainable_prefixes):
            p.requires_grad_(True)
            enabled.append(name)
    return enabled


def train(model, loader, optimizer, criterion):
    model.train()
    for step, (images, labels) in enumerate(loader):
        logits = model(images)
        loss = criterion(logits, labels)
        optimizer.zero_grad()
        loss.backward()  # fixed: GG104
        optimizer.step()
        print(f"step {step} loss {loss.item():.4f}")


def main():
    torch.manual_seed(0)
    model = SmallResNetish(num_classes=10)
    # "pretrained" model with a new head for our 5-class task
    model.fc = nn.Linear(model.fc.in_features, cfg["num_classes"])
    enabled = freeze_for_finetune(model, cfg["trainable"])
    print(f"trainable tensors: {enabled}")
    params = [p for p in model.parameters() if p.requires_grad] or list(model.fc.parameters())
    optimizer = torch.optim.Adam(params, lr=cfg["lr"])
    criterion = nn.CrossEntropyLoss(label_smoothing=cfg["label_smoothing"])
    ds = TensorDataset(torch.randn(16, 3, 16, 16), torch.randint(0, cfg["num_classes"], (16,)))
    loader = DataLoader(ds, batch_size=cfg["batch_size"], shuffle=True)
    for epoch in range(cfg["epochs"]):
        train(model, loader, optimizer, criterion)


if __name__ == "__main__":
    main()
    print("FIXED: ok")
