"""A MAML learner whose inner step takes gradients without create_graph (GG503).

`MetaLearner` is built as `MetaLearner(Settings())`: the dataclass instance goes straight to
the constructor's parameter and is kept as `self.settings`, so `self.settings.inner_rate` is
the number 0.05 and `range(self.settings.inner_steps)` runs once. `adapt` takes the support
loss's gradients with `torch.autograd.grad(...)` but without `create_graph=True`, so the
gradients have no history: the fast weights `w - rate * g` carry them as constants, and the
query loss backpropagated in `meta_step` holds a term that trains nothing. No error is
raised; the meta-gradient silently equals the first-order one (checked with torch 2.13.0
below, against the same learner with `create_graph=True`).

Look-alikes: the learner with `create_graph=True`, and a Meta-SGD learner whose inner rates
are learnable tensors (`rate * g` then has history: the term trains the rates).

Modelled on dragen1860/MAML-Pytorch#32 and #63 (an implementation meant to be second order
whose inner `torch.autograd.grad` has no `create_graph=True`, so only the first-order
approximation is trained).
"""

from dataclasses import dataclass

import torch
import torch.nn.functional as F


@dataclass
class Settings:
    inner_rate: float = 0.05
    inner_steps: int = 1
    tasks: int = 2


def initial_weights():
    torch.manual_seed(0)
    return [(torch.randn(4, 3) * 0.3).requires_grad_(), torch.zeros(4).requires_grad_()]


def predict(x, weights):
    w, b = weights
    return F.linear(x, w, b)


class MetaLearner:
    def __init__(self, settings):
        self.settings = settings
        self.weights = initial_weights()

    def adapt(self, x, y):
        fast = self.weights
        for _ in range(self.settings.inner_steps):
            loss = F.mse_loss(predict(x, fast), y)
            grads = torch.autograd.grad(loss, fast)  # expect: GG503
            fast = [w - self.settings.inner_rate * g for w, g in zip(fast, grads)]
        return fast

    def meta_step(self, tasks):
        meta_loss = 0.0
        for x_support, y_support, x_query, y_query in tasks:
            fast = self.adapt(x_support, y_support)
            meta_loss = meta_loss + F.mse_loss(predict(x_query, fast), y_query)
        meta_loss.backward()
        return [w.grad for w in self.weights]


class SecondOrderLearner:
    def __init__(self, settings):
        self.settings = settings
        self.weights = initial_weights()

    def adapt(self, x, y):
        fast = self.weights
        for _ in range(self.settings.inner_steps):
            loss = F.mse_loss(predict(x, fast), y)
            grads = torch.autograd.grad(loss, fast, create_graph=True)
            fast = [w - self.settings.inner_rate * g for w, g in zip(fast, grads)]
        return fast

    def meta_step(self, tasks):
        meta_loss = 0.0
        for x_support, y_support, x_query, y_query in tasks:
            fast = self.adapt(x_support, y_support)
            meta_loss = meta_loss + F.mse_loss(predict(x_query, fast), y_query)
        meta_loss.backward()
        return [w.grad for w in self.weights]


def meta_sgd_step(tasks):
    weights = initial_weights()
    rates = [torch.full_like(w, 0.05).requires_grad_() for w in weights]
    meta_loss = 0.0
    for x_support, y_support, x_query, y_query in tasks:
        loss = F.mse_loss(predict(x_support, weights), y_support)
        grads = torch.autograd.grad(loss, weights)
        fast = [w - r * g for w, r, g in zip(weights, rates, grads)]
        meta_loss = meta_loss + F.mse_loss(predict(x_query, fast), y_query)
    meta_loss.backward()
    return [r.grad for r in rates]


def sample_tasks(count):
    torch.manual_seed(1)
    return [
        (torch.randn(5, 3), torch.randn(5, 4), torch.randn(5, 3), torch.randn(5, 4))
        for _ in range(count)
    ]


def first_order_gradient(tasks):
    """The meta-gradient with the inner gradients held constant, computed by hand."""
    total = [torch.zeros_like(w) for w in initial_weights()]
    for x_support, y_support, x_query, y_query in tasks:
        fast = [w.detach().clone().requires_grad_() for w in initial_weights()]
        loss = F.mse_loss(predict(x_support, fast), y_support)
        grads = torch.autograd.grad(loss, fast)
        adapted = [(w - 0.05 * g).detach().requires_grad_() for w, g in zip(fast, grads)]
        query = F.mse_loss(predict(x_query, adapted), y_query)
        for index, g in enumerate(torch.autograd.grad(query, adapted)):
            total[index] += g
    return total


def main():
    tasks = sample_tasks(Settings().tasks)
    dropped = MetaLearner(Settings()).meta_step(tasks)
    first_order = first_order_gradient(tasks)
    assert all(torch.allclose(a, b, atol=1e-6) for a, b in zip(dropped, first_order))
    kept = SecondOrderLearner(Settings()).meta_step(tasks)
    assert not all(torch.allclose(a, b, atol=1e-6) for a, b in zip(kept, first_order))
    assert all(r is not None and r.abs().sum() > 0 for r in meta_sgd_step(tasks))
    print("the meta-gradient without create_graph is the first-order one")


if __name__ == "__main__":
    main()
