"""Epoch loops that evaluate and still train in training mode, or where the switch is
harmless or out of sight.

pytorch/examples mnist/main.py and imagenet/main.py: `train()` starts with `model.train()`,
`test()`/`validate()` with `model.eval()`, the epoch loop calls both. MILVLG/mcan-vqa#26:
evaluation builds a fresh network, the trained one is never switched. tk-rusch/coRNN#1: a
model with neither dropout nor batch norm computes the same in both modes (the maintainer:
"it doesn't affect the training").
https://github.com/pytorch/examples/blob/main/mnist/main.py
https://github.com/MILVLG/mcan-vqa/issues/26
https://github.com/tk-rusch/coRNN/issues/1
"""

import copy

import torch
from torch import nn
import torch.nn.functional as F
from helpers import run_validation


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(64, 128)
        self.dropout = nn.Dropout(0.25)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        return self.fc2(self.dropout(F.relu(self.fc1(x))))


class PlainRNNCell(nn.Module):
    def __init__(self):
        super().__init__()
        self.inp = nn.Linear(8, 32)
        self.rec = nn.Linear(32, 32)
        self.out = nn.Linear(32, 1)

    def forward(self, x, h):
        h = torch.tanh(self.inp(x) + self.rec(h))
        return self.out(h), h


def train(model, loader, optimizer):
    model.train()
    for x, y in loader:
        optimizer.zero_grad()
        F.nll_loss(model(x), y).backward()
        optimizer.step()


def test(model, loader):
    model.eval()
    with torch.no_grad():
        return sum(float(F.nll_loss(model(x), y)) for x, y in loader)


def mnist_main(train_loader, test_loader, epochs):
    model = Net()
    optimizer = torch.optim.Adadelta(model.parameters(), lr=1.0)
    for epoch in range(1, epochs + 1):
        train(model, train_loader, optimizer)
        test(model, test_loader)


def train_at_the_top(train_loader, val_loader, epochs):
    model = Net()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(epochs):
        model.train()
        for x, y in train_loader:
            optimizer.zero_grad()
            F.cross_entropy(model(x), y).backward()
            optimizer.step()
        model.eval()
        with torch.no_grad():
            print(sum(float(F.cross_entropy(model(x), y)) for x, y in val_loader))


def evaluate_a_copy(train_loader, val_loader, epochs):
    net = Net()
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
    net.train()
    for epoch in range(epochs):
        for x, y in train_loader:
            optimizer.zero_grad()
            F.cross_entropy(net(x), y).backward()
            optimizer.step()
        ema = copy.deepcopy(net)
        ema.eval()
        with torch.no_grad():
            print(sum(float(F.cross_entropy(ema(x), y)) for x, y in val_loader))


def mode_free_model(train_loader, test_loader, epochs):
    model = PlainRNNCell()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    model.train()
    for epoch in range(epochs):
        for x, y in train_loader:
            optimizer.zero_grad()
            out, _ = model(x, torch.zeros(x.shape[0], 32))
            F.mse_loss(out, y).backward()
            optimizer.step()
        model.eval()
        with torch.no_grad():
            print(sum(float(F.mse_loss(model(x, torch.zeros(x.shape[0], 32))[0], y)) for x, y in test_loader))


def validation_from_a_library(train_loader, val_loader, epochs):
    # The library may put the model back in training mode itself: unknown, so silent.
    model = Net()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    model.train()
    for epoch in range(epochs):
        for x, y in train_loader:
            optimizer.zero_grad()
            F.cross_entropy(model(x), y).backward()
            optimizer.step()
        model.eval()
        run_validation(model, val_loader)


def distillation(teacher, train_loader, epochs):
    student = Net()
    optimizer = torch.optim.SGD(student.parameters(), lr=0.1)
    for epoch in range(epochs):
        teacher.eval()
        for x, y in train_loader:
            with torch.no_grad():
                soft = teacher(x).softmax(1)
            optimizer.zero_grad()
            F.kl_div(student(x).log_softmax(1), soft, reduction="batchmean").backward()
            optimizer.step()


def early_stopping(train_loader, val_loader, epochs, target):
    model = Net()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    model.train()
    for epoch in range(epochs):
        for x, y in train_loader:
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()
        if loss.item() < target:
            model.eval()
            break


def train_false_then_true(train_loader, val_loader, epochs):
    model = Net()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(epochs):
        for x, y in train_loader:
            optimizer.zero_grad()
            F.cross_entropy(model(x), y).backward()
            optimizer.step()
        model.train(False)
        with torch.no_grad():
            print(sum(float(F.cross_entropy(model(x), y)) for x, y in val_loader))
        model.train(True)


class Trainer:
    # A trainer whose epoch method switches the model back itself (joeynmt after its fix).
    def __init__(self, model, train_loader, val_loader):
        self.model = model
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=1e-3)
        self.train_loader = train_loader
        self.val_loader = val_loader

    def train_epoch(self):
        self.model.train()
        for x, y in self.train_loader:
            self.optimizer.zero_grad()
            F.cross_entropy(self.model(x), y).backward()
            self.optimizer.step()

    def validate(self):
        self.model.eval()
        with torch.no_grad():
            return sum(float(F.cross_entropy(self.model(x), y)) for x, y in self.val_loader)

    def fit(self, epochs):
        for epoch in range(epochs):
            self.train_epoch()
            print(epoch, self.validate())


def validation_restores_mode(model, train_loader, val_loader, interval=50):
    # wkentaro/pytorch-fcn#56 after the fix: validation in the middle of an epoch switches
    # the model back to training mode when it is done.
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    for iteration, (x, y) in enumerate(train_loader):
        optimizer.zero_grad()
        F.cross_entropy(model(x), y).backward()
        optimizer.step()
        if iteration % interval == 0:
            model.eval()
            with torch.no_grad():
                print(sum(float(F.cross_entropy(model(v), t)) for v, t in val_loader))
            model.train()


def evaluation_only(model, loaders):
    # Several evaluation passes, no training in the loop.
    results = []
    for loader in loaders:
        model.eval()
        with torch.no_grad():
            results.append(sum(float(model(x).sum()) for x, _ in loader))
    return results
