"""Look-alikes of a MAML inner step without create_graph whose step size is copied out of the
options the learner is built from (GG503 must stay silent).

Each learner keeps `self.inner_lr = opts.inner_lr` (argparse) or `settings["inner_lr"]`, as
`maml_rates_copied_from_parsed_options.py` does, but its gradients are fine:

* `SecondOrderMAML` passes `create_graph=True`: the query loss differentiates through them;
* `FirstOrderMAML` detaches the inner gradients on purpose (first-order MAML);
* `Reptile` uses the gradients only in a hand-written SGD step under `torch.no_grad()`, then
  moves the initial weights toward the adapted ones: nothing is differentiated through them;
* `MetaSGD` is handed a learnable step size (an `nn.Parameter` in the settings dict): the
  term `rate * g` has history and trains the rate.

The options object is a namespace `parse_args` builds; the file's methods store only into
their own instances (`self.inner_lr = ...`), which changes no namespace. Checked with torch
2.13.0 below. Modelled on the second-order and first-order learners discussed in
dragen1860/MAML-Pytorch#32 (https://github.com/dragen1860/MAML-Pytorch/issues/32).
"""

import argparse

import torch
import torch.nn.functional as F
from torch import nn


def options(argv):
    parser = argparse.ArgumentParser()
    parser.add_argument("--inner-lr", type=float, default=0.05)
    parser.add_argument("--meta-lr", type=float, default=0.001)
    parser.add_argument("--reptile-step", type=float, default=0.5)
    return parser.parse_args(argv)


class Regressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = nn.Linear(1, 8)
        self.out = nn.Linear(8, 1)

    def forward(self, x, vars=None):
        if vars is None:
            vars = [self.hidden.weight, self.hidden.bias, self.out.weight, self.out.bias]
        h = torch.tanh(F.linear(x, vars[0], vars[1]))
        return F.linear(h, vars[2], vars[3])


class SecondOrderMAML(nn.Module):
    def __init__(self, opts):
        super().__init__()
        self.inner_lr = opts.inner_lr
        self.model = Regressor()
        self.outer = torch.optim.Adam(self.model.parameters(), lr=opts.meta_lr)

    def outer_step(self, tasks):
        self.outer.zero_grad()
        total = 0.0
        for xs, ys, xq, yq in tasks:
            weights = list(self.model.parameters())
            support = F.mse_loss(self.model(xs, weights), ys)
            grads = torch.autograd.grad(support, weights, create_graph=True)
            adapted = [w - self.inner_lr * g for w, g in zip(weights, grads)]
            total = total + F.mse_loss(self.model(xq, adapted), yq)
        total.backward()
        self.outer.step()
        return total.item()


class FirstOrderMAML(nn.Module):
    def __init__(self, opts):
        super().__init__()
        self.inner_lr = opts.inner_lr
        self.model = Regressor()

    def meta_gradient(self, tasks):
        total = 0.0
        for xs, ys, xq, yq in tasks:
            weights = list(self.model.parameters())
            support = F.mse_loss(self.model(xs, weights), ys)
            grads = [g.detach() for g in torch.autograd.grad(support, weights)]
            adapted = [w - self.inner_lr * g for w, g in zip(weights, grads)]
            total = total + F.mse_loss(self.model(xq, adapted), yq)
        total.backward()
        return [p.grad.clone() for p in self.model.parameters()]


class Reptile:
    def __init__(self, opts):
        self.inner_lr = opts.inner_lr
        self.step = opts.reptile_step
        self.model = Regressor()

    def train_task(self, xs, ys):
        start = [p.detach().clone() for p in self.model.parameters()]
        for _ in range(3):
            loss = F.mse_loss(self.model(xs), ys)
            grads = torch.autograd.grad(loss, list(self.model.parameters()))
            with torch.no_grad():
                for p, g in zip(self.model.parameters(), grads):
                    p -= self.inner_lr * g
        with torch.no_grad():
            for p, s in zip(self.model.parameters(), start):
                p.copy_(s + self.step * (p - s))
        return loss.item()


class MetaSGD(nn.Module):
    def __init__(self, settings):
        super().__init__()
        self.rate = settings["rate"]
        self.model = Regressor()

    def rate_gradient(self, tasks):
        total = 0.0
        for xs, ys, xq, yq in tasks:
            weights = list(self.model.parameters())
            grads = torch.autograd.grad(F.mse_loss(self.model(xs, weights), ys), weights)
            adapted = [w - self.rate * g for w, g in zip(weights, grads)]
            total = total + F.mse_loss(self.model(xq, adapted), yq)
        total.backward()
        return self.rate.grad


def sine_tasks(count):
    generator = torch.Generator().manual_seed(5)
    tasks = []
    for _ in range(count):
        phase = torch.rand(1, generator=generator) * 3.0
        xs = torch.rand(10, 1, generator=generator) * 6.0 - 3.0
        xq = torch.rand(10, 1, generator=generator) * 6.0 - 3.0
        tasks.append((xs, torch.sin(xs + phase), xq, torch.sin(xq + phase)))
    return tasks


def main():
    opts = options([])
    tasks = sine_tasks(3)
    torch.manual_seed(0)
    assert SecondOrderMAML(opts).outer_step(tasks) > 0
    grads = FirstOrderMAML(opts).meta_gradient(tasks)
    assert all(g.abs().sum() > 0 for g in grads)
    reptile = Reptile(opts)
    assert all(reptile.train_task(xs, ys) >= 0 for xs, ys, _, _ in tasks)
    rate = MetaSGD({"rate": nn.Parameter(torch.tensor(0.05))}).rate_gradient(tasks)
    assert rate is not None and rate.abs() > 0
    print("ok")


if __name__ == "__main__":
    main()
