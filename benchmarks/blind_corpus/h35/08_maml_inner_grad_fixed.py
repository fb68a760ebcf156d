"""Second-order MAML meta-learner for few-shot regression.

Modelled on: https://github.com/dragen1860/MAML-Pytorch/issues/59

The Meta class computes the inner-loop gradient with
torch.autograd.grad(loss, fast_weights) and builds the adapted weights as
w - lr * grad, then backpropagates the query loss into the meta-parameters.
Without create_graph=True the inner gradients are constants, so the
second-order term (the Hessian-vector product) silently vanishes and the
"second-order" MAML is actually first-order.

Fixed version: create_graph=True keeps the inner gradients differentiable.
"""
import argparse

import torch
import torch.nn.functional as F


class Learner:
    """Functional two-layer MLP whose weights are passed explicitly."""

    def __init__(self, hidden=16):
        g = torch.Generator().manual_seed(0)
        self.vars = [
            (torch.randn(hidden, 1, generator=g) * 0.5).requires_grad_(),
            torch.zeros(hidden, requires_grad=True),
            (torch.randn(1, hidden, generator=g) * 0.5).requires_grad_(),
            torch.zeros(1, requires_grad=True),
        ]

    def parameters(self):
        return self.vars

    def forward(self, x, vars=None):
        w1, b1, w2, b2 = self.vars if vars is None else vars
        return F.linear(torch.tanh(F.linear(x, w1, b1)), w2, b2)


class Meta:
    def __init__(self, net, update_lr, meta_lr, update_step):
        self.net = net
        self.update_lr = update_lr
        self.update_step = update_step
        self.meta_optim = torch.optim.Adam(net.parameters(), lr=meta_lr)

    def adapt(self, x_spt, y_spt):
        fast_weights = list(self.net.parameters())
        for _ in range(self.update_step):
            loss = F.mse_loss(self.net.forward(x_spt, fast_weights), y_spt)
            grad = torch.autograd.grad(loss, fast_weights, create_graph=True)
            fast_weights = [w - self.update_lr * g for w, g in zip(fast_weights, grad)]
        return fast_weights

    def meta_loss(self, tasks):
        total = 0.0
        for x_spt, y_spt, x_qry, y_qry in tasks:
            fast = self.adapt(x_spt, y_spt)
            total = total + F.mse_loss(self.net.forward(x_qry, fast), y_qry)
        return total / len(tasks)

    def meta_gradients(self, tasks):
        self.meta_optim.zero_grad()
        self.meta_loss(tasks).backward()
        return [p.grad.clone() for p in self.net.parameters()]


def sample_tasks(n, k=5):
    g = torch.Generator().manual_seed(1)
    tasks = []
    for _ in range(n):
        amp, phase = torch.rand(2, generator=g) * 2 + 0.5
        xs = torch.rand(2 * k, 1, generator=g) * 6 - 3
        ys = amp * torch.sin(xs + phase)
        tasks.append((xs[:k], ys[:k], xs[k:], ys[k:]))
    return tasks


def reference_second_order(net, tasks, lr, steps):
    params = net.parameters()
    total = 0.0
    for x_spt, y_spt, x_qry, y_qry in tasks:
        fast = list(params)
        for _ in range(steps):
            loss = F.mse_loss(net.forward(x_spt, fast), y_spt)
            g = torch.autograd.grad(loss, fast, create_graph=True)
            fast = [w - lr * gi for w, gi in zip(fast, g)]
        total = total + F.mse_loss(net.forward(x_qry, fast), y_qry)
    return torch.autograd.grad(total / len(tasks), params)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--update-lr", type=float, default=0.4)
    parser.add_argument("--update-step", type=int, default=2)
    args = parser.parse_args([])
    net = Learner()
    meta = Meta(net, args.update_lr, 1e-3, args.update_step)
    tasks = sample_tasks(3)
    got = meta.meta_gradients(tasks)
    ref = reference_second_order(net, tasks, args.update_lr, args.update_step)
    diff = max((a - b).abs().max().item() for a, b in zip(got, ref))
    if diff > 1e-5:
        print(f"BUGGY: meta-gradient misses the second-order term (max diff {diff:.3e})")
    else:
        print("FIXED: ok")
