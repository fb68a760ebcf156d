"""Optimizers that do hold every parameter that trains."""

import copy

import torch
from torch import nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(16, 32), nn.ReLU())
        self.fc = nn.Linear(32, classes)

    def forward(self, x):
        return self.fc(self.body(x))


def train_steps(model, optimizer, classes):
    for _ in range(2):
        loss = F.cross_entropy(model(torch.randn(4, 16)), torch.randint(0, classes, (4,)))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def moved_to_device():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = Net()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    model.to(device)
    model = model.to(device)
    model = model.float()
    train_steps(model, optimizer, 10)


def rebuilt_after_new_head():
    model = Net()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    model.fc = nn.Linear(32, 3)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(2):
        loss = F.cross_entropy(model(torch.randn(4, 16)), torch.randint(0, 3, (4,)))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def head_added_to_optimizer():
    model = Net()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    model.fc = nn.Linear(32, 3)
    optimizer.add_param_group({"params": model.fc.parameters(), "lr": 1e-2})
    for _ in range(2):
        loss = F.cross_entropy(model(torch.randn(4, 16)), torch.randint(0, 3, (4,)))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def head_replaced_before_optimizer():
    model = Net()
    model.fc = nn.Linear(32, 3)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(2):
        loss = F.cross_entropy(model(torch.randn(4, 16)), torch.randint(0, 3, (4,)))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def head_dropped_for_features():
    model = Net()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    model.fc = nn.Identity()  # no parameters: nothing is left out of the optimizer
    for _ in range(2):
        loss = model(torch.randn(4, 16)).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def unused_attribute():
    model = Net()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    model.probe = nn.Linear(32, 3)  # never run by forward
    for _ in range(2):
        loss = model(torch.randn(4, 16)).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def optimizer_on_the_head_only():
    model = Net()
    optimizer = torch.optim.SGD(model.body.parameters(), lr=0.1)
    model.fc = nn.Linear(32, 3)  # trained by a second optimizer
    head_optimizer = torch.optim.SGD(model.fc.parameters(), lr=0.1)
    for _ in range(2):
        loss = model(torch.randn(4, 16)).pow(2).mean()
        optimizer.zero_grad()
        head_optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        head_optimizer.step()


def wrapped_not_replaced():
    model = Net()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    model = nn.Sequential(model, nn.ReLU())  # same parameters, one more activation
    train_steps(model, optimizer, 10)


def deep_copy_for_ema():
    model = Net()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    ema = copy.deepcopy(model)
    for _ in range(2):
        loss = model(torch.randn(4, 16)).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        with torch.no_grad():
            for e, p in zip(ema.parameters(), model.parameters()):
                e.mul_(0.9).add_(p, alpha=0.1)


def new_model_for_evaluation_only():
    model = Net()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    train_steps(model, optimizer, 10)
    model = Net()  # a fresh model to load a checkpoint into; the optimizer is done
    model.eval()


def replaced_in_a_branch(swap_head):
    model = Net()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    if swap_head:
        model.fc = nn.Linear(32, 10)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    train_steps(model, optimizer, 10)


moved_to_device()
rebuilt_after_new_head()
head_added_to_optimizer()
head_replaced_before_optimizer()
head_dropped_for_features()
unused_attribute()
optimizer_on_the_head_only()
wrapped_not_replaced()
deep_copy_for_ema()
new_model_for_evaluation_only()
replaced_in_a_branch(True)
