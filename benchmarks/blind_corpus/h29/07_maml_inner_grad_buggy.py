"""MAML meta-learner whose inner-loop gradient is taken without create_graph=True.

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
        logits = self.net(x_spt)
        loss = F.cross_entropy(logits, y_spt)
        grad = torch.autograd.grad(loss, self.net.parameters())  # bug: GG503
        fast_weights = [p - self.update_lr * g for g, p in zip(grad, self.net.parameters())]
        for _ in range(1, self.update_step):
            loss = F.cross_entropy(self.net(x_spt, fast_weights), y_spt)
            grad = torch.autograd.grad(loss, fast_weights)
            fast_weights = [p - self.update_lr * g for g, p in zip(grad, fast_weights)]
        return fast_weights

    def forward(self, x_spt, y_spt, x_qry, y_qry):
        task_num = x_spt.size(0)
        losses_q = 0.0
        for i in range(task_num):
            fast_weights = self.adapt(x_spt[i], y_spt[i])
            losses_q = losses_q + F.cross_entropy(self.net(x_qry[i], fast_weights), y_qry[i])
        loss_q = losses_q / task_num
        self.meta_optim.zero_grad()
        loss_q.backward()
        meta_grads = [p.grad.clone() for p in self.net.parameters()]
        self.meta_optim.step()
        return loss_q.item(), meta_grads


def second_order_reference(net, lr, x_spt, y_spt, x_qry, y_qry):
    params = list(net.parameters())
    total = 0.0
    for i in range(x_spt.size(0)):
        loss = F.cross_entropy(net(x_spt[i]), y_spt[i])
        g = torch.autograd.grad(loss, params, create_graph=True)
        fw = [p - lr * gi for gi, p in zip(g, params)]
        total = total + F.cross_entropy(net(x_qry[i], fw), y_qry[i])
    return torch.autograd.grad(total / x_spt.size(0), params)


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
    ref = second_order_reference(maml.net, args.update_lr, *tasks)
    _, meta_grads = maml(*tasks)
    gap = max((a - b).abs().max().item() for a, b in zip(meta_grads, ref))
    if gap > 1e-5:
        print(f"BUGGY: meta-gradient is first-order only (max gap to second-order {gap:.2e})")
    else:
        print("no difference")
