"""Second-order MAML whose inner step lost create_graph, with its step size copied out of the
options it is built from (GG503).

`SineMAML(opts)` keeps `self.inner_lr = opts.inner_lr`, a setting `options(argv)` parses
with argparse (a float whatever the command line says); `KeyedMAML(SETTINGS)` keeps
`self.inner_lr = settings["inner_lr"]` of a module-level dict of literals. Both adapt the
regressor's weights with gradients from `torch.autograd.grad(...)` taken without
`create_graph=True`: the gradients have no history, so `w - self.inner_lr * g` holds them as
constants and the query loss backpropagated in `outer_step` gets no second-order term. No
error is raised; the meta-gradient silently equals the first-order one (checked with torch
2.13.0 below).

The regressor's `forward(self, x, vars=None)` takes the adapted weights in a parameter named
`vars`, as many MAML learners do: it is not the builtin `vars`.

Modelled on dragen1860/MAML-Pytorch#17 (https://github.com/dragen1860/MAML-Pytorch/issues/17):
the inner-loop gradients of a learner meant to be second order have `requires_grad=False`.
"""

import argparse

import torch
import torch.nn.functional as F
from torch import nn

SETTINGS = {"inner_lr": 0.05, "meta_lr": 0.001}


def options(argv):
    parser = argparse.ArgumentParser(description="sine regression with MAML")
    parser.add_argument("--inner-lr", type=float, default=0.05)
    parser.add_argument("--meta-lr", type=float, default=0.001)
    parser.add_argument("--tasks", type=int, default=3)
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


class SineMAML(nn.Module):
    def __init__(self, opts):
        super().__init__()
        self.inner_lr = opts.inner_lr
        self.model = Regressor()
        self.outer = torch.optim.Adam(self.model.parameters(), lr=opts.meta_lr)

    def adapt(self, x, y):
        weights = list(self.model.parameters())
        support = F.mse_loss(self.model(x, weights), y)
        grads = torch.autograd.grad(support, weights)  # expect: GG503
        return [w - self.inner_lr * g for w, g in zip(weights, grads)]

    def outer_step(self, tasks):
        self.outer.zero_grad()
        total = 0.0
        for xs, ys, xq, yq in tasks:
            adapted = self.adapt(xs, ys)
            total = total + F.mse_loss(self.model(xq, adapted), yq)
        total.backward()
        return [p.grad.clone() for p in self.model.parameters()]


class KeyedMAML(nn.Module):
    def __init__(self, settings):
        super().__init__()
        self.inner_lr = settings["inner_lr"]
        self.model = Regressor()

    def adapt(self, x, y):
        weights = list(self.model.parameters())
        support = F.mse_loss(self.model(x, weights), y)
        grads = torch.autograd.grad(support, weights)  # expect: GG503
        return [w - self.inner_lr * g for w, g in zip(weights, grads)]

    def meta_gradient(self, tasks):
        total = 0.0
        for xs, ys, xq, yq in tasks:
            total = total + F.mse_loss(self.model(xq, self.adapt(xs, ys)), yq)
        total.backward()
        return [p.grad.clone() for p in self.model.parameters()]


def sine_tasks(count):
    generator = torch.Generator().manual_seed(3)
    tasks = []
    for _ in range(count):
        phase = torch.rand(1, generator=generator) * 3.0
        xs = torch.rand(10, 1, generator=generator) * 6.0 - 3.0
        xq = torch.rand(10, 1, generator=generator) * 6.0 - 3.0
        tasks.append((xs, torch.sin(xs + phase), xq, torch.sin(xq + phase)))
    return tasks


def first_order(model, tasks, lr):
    """The meta-gradient with each inner gradient held constant, by hand."""
    total = [torch.zeros_like(p) for p in model.parameters()]
    for xs, ys, xq, yq in tasks:
        weights = list(model.parameters())
        grads = torch.autograd.grad(F.mse_loss(model(xs, weights), ys), weights)
        adapted = [w - lr * g.detach() for w, g in zip(weights, grads)]
        for index, g in enumerate(torch.autograd.grad(F.mse_loss(model(xq, adapted), yq), weights)):
            total[index] += g
    return total


def main():
    opts = options([])
    tasks = sine_tasks(opts.tasks)
    torch.manual_seed(0)
    learner = SineMAML(opts)
    got = learner.outer_step(tasks)
    expected = first_order(learner.model, tasks, opts.inner_lr)
    assert all(torch.allclose(a, b, atol=1e-6) for a, b in zip(got, expected))
    torch.manual_seed(0)
    keyed = KeyedMAML(SETTINGS)
    got = keyed.meta_gradient(tasks)
    expected = first_order(keyed.model, tasks, SETTINGS["inner_lr"])
    assert all(torch.allclose(a, b, atol=1e-6) for a, b in zip(got, expected))
    print("the meta-gradient is the first-order one: the second-order term is lost")


if __name__ == "__main__":
    main()
