"""Gradients inspected between `zero_grad()` and `backward()` (GG407).

`optimizer.zero_grad()` and `model.zero_grad()` set every gradient to None (the default
`set_to_none=True` since torch 2.0), so code that logs or clips gradients after the reset
but before the step's own backward finds None on every iteration, not only the first. The
shape of yunjey/pytorch-tutorial#133 (a gradient histogram logged before backward:
"AttributeError: 'NoneType' object has no attribute 'data'"):
https://github.com/yunjey/pytorch-tutorial/issues/133

Each case raises on its first step:
AttributeError: 'NoneType' object has no attribute 'norm' (or 'abs', 'data', 'pow')
"""

import math

import torch
from torch import nn

torch.manual_seed(0)


def norms_after_reset():
    net = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
    optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
    inputs, targets = torch.randn(16, 4), torch.randn(16, 1)
    for step in range(3):
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(net(inputs), targets)
        total = sum(p.grad.norm() ** 2 for p in net.parameters())  # expect: GG407
        loss.backward()
        optimizer.step()
        print(step, float(total))


def largest_entries(model):
    for name, weight in model.named_parameters():
        print(name, weight.grad.abs().max().item())  # expect: GG407


def fit_with_report(model, batches):
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    for inputs, targets in batches:
        loss = ((model(inputs) - targets) ** 2).mean()
        optimizer.zero_grad()
        largest_entries(model)
        loss.backward()
        optimizer.step()


def run_report(batches):
    model = nn.Linear(4, 1)
    model(torch.randn(2, 4)).sum().backward()  # warm-up: the gradients exist now
    fit_with_report(model, batches)


def module_reset_then_histogram():
    layer = nn.Linear(3, 2)
    x = torch.randn(5, 3)
    for epoch in range(2):
        layer(x).sum().backward()
        layer.zero_grad()
        for p in layer.parameters():
            print(epoch, p.grad.data.mean())  # expect: GG407


def clip_by_total_norm(parameters, limit):
    parameters = list(parameters)
    total = math.sqrt(sum(p.grad.pow(2).sum().item() for p in parameters))  # expect: GG407
    for p in parameters:
        p.grad.mul_(min(1.0, limit / (total + 1e-6)))  # expect: GG407
    return total


def fit_clipped(model, optimizer, batches):
    for inputs, targets in batches:
        optimizer.zero_grad()
        clip_by_total_norm(model.parameters(), 1.0)
        loss = ((model(inputs) - targets) ** 2).mean()
        loss.backward()
        optimizer.step()


def run_clipped():
    batches = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(2)]
    model = nn.Linear(4, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    fit_clipped(model, optimizer, batches)


def run_report_cases():
    batches = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(2)]
    run_report(batches)


if __name__ == "__main__":
    failures = 0
    cases = (norms_after_reset, run_report_cases, module_reset_then_histogram, run_clipped)
    for case in cases:
        try:
            case()
        except AttributeError as error:
            print(case.__name__, "AttributeError:", error)
            failures += 1
    assert failures == 4
