"""Reptile meta-learner: inner-loop autograd.grad results are used only for plain updates.

Look-alike: the inner loop uses torch.autograd.grad without create_graph, but the gradients
only drive detached SGD steps on a copy of the weights; the meta-update sets
``p.grad = p - adapted`` (Reptile) and never differentiates through the inner gradients.

Modelled on: https://github.com/dragen1860/MAML-Pytorch/issues/32

``Meta.forward`` adapts ``fast_weights = w - lr * grad`` with
``grad = torch.autograd.grad(loss, self.net.parameters())``. Because create_graph is left
at its default (False), ``grad`` is a constant with no grad_fn: the query loss computed
with the fast weights differentiates only through the ``w`` term, so the meta-update is
silently first-order even though the code is meant to be second-order MAML. The check
compares the meta-gradient against a reference computed with create_graph=True.
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


class Learner(nn.Module):
    """Functional MLP: forward can run with an explicit list of weights."""

    def __init__(self, n_in, n_hidden, n_way):
        super().__init__()
        self.vars = nn.ParameterList([
            nn.Parameter(torch.randn(n_hidden, n_in) * 0.3), nn.Parameter(torch.zeros(n_hidden)),
            nn.Parameter(torch.randn(n_way, n_hidden) * 0.3), nn.Parameter(torch.zeros(n_way)),
        ])

    def forward(self, x, vars=None):
        w1, b1, w2, b2 = self.vars if vars is None else vars
        x = torch.tanh(F.linear(x, w1, b1))
        return F.linear(x, w2, b2)

    def parameters(self, recurse=True):
        return self.vars


class Meta(nn.Module):
    def __init__(self, args):
        super().__init__()
        self.update_lr = args.update_lr
        self.update_step = args.update_step
        self.net = Learner(args.n_in, args.n_hidden, args.n_way)
        self.meta_optim = torch.optim.SGD(self.net.parameters(), lr=args.meta_lr)

    def adapt(self, x_spt, y_spt):
        fast_weights = [p.detach().clone().requires_grad_() for p in self.net.parameters()]
        for _ in range(self.update_step):
            loss = F.cross_entropy(self.net(x_spt, fast_weights), y_spt)
            grad = torch.autograd.grad(loss, fast_weights)
            with torch.no_grad():
                fast_weights = [(p - self.update_lr * g).requires_grad_() for g, p in zip(grad, fast_weights)]
        return [w.detach() for w in fast_weights]

    def forward(self, x_spt, y_spt, x_qry, y_qry):
        task_num = x_spt.size(0)
        params = list(self.net.parameters())
        deltas = [torch.zeros_like(p) for p in params]
        for i in range(task_num):
            adapted = self.adapt(x_spt[i], y_spt[i])
            for d, p, a in zip(deltas, params, adapted):
                d += (p.detach() - a) / task_num
        self.meta_optim.zero_grad()
        for p, d in zip(params, deltas):
            p.grad = d.clone()
        meta_grads = [p.grad.clone() for p in params]
        self.meta_optim.step()
        with torch.no_grad():
            loss_q = sum(F.cross_entropy(self.net(x_qry[i]), y_qry[i]) for i in range(task_num)) / task_num
        return loss_q.item(), meta_grads


def make_tasks(task_num=3, n_way=3, shots=4, n_in=6):
    x_spt = torch.randn(task_num, n_way * shots, n_in)
    y_spt = torch.arange(n_way).repeat(shots).expand(task_num, -1)
    x_qry = torch.randn(task_num, n_way * shots, n_in)
    return x_spt, y_spt, x_qry, y_spt.clone()


def parse_args(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--n_in", type=int, default=6)
    p.add_argument("--n_hidden", type=int, default=16)
    p.add_argument("--n_way", type=int, default=3)
    p.add_argument("--update_lr", type=float, default=0.4)
    p.add_argument("--meta_lr", type=float, default=1e-3)
    p.add_argument("--update_step", type=int, default=1)
    return p.parse_args(argv)


if __name__ == "__main__":
    torch.manual_seed(0)
    args = parse_args([])
    maml = Meta(args)
    tasks = make_tasks()
    before = [p.detach().clone() for p in maml.net.parameters()]
    _, meta_grads = maml(*tasks)
    moved = any(not torch.equal(b, p) for b, p in zip(before, maml.net.parameters()))
    assert moved and all(torch.isfinite(g).all() for g in meta_grads)
    print("OK")
