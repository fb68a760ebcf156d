"""Gradients cleared by a helper at the top of a training loop, before the first backward,
on weights or a model that the caller of the loop has just made (GG407).

The shape of wiseodd/generative-models#26 (`reset_grad()` zeroing `p.grad.data` at the
start of the loop: "AttributeError: 'NoneType' object has no attribute 'data'") and of
jcjohnson/pytorch-examples#14, with the weights made one function up and handed down:
https://github.com/wiseodd/generative-models/issues/26

Each case raises on its first iteration:
AttributeError: 'NoneType' object has no attribute 'zero_' (or 'norm')
"""

import torch
from torch import nn

torch.manual_seed(0)


class Regressor(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.hidden = nn.Linear(features, 8)
        self.out = nn.Linear(8, 1)

    def forward(self, x):
        return self.out(torch.tanh(self.hidden(x)))


def reset_grads(model):
    for p in model.parameters():
        p.grad.zero_()  # expect: GG407


def sgd_step(model, lr):
    with torch.no_grad():
        for p in model.parameters():
            p -= lr * p.grad


def fit_model(model, batches, epochs):
    for epoch in range(epochs):
        total = 0.0
        for inputs, targets in batches:
            reset_grads(model)
            loss = ((model(inputs) - targets) ** 2).mean()
            loss.backward()
            sgd_step(model, 0.05)
            total += loss.item()
        print("epoch", epoch, total)


def clear(weight):
    weight.grad.zero_()  # expect: GG407


def fit_weight(weight, x, y, steps=5):
    for step in range(steps):
        clear(weight)
        loss = ((x @ weight - y) ** 2).mean()
        loss.backward()
        weight.data -= 0.1 * weight.grad


def log_grad_norms(net, step):
    for p in net.parameters():
        print(step, p.grad.norm().item())  # expect: GG407


def fit_logged(net, optimizer, batches):
    for step, (inputs, targets) in enumerate(batches):
        optimizer.zero_grad()
        log_grad_norms(net, step)
        loss = nn.functional.mse_loss(net(inputs), targets)
        loss.backward()
        optimizer.step()


def run_model():
    batches = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(3)]
    model = Regressor(4)
    fit_model(model, batches, epochs=2)


def run_weight():
    x = torch.randn(16, 3)
    y = x.sum(dim=1)
    weight = torch.zeros(3, requires_grad=True)
    fit_weight(weight, x, y)


def run_logged():
    batches = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(3)]
    net = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
    optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
    fit_logged(net, optimizer, batches)


if __name__ == "__main__":
    failures = 0
    for case in (run_model, run_weight, run_logged):
        try:
            case()
        except AttributeError as error:
            print(case.__name__, "AttributeError:", error)
            failures += 1
    assert failures == 3
