"""GG607 (fixed): evaluate() puts the model back in training mode before returning.

Category GG607. ``evaluate`` still switches to eval mode for the validation pass, but now
calls ``self.model.train()`` once it has its accuracy, so the training steps that follow
a mid-epoch evaluation run in training mode. In the buggy version they ran with dropout
off and frozen batch norm; here we assert BatchNorm saw every training step.
"""
import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class SmallCNN(nn.Module):
    def __init__(self, n_classes=2):
        super().__init__()
        self.conv = nn.Conv2d(1, 6, 3, padding=1)
        self.bn = nn.BatchNorm2d(6)
        self.drop = nn.Dropout2d(0.2)
        self.fc = nn.Linear(6 * 5 * 5, n_classes)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn(self.conv(x))), 2)
        return self.fc(self.drop(x).flatten(1))


class CNNTrainer:
    def __init__(self, model, train_loader, val_loader, eval_every=4, ckpt_dir=None):
        self.model = model
        self.train_loader = train_loader
        self.val_loader = val_loader
        self.eval_every = eval_every
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
        self.ckpt_dir = ckpt_dir or tempfile.mkdtemp()
        self.best_acc = 0.0
        self.steps = 0

    @torch.no_grad()
    def evaluate(self):
        self.model.eval()  # fixed: GG607
        correct = sum((self.model(x).argmax(1) == y).sum().item() for x, y in self.val_loader)
        self.model.train()
        return correct / len(self.val_loader.dataset)

    def _maybe_evaluate(self):
        if self.steps % self.eval_every:
            return
        acc = self.evaluate()
        if acc >= self.best_acc:
            self.best_acc = acc
            torch.save(self.model.state_dict(), os.path.join(self.ckpt_dir, "best.pt"))
        print(f"step {self.steps}: val acc {acc:.2%} (best {self.best_acc:.2%})")

    def train_step(self, x, y):
        self.optimizer.zero_grad()
        loss = F.cross_entropy(self.model(x), y)
        loss.backward()
        self.optimizer.step()
        self.steps += 1
        return loss.item()

    def train_epoch(self):
        self.model.train()
        for x, y in self.train_loader:
            self.train_step(x, y)
            self._maybe_evaluate()


def main():
    torch.manual_seed(24)
    x = torch.randn(100, 1, 10, 10)
    y = (x.mean(dim=(1, 2, 3)) > 0).long()
    train_loader = DataLoader(TensorDataset(x[:80], y[:80]), batch_size=8, shuffle=True)
    val_loader = DataLoader(TensorDataset(x[80:], y[80:]), batch_size=10)
    model = SmallCNN()
    with tempfile.TemporaryDirectory() as ckpt_dir:
        trainer = CNNTrainer(model, train_loader, val_loader, ckpt_dir=ckpt_dir)
        for _ in range(2):
            trainer.train_epoch()
    return model.bn.num_batches_tracked.item(), trainer.steps


if __name__ == "__main__":
    tracked, steps = main()
    assert tracked == steps, (tracked, steps)
    print("FIXED: ok")
