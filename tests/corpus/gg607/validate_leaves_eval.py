"""Training loops that switch the model to evaluation mode for validation and never back.

Modelled on real reports: MILVLG/mcan-vqa#26 and tk-rusch/coRNN#1 (`net.train()` once before
the epoch loop, evaluation inside it), pytorch/tutorials#1624 (the quickstart's `train()`
called after `test()` had switched the model to eval mode), wkentaro/pytorch-fcn#56 and
open-mmlab/mmaction2#1781 (validation every N iterations inside the batch loop, training
going on in eval mode until the epoch ends), joeynmt/joeynmt#184 (a trainer whose
`_validate` leaves the model in eval mode).
https://github.com/MILVLG/mcan-vqa/issues/26
https://github.com/tk-rusch/coRNN/issues/1
https://github.com/pytorch/tutorials/issues/1624
https://github.com/wkentaro/pytorch-fcn/pull/56
https://github.com/open-mmlab/mmaction2/issues/1781
https://github.com/joeynmt/joeynmt/issues/184
"""

import torch
from torch import nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        self.features = nn.Sequential(nn.Linear(64, 128), nn.BatchNorm1d(128), nn.ReLU())
        self.dropout = nn.Dropout(0.5)
        self.fc = nn.Linear(128, classes)

    def forward(self, x):
        return self.fc(self.dropout(self.features(x)))


def train_epoch(model, loader, optimizer):
    for x, y in loader:
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()


def evaluate(model, loader):
    model.eval()
    correct = 0
    with torch.no_grad():
        for x, y in loader:
            correct += int((model(x).argmax(1) == y).sum())
    return correct / len(loader.dataset)


def main(train_loader, val_loader, epochs=10):
    model = Net()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    model.train()
    for epoch in range(epochs):
        train_epoch(model, train_loader, optimizer)
        acc = evaluate(model, val_loader)  # expect: GG607
        print(f"epoch {epoch}: {acc:.3f}")


def inline_validation(train_loader, val_loader, epochs=10):
    model = Net()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    model.train()
    for epoch in range(epochs):
        for x, y in train_loader:
            optimizer.zero_grad()
            F.cross_entropy(model(x), y).backward()
            optimizer.step()
        model.eval()  # expect: GG607
        with torch.no_grad():
            val_loss = sum(float(F.cross_entropy(model(x), y)) for x, y in val_loader)
        print(epoch, val_loss)


def validate_every_n_iterations(train_loader, val_loader, epochs=10, interval=100):
    model = Net()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    for epoch in range(epochs):
        model.train()
        for iteration, (x, y) in enumerate(train_loader):
            optimizer.zero_grad()
            F.cross_entropy(model(x), y).backward()
            optimizer.step()
            if iteration % interval == 0:
                model.eval()  # expect: GG607
                with torch.no_grad():
                    val_loss = sum(float(F.cross_entropy(model(v), t)) for v, t in val_loader)
                print(iteration, val_loss)


class Trainer:
    def __init__(self, train_loader, val_loader):
        self.model = Net()
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=1e-3)
        self.train_loader = train_loader
        self.val_loader = val_loader

    def train_step(self, x, y):
        self.optimizer.zero_grad()
        loss = F.cross_entropy(self.model(x), y)
        loss.backward()
        self.optimizer.step()
        return loss.item()

    def validate(self):
        self.model.eval()
        with torch.no_grad():
            return sum(float(F.cross_entropy(self.model(x), y)) for x, y in self.val_loader)

    def fit(self, epochs):
        self.model.train()
        for epoch in range(epochs):
            for x, y in self.train_loader:
                self.train_step(x, y)
            print(epoch, self.validate())  # expect: GG607
