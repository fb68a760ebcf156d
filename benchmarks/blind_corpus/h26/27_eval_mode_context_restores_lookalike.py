"""GG607 look-alike - model.eval() inside the training loop, restored by a context manager.

A Trainer validates every few steps inside the epoch.  Validation runs inside
`with evaluating(self.model):`, a small context manager that remembers whether
the model was training, calls model.eval(), and restores the old mode on exit
with model.train(was_training).  The training steps after the validation run
in train mode again, with BatchNorm and dropout active.  A checker that looks
for a literal model.train() after model.eval() would flag this wrongly.

Modelled on: https://github.com/ThilinaRajapakse/simpletransformers/issues/941 (correct counterpart)
"""
from contextlib import contextmanager

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


@contextmanager
def evaluating(model):
    was_training = model.training
    try:
        model.eval()
        yield model
    finally:
        model.train(was_training)


class SmallNet(nn.Module):
    def __init__(self, d_in=12, classes=3):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d_in, 32), nn.BatchNorm1d(32), nn.ReLU(), nn.Dropout(0.2),
                                 nn.Linear(32, classes))

    def forward(self, x):
        return self.net(x)


class Trainer:
    def __init__(self, model, lr=1e-2, val_every=2, patience=3):
        self.model = model
        self.opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
        self.crit = nn.CrossEntropyLoss()
        self.val_every = val_every
        self.patience = patience
        self.best = float("inf")
        self.bad_rounds = 0
        self.modes = []

    def validate(self, loader):
        with evaluating(self.model), torch.no_grad():
            losses = [self.crit(self.model(x), y).item() for x, y in loader]
        return sum(losses) / len(losses)

    def train_epoch(self, train_loader, val_loader):
        self.model.train()
        for step, (x, y) in enumerate(train_loader, start=1):
            self.modes.append(self.model.training)
            self.opt.zero_grad()
            loss = self.crit(self.model(x), y)
            loss.backward()
            self.opt.step()
            if step % self.val_every == 0:
                val = self.validate(val_loader)
                if val < self.best - 1e-4:
                    self.best, self.bad_rounds = val, 0
                else:
                    self.bad_rounds += 1
                if self.bad_rounds >= self.patience:
                    return True
        return False


def main():
    torch.manual_seed(1)
    x = torch.randn(80, 12)
    y = (x[:, 0] > 0).long() + (x[:, 1] > 0.5).long()
    train_loader = DataLoader(TensorDataset(x[:60], y[:60]), batch_size=10, shuffle=True)
    val_loader = DataLoader(TensorDataset(x[60:], y[60:]), batch_size=10)
    trainer = Trainer(SmallNet())
    for epoch in range(3):
        stop = trainer.train_epoch(train_loader, val_loader)
        print(f"epoch {epoch}: best val {trainer.best:.3f}")
        if stop:
            break
    return trainer.modes


if __name__ == "__main__":
    modes = main()
    assert len(modes) > 0 and all(modes)
    print("OK")
