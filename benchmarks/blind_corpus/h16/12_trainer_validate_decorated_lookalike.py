"""GG204 look-alike: validation loop with no `with torch.no_grad():` block in sight.

The Trainer's `validate()` method iterates the validation loader, runs the model and keeps
every prediction, but the method is decorated with @torch.no_grad(), and the test-time
helper uses torch.inference_mode(). No graph is built during evaluation. Correct code.

Modelled on: https://github.com/facebookarchive/loop/issues/57 (same evaluate() shape,
gradient tracking disabled by decorator)
"""
import os
import tempfile

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class ConvClassifier(nn.Module):
    def __init__(self, n_classes=3):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                                      nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(),
                                      nn.AdaptiveAvgPool2d(1))
        self.classifier = nn.Linear(16, n_classes)

    def forward(self, x):
        return self.classifier(self.features(x).flatten(1))


class Trainer:
    def __init__(self, model, lr=1e-2, ckpt_dir=None):
        self.model = model
        self.optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
        self.scheduler = torch.optim.lr_scheduler.StepLR(self.optimizer, step_size=1, gamma=0.5)
        self.criterion = nn.CrossEntropyLoss()
        self.ckpt_dir = ckpt_dir
        self.best = float("inf")

    def train_epoch(self, loader):
        self.model.train()
        for x, y in loader:
            self.optimizer.zero_grad()
            loss = self.criterion(self.model(x), y)
            loss.backward()
            self.optimizer.step()
        self.scheduler.step()

    @torch.no_grad()
    def validate(self, loader):
        self.model.eval()
        losses, outputs = [], []
        for x, y in loader:
            logits = self.model(x)
            losses.append(self.criterion(logits, y))
            outputs.append(logits)
        val_loss = torch.stack(losses).mean()
        if val_loss.item() < self.best and self.ckpt_dir:
            self.best = val_loss.item()
            torch.save(self.model.state_dict(), os.path.join(self.ckpt_dir, "best.pt"))
        return val_loss, torch.cat(outputs)


def predict(model, x):
    with torch.inference_mode():
        model.eval()
        return model(x).softmax(-1)


def main():
    torch.manual_seed(0)
    data = TensorDataset(torch.randn(24, 1, 8, 8), torch.randint(0, 3, (24,)))
    train_loader = DataLoader(data, batch_size=6, shuffle=True)
    val_loader = DataLoader(data, batch_size=6)
    with tempfile.TemporaryDirectory() as tmp:
        trainer = Trainer(ConvClassifier(), ckpt_dir=tmp)
        for epoch in range(2):
            trainer.train_epoch(train_loader)
            val_loss, outputs = trainer.validate(val_loader)
            print(f"epoch {epoch}: val_loss={val_loss.item():.4f}")
            assert not outputs.requires_grad and val_loss.grad_fn is None
    probs = predict(trainer.model, torch.randn(2, 1, 8, 8))
    assert not probs.requires_grad


if __name__ == "__main__":
    main()
    print("OK")
