"""GG104 look-alike - frozen backbone, trainable linear probe.

The whole backbone is frozen with requires_grad_(False) and put in eval mode,
which looks like "every parameter frozen", but a fresh nn.Linear probe is
attached afterwards and its parameters require grad, so backward() works and
the probe trains. Correct linear-probing code.

Modelled on: none found (standard linear-probe evaluation).
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

CFG = {"feat_dim": 32, "num_classes": 5, "lr": 0.1, "epochs": 2, "batch_size": 16}


def build_backbone():
    backbone = nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
        nn.Conv2d(16, CFG["feat_dim"], 3, stride=2, padding=1), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(),
    )
    backbone.requires_grad_(False)
    return backbone.eval()


class LinearProbe(nn.Module):
    def __init__(self, backbone, feat_dim, num_classes):
        super().__init__()
        self.backbone = backbone
        self.fc = nn.Linear(feat_dim, num_classes)

    def forward(self, x):
        with torch.no_grad():
            feats = self.backbone(x)
        return self.fc(feats)


def train_probe(model, loader, optimizer, criterion, epochs):
    for epoch in range(epochs):
        model.fc.train()
        running = 0.0
        for step, (x, y) in enumerate(loader):
            loss = criterion(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            running += loss.item()
        print(f"epoch {epoch}: loss {running / (step + 1):.4f}")


def main():
    torch.manual_seed(4)
    x, y = torch.randn(64, 1, 12, 12), torch.randint(0, CFG["num_classes"], (64,))
    loader = DataLoader(TensorDataset(x, y), batch_size=CFG["batch_size"], shuffle=True)
    model = LinearProbe(build_backbone(), CFG["feat_dim"], CFG["num_classes"])
    trainable = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.SGD(trainable, lr=CFG["lr"], momentum=0.9)
    w0 = model.fc.weight.detach().clone()
    frozen0 = model.backbone[0].weight.detach().clone()
    train_probe(model, loader, optimizer, nn.CrossEntropyLoss(), CFG["epochs"])
    assert not torch.equal(w0, model.fc.weight)
    assert torch.equal(frozen0, model.backbone[0].weight)


if __name__ == "__main__":
    main()
    print("OK")
