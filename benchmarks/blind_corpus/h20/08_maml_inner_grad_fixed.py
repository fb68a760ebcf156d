"""GG503 (fixed) - the inner-loop gradient is taken with create_graph=True.

With create_graph=True the support-set gradient is itself differentiable, so the
query loss back-propagates through it and the meta-gradient contains the
second-order terms (it differs from the first-order approximation).

Modelled on: https://github.com/dragen1860/MAML-Pytorch/issues/17
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

ARGS = dict(n_way=3, k_spt=2, k_qry=4, in_dim=6, hidden=16,
            update_lr=0.4, meta_lr=1e-3, update_step=2, task_num=2)


class Learner(nn.Module):
    """Functional MLP so it can run with externally supplied weights."""

    def __init__(self, in_dim, hidden, n_way):
        super().__init__()
        self.vars = nn.ParameterList([
            nn.Parameter(torch.randn(hidden, in_dim) * 0.3), nn.Parameter(torch.zeros(hidden)),
            nn.Parameter(torch.randn(n_way, hidden) * 0.3), nn.Parameter(torch.zeros(n_way)),
        ])

    def forward(self, x, vars=None):
        w1, b1, w2, b2 = self.vars if vars is None else vars
        x = torch.tanh(F.linear(x, w1, b1))
        return F.linear(x, w2, b2)


class Meta(nn.Module):
    def __init__(self, args):
        super().__init__()
        self.update_lr = args["update_lr"]
        self.update_step = args["update_step"]
        self.net = Learner(args["in_dim"], args["hidden"], args["n_way"])
        self.meta_optim = torch.optim.Adam(self.net.parameters(), lr=args["meta_lr"])

    def adapt(self, x_spt, y_spt, detach_inner=False):
        fast_weights = list(self.net.parameters())
        for _ in range(self.update_step):
            loss = F.cross_entropy(self.net(x_spt, fast_weights), y_spt)
            grad = torch.autograd.grad(loss, fast_weights, create_graph=True)  # fixed: GG503
            if detach_inner:
                grad = [g.detach() for g in grad]
            self.last_inner_grad = grad
            fast_weights = [w - self.update_lr * g for w, g in zip(fast_weights, grad)]
        return fast_weights

    def meta_loss(self, tasks, detach_inner=False):
        losses_q = []
        for x_spt, y_spt, x_qry, y_qry in tasks:
            fast = self.adapt(x_spt, y_spt, detach_inner)
            losses_q.append(F.cross_entropy(self.net(x_qry, fast), y_qry))
        return torch.stack(losses_q).mean()

    def meta_grads(self, tasks, detach_inner=False):
        self.meta_optim.zero_grad()
        self.meta_loss(tasks, detach_inner).backward()
        return [p.grad.clone() for p in self.net.parameters()]

    def forward(self, tasks):
        self.meta_optim.zero_grad()
        loss_q = self.meta_loss(tasks)
        loss_q.backward()
        self.meta_optim.step()
        return loss_q.item()


def sample_tasks(args, seed):
    g = torch.Generator().manual_seed(seed)
    tasks = []
    for _ in range(args["task_num"]):
        n_s, n_q = args["n_way"] * args["k_spt"], args["n_way"] * args["k_qry"]
        tasks.append((torch.randn(n_s, args["in_dim"], generator=g),
                      torch.arange(args["n_way"]).repeat(args["k_spt"]),
                      torch.randn(n_q, args["in_dim"], generator=g),
                      torch.arange(args["n_way"]).repeat(args["k_qry"])))
    return tasks


def main():
    torch.manual_seed(0)
    maml = Meta(ARGS)
    for step in range(3):
        print(f"step {step}: query loss {maml(sample_tasks(ARGS, step)):.4f}")
    tasks = sample_tasks(ARGS, 99)
    second = maml.meta_grads(tasks)
    inner_has_graph = maml.last_inner_grad[0].requires_grad
    first = maml.meta_grads(tasks, detach_inner=True)
    same = all(torch.allclose(a, b) for a, b in zip(second, first))
    return inner_has_graph, same


if __name__ == "__main__":
    inner_has_graph, same = main()
    assert inner_has_graph and not same
    print("FIXED: ok")
