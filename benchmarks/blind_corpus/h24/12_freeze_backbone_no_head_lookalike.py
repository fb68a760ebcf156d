"""GG104 look-alike - every backbone parameter frozen, but a new head trains.

Linear probing: all parameters of the pretrained feature extractor get
requires_grad=False in a loop, then a fresh classifier head (trainable by
default) is put on top.  The loss reaches the head, so backward() is fine.

Modelled on: https://github.com/jina-ai/finetuner/issues/435 (freeze + head variant)
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

EPOCHS, LR, NUM_CLASSES = 2, 1e-2, 4


class TinyResNetEmbedder(nn.Module):
    def __init__(self, dim=32):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU())
        self.block = nn.Sequential(nn.Conv2d(16, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU())
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(16, dim)

    def forward(self, x):
        h = self.stem(x)
        h = h + self.block(h)
        return self.fc(self.pool(h).flatten(1))


class LinearProbe(nn.Module):
    def __init__(self, backbone, num_classes):
        super().__init__()
        self.backbone = backbone
        for p in self.backbone.parameters():
            p.requires_grad = False
        self.head = nn.Linear(backbone.fc.out_features, num_classes)

    def forward(self, x):
        self.backbone.eval()
        return self.head(self.backbone(x))


def train(model, loader, optimizer, criterion):
    model.train()
    running = 0.0
    for step, (x, y) in enumerate(loader):
        loss = criterion(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        running += loss.item()
    return running / (step + 1)


def main():
    torch.manual_seed(0)
    images = torch.randn(32, 3, 16, 16)
    labels = torch.arange(NUM_CLASSES).repeat(8)
    loader = DataLoader(TensorDataset(images, labels), batch_size=8, shuffle=True)
    model = LinearProbe(TinyResNetEmbedder(), NUM_CLASSES)
    trainable = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.SGD(trainable, lr=LR, momentum=0.9)
    head_before = model.head.weight.detach().clone()
    for epoch in range(EPOCHS):
        print(f"epoch {epoch}: loss {train(model, loader, optimizer, nn.CrossEntropyLoss()):.4f}")
    assert all(p.grad is None for p in model.backbone.parameters())
    assert not torch.equal(head_before, model.head.weight)


if __name__ == "__main__":
    main()
    print("OK")
