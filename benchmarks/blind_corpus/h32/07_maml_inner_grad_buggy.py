"""MAML meta-learner: inner-loop gradients taken without create_graph.

Modelled on: https://github.com/dragen1860/MAML-Pytorch/issues/26

The ``Meta`` class adapts "fast weights" on each task's support set with
``torch.autograd.grad(loss, params)`` and then back-propagates the query loss
through those fast weights to the initial parameters.  Because the inner
``autograd.grad`` call does not pass ``create_graph=True`` the returned
gradients carry no graph: the meta-gradient silently drops the second-order
(Hessian) term and the "second-order MAML" is really first-order MAML.  The
check below compares the meta-gradient with the true second-order one.
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


class Learner(nn.Module):
    """Functional MLP so it can be evaluated with arbitrary weights."""

    def __init__(self, n_in, n_hidden, n_way):
        super().__init__()
        self.vars = nn.ParameterList([
            nn.Parameter(torch.randn(n_hidden, n_in) * 0.3), nn.Parameter(torch.zeros(n_hidden)),
            nn.Parameter(torch.randn(n_way, n_hidden) * 0.3), nn.Parameter(torch.zeros(n_way)),
        ])

    def forward(self, x, vars=None):
        w1, b1, w2, b2 = self.vars if vars is None else vars
        h = torch.tanh(F.linear(x, w1, b1))
        return F.linear(h, w2, b2)

    def parameters(self, recurse=True):
        return self.vars


class Meta(nn.Module):
    def __init__(self, args):
        super().__init__()
        self.update_lr = args.update_lr
        self.update_step = args.update_step
        self.net = Learner(args.n_in, args.n_hidden, args.n_way)
        self.meta_optim = torch.optim.Adam(self.net.parameters(), lr=args.meta_lr)

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

    def meta_loss(self, x_spt, y_spt, x_qry, y_qry):
        task_num = x_spt.size(0)
        total = 0.0
        for i in range(task_num):
            fast_weights = self.adapt(x_spt[i], y_spt[i])
            total = total + F.cross_entropy(self.net(x_qry[i], fast_weights), y_qry[i])
        return total / task_num

    def forward(self, x_spt, y_spt, x_qry, y_qry):
        loss_q = self.meta_loss(x_spt, y_spt, x_qry, y_qry)
        self.meta_optim.zero_grad()
        loss_q.backward()
        grads = [p.grad.clone() for p in self.net.parameters()]
        self.meta_optim.step()
        return loss_q.item(), grads


def second_order_reference(net, x_spt, y_spt, x_qry, y_qry, lr, steps):
    params = list(net.parameters())
    total = 0.0
    for i in range(x_spt.size(0)):
        fw = params
        for _ in range(steps):
            l = F.cross_entropy(net(x_spt[i], fw), y_spt[i])
            g = torch.autograd.grad(l, fw, create_graph=True)
            fw = [p - lr * gi for gi, p in zip(g, fw)]
        total = total + F.cross_entropy(net(x_qry[i], fw), y_qry[i])
    return torch.autograd.grad(total / x_spt.size(0), params)


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
    p.add_argument("--meta_lr", type=float, default=1e-3)
    p.add_argument("--update_lr", type=float, default=0.4)
    p.add_argument("--update_step", type=int, default=2)
    return p.parse_args(argv)


if __name__ == "__main__":
    torch.manual_seed(0)
    args = get_args([])
    maml = Meta(args)
    batch = sample_tasks(args, torch.Generator().manual_seed(0))
    ref = second_order_reference(maml.net, *batch, args.update_lr, args.update_step)
    _, got = maml(*batch)
    diff = max((a - b).abs().max().item() for a, b in zip(got, ref))
    if diff > 1e-5:
        print(f"BUGGY: meta-gradient misses the second-order term (max diff {diff:.2e})")
    else:
        print("meta-gradient is second order")
