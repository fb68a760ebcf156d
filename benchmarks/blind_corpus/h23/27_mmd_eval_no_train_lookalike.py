"""GG607 look-alike - validation with model.eval() inside the training loop, restored.

A ``Trainer`` for a small image classifier validates every ``val_every``
optimisation steps, in the middle of the batch loop, by calling
``self.model.eval()``.  It looks like the "eval() inside the loop and never
train() again" mistake, but ``validate()`` remembers the previous mode and
restores it with ``self.model.train(was_training)`` before returning, and
``train_epoch`` also starts with ``self.model.train()``.  Every training step
runs in training mode.  Runs cleanly.

Modelled on: https://github.com/shubhamagarwal92/mmd/issues/14 (correct variant)
"""
import os
import tempfile

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class Net(nn.Module):
    def __init__(self, n_classes=3):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
                                  nn.MaxPool2d(2), nn.Dropout(0.25), nn.Flatten(),
                                  nn.Linear(8 * 6 * 6, 32), nn.ReLU(), nn.Dropout(0.5))
        self.fc = nn.Linear(32, n_classes)

    def forward(self, x):
        return self.fc(self.body(x))


class Trainer:
    def __init__(self, model, train_loader, val_loader, val_every=2, ckpt_dir=None):
        self.model = model
        self.train_loader, self.val_loader = train_loader, val_loader
        self.opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
        self.sched = torch.optim.lr_scheduler.StepLR(self.opt, step_size=1, gamma=0.5)
        self.crit = nn.CrossEntropyLoss()
        self.val_every = val_every
        self.best = float("inf")
        self.ckpt_dir = ckpt_dir or tempfile.mkdtemp(prefix="trainer_")
        self.mode_log = []
        self.step = 0

    def validate(self):
        was_training = self.model.training
        self.model.eval()
        total = 0.0
        with torch.no_grad():
            for x, y in self.val_loader:
                total += self.crit(self.model(x), y).item()
        self.model.train(was_training)
        return total / len(self.val_loader)

    def train_epoch(self, epoch):
        self.model.train()
        for x, y in self.train_loader:
            self.mode_log.append(self.model.training)
            loss = self.crit(self.model(x), y)
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
            self.step += 1
            if self.step % self.val_every == 0:
                val = self.validate()
                if val < self.best:
                    self.best = val
                    torch.save(self.model.state_dict(), os.path.join(self.ckpt_dir, "best.pt"))
                print(f"epoch {epoch} step {self.step}: loss {loss.item():.3f} val {val:.3f}")
        self.sched.step()


def main():
    torch.manual_seed(0)
    x, y = torch.randn(32, 1, 12, 12), torch.randint(0, 3, (32,))
    tr = DataLoader(TensorDataset(x, y), batch_size=8, shuffle=True)
    va = DataLoader(TensorDataset(x[:8], y[:8]), batch_size=8)
    trainer = Trainer(Net(), tr, va)
    for epoch in range(2):
        trainer.train_epoch(epoch)
    assert all(trainer.mode_log)


if __name__ == "__main__":
    main()
    print("OK")
