"""GG101 - backward() on a loss that was accumulated inside torch.no_grad().

A small MAML-style meta learner. The query loss measured "after the first inner
update" is only meant for logging, so the author put it under torch.no_grad().
With update_step=1 the inner loop `for k in range(1, update_step)` never runs,
so the meta loss used for the outer backward() is exactly that no-grad value.
torch raises:
    RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn

Modelled on: https://github.com/dragen1860/MAML-Pytorch/issues/40
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


def get_args(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--n_way", type=int, default=3)
    p.add_argument("--k_spt", type=int, default=2)
    p.add_argument("--k_qry", type=int, default=4)
    p.add_argument("--task_num", type=int, default=2)
    p.add_argument("--update_step", type=int, default=1)
    p.add_argument("--update_lr", type=float, default=0.4)
    p.add_argument("--meta_lr", type=float, default=1e-3)
    p.add_argument("--epochs", type=int, default=3)
    return p.parse_args(argv)


class Learner(nn.Module):
    """Two-layer MLP whose forward can run with an external list of weights."""

    def __init__(self, in_dim, hidden, n_way):
        super().__init__()
        self.vars = nn.ParameterList([
            nn.Parameter(torch.randn(hidden, in_dim) * 0.1),
            nn.Parameter(torch.zeros(hidden)),
            nn.Parameter(torch.randn(n_way, hidden) * 0.1),
            nn.Parameter(torch.zeros(n_way)),
        ])

    def forward(self, x, vars=None):
        w1, b1, w2, b2 = self.vars if vars is None else vars
        h = F.relu(F.linear(x, w1, b1))
        return F.linear(h, w2, b2)


class Meta(nn.Module):
    def __init__(self, args, in_dim=8):
        super().__init__()
        self.update_lr = args.update_lr
        self.update_step = args.update_step
        self.net = Learner(in_dim, 16, args.n_way)
        self.meta_optim = torch.optim.Adam(self.net.parameters(), lr=args.meta_lr)

    def _inner(self, loss, weights):
        grads = torch.autograd.grad(loss, weights, create_graph=False)
        return [w - self.update_lr * g for w, g in zip(weights, grads)]

    def forward(self, x_spt, y_spt, x_qry, y_qry):
        task_num = x_spt.size(0)
        losses_q = [0.0 for _ in range(self.update_step + 1)]
        for i in range(task_num):
            logits = self.net(x_spt[i])
            loss = F.cross_entropy(logits, y_spt[i])
            fast_weights = self._inner(loss, list(self.net.parameters()))

            with torch.no_grad():
                # query loss before and after the first update, for the log
                logits_q = self.net(x_qry[i], list(self.net.parameters()))
                losses_q[0] += F.cross_entropy(logits_q, y_qry[i])
                logits_q = self.net(x_qry[i], fast_weights)
                losses_q[1] += F.cross_entropy(logits_q, y_qry[i])

            for k in range(1, self.update_step):
                logits = self.net(x_spt[i], fast_weights)
                loss = F.cross_entropy(logits, y_spt[i])
                fast_weights = self._inner(loss, fast_weights)
                logits_q = self.net(x_qry[i], fast_weights)
                losses_q[k + 1] += F.cross_entropy(logits_q, y_qry[i])

        loss_q = losses_q[-1] / task_num
        self.meta_optim.zero_grad()
        loss_q.backward()  # bug: GG101
        self.meta_optim.step()
        return [float(l) / task_num for l in losses_q]


def sample_batch(args, in_dim=8):
    n_spt = args.n_way * args.k_spt
    n_qry = args.n_way * args.k_qry
    x_spt = torch.randn(args.task_num, n_spt, in_dim)
    y_spt = torch.arange(args.n_way).repeat(args.k_spt).expand(args.task_num, -1)
    x_qry = torch.randn(args.task_num, n_qry, in_dim)
    y_qry = torch.arange(args.n_way).repeat(args.k_qry).expand(args.task_num, -1)
    return x_spt, y_spt, x_qry, y_qry


def main(argv=None):
    torch.manual_seed(0)
    args = get_args(argv)
    maml = Meta(args)
    for epoch in range(args.epochs):
        losses = maml(*sample_batch(args))
        print(f"epoch {epoch}: query losses per step {losses}")


if __name__ == "__main__":
    try:
        main([])
    except RuntimeError as e:
        print(f"BUGGY: {str(e).splitlines()[0]}")
        raise SystemExit(0)
    raise SystemExit("NO BUG")
