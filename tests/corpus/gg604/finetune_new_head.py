"""Fine-tuning a small classifier on a new label set: the head is swapped after the optimizer."""

import torch
from torch import nn
import torch.nn.functional as F

torch.manual_seed(0)


class TinyResNet(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.stem = nn.Sequential(nn.Linear(32, 64), nn.ReLU())
        self.block = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 64))
        self.fc = nn.Linear(64, num_classes)

    def forward(self, x):
        h = self.stem(x)
        h = h + self.block(h)
        return self.fc(h)


def finetune(epochs=3):
    model = TinyResNet()
    model.train()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.5)
    model.fc = nn.Linear(64, 4)  # expect: GG604
    for epoch in range(epochs):
        for _ in range(5):
            x = torch.randn(16, 32)
            y = torch.randint(0, 4, (16,))
            loss = F.cross_entropy(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        scheduler.step()
        print(f"epoch {epoch}: loss {loss.item():.4f}")
    return model


def restart_with_a_fresh_model():
    model = nn.Sequential(nn.Linear(32, 16), nn.Tanh(), nn.Linear(16, 1))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    model = nn.Sequential(nn.Linear(32, 16), nn.Tanh(), nn.Linear(16, 1))  # expect: GG604
    for step in range(10):
        x = torch.randn(8, 32)
        loss = model(x).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def replace_last_layer_of_sequential():
    classifier = nn.Sequential(
        nn.Linear(32, 64),
        nn.ReLU(),
        nn.Dropout(0.1),
        nn.Linear(64, 10),
    )
    opt = torch.optim.AdamW(classifier.parameters(), lr=3e-4, weight_decay=0.01)
    classifier[3] = nn.Linear(64, 2)  # expect: GG604
    for _ in range(4):
        logits = classifier(torch.randn(8, 32))
        loss = F.cross_entropy(logits, torch.randint(0, 2, (8,)))
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    finetune()
    restart_with_a_fresh_model()
    replace_last_layer_of_sequential()
