"""Look-alike: first-order MAML that uses autograd.grad without create_graph on purpose.

Modelled on: https://github.com/dragen1860/MAML-Pytorch/issues/26 (counterpart)

This meta-learner is explicitly first-order (FOMAML): the fast weights are
built from *detached* copies of the initial weights, the inner gradients are
plain numbers, and the meta-gradient is the query-loss gradient with respect
to the adapted weights, written into ``p.grad`` by hand.  No
``autograd.grad`` result is differentiated again or added to a loss, so not
passing ``create_graph=True`` is correct here (and saves memory).
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


class Learner(nn.Module):
    def __init__(self, n_in, n_hidden, n_way):
        super().__init__()
        self.vars = nn.ParameterList([
            nn.Parameter(torch.randn(n_hidden, n_in) * 0.3), nn.Parameter(torch.zeros(n_hidden)),
            nn.Parameter(torch.randn(n_way, n_hidden) * 0.3), nn.Parameter(torch.zeros(n_way)),
        ])

    def forward(self, x, vars=None):
        w1, b1, w2, b2 = self.vars if vars is None else vars
        return F.linear(torch.tanh(F.linear(x, w1, b1)), w2, b2)


class FirstOrderMeta(nn.Module):
    def __init__(self, args):
        super().__init__()
        self.update_lr = args.update_lr
        self.update_step = args.update_step
        self.net = Learner(args.n_in, args.n_hidden, args.n_way)
        self.meta_optim = torch.optim.Adam(self.net.parameters(), lr=args.meta_lr)

    def adapt(self, x_spt, y_spt):
        fast_weights = [p.detach().clone().requires_grad_() for p in self.net.vars]
        for _ in range(self.update_step):
            loss = F.cross_entropy(self.net(x_spt, fast_weights), y_spt)
            grad = torch.autograd.grad(loss, fast_weights)
            with torch.no_grad():
                fast_weights = [p - self.update_lr * g for g, p in zip(grad, fast_weights)]
            fast_weights = [p.requires_grad_() for p in fast_weights]
        return fast_weights

    def forward(self, x_spt, y_spt, x_qry, y_qry):
        task_num = x_spt.size(0)
        meta_grads = [torch.zeros_like(p) for p in self.net.vars]
        qry_losses = []
        for i in range(task_num):
            fast_weights = self.adapt(x_spt[i], y_spt[i])
            loss_q = F.cross_entropy(self.net(x_qry[i], fast_weights), y_qry[i])
            grads = torch.autograd.grad(loss_q, fast_weights)
            meta_grads = [m + g / task_num for m, g in zip(meta_grads, grads)]
            qry_losses.append(loss_q.item())
        self.meta_optim.zero_grad()
        for p, g in zip(self.net.vars, meta_grads):
            p.grad = g
        self.meta_optim.step()
        return sum(qry_losses) / task_num


def sample_tasks(args, g):
    x_spt = torch.randn(args.task_num, args.n_way * args.k_spt, args.n_in, generator=g)
    y_spt = torch.arange(args.n_way).repeat(args.k_spt).expand(args.task_num, -1)
    x_qry = torch.randn(args.task_num, args.n_way * args.k_qry, args.n_in, generator=g)
    y_qry = torch.arange(args.n_way).repeat(args.k_qry).expand(args.task_num, -1)
    return x_spt, y_spt, x_qry, y_qry


def get_args(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--n_way", type=int, default=3)
    p.add_argument("--k_spt", type=int, default=2)
    p.add_argument("--k_qry", type=int, default=3)
    p.add_argument("--n_in", type=int, default=6)
    p.add_argument("--n_hidden", type=int, default=12)
    p.add_argument("--task_num", type=int, default=2)
    p.add_argument("--meta_lr", type=float, default=1e-2)
    p.add_argument("--update_lr", type=float, default=0.4)
    p.add_argument("--update_step", type=int, default=2)
    p.add_argument("--epochs", type=int, default=3)
    return p.parse_args(argv)


if __name__ == "__main__":
    torch.manual_seed(0)
    args = get_args([])
    meta = FirstOrderMeta(args)
    g = torch.Generator().manual_seed(0)
    before = [p.detach().clone() for p in meta.net.vars]
    for _ in range(args.epochs):
        meta(*sample_tasks(args, g))
    assert all(not torch.equal(b, p.detach()) for b, p in zip(before, meta.net.vars))
    print("OK")
