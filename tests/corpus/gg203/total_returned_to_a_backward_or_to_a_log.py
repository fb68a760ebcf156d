"""A total of losses that the function returns and its caller backpropagates: the graphs
kept across the loop are what the caller's backward runs through. No GG203.

Meta-learning sums each task's query loss over a loop that computes gradients every
iteration (`torch.autograd.grad(..., create_graph=True)` for the task's fast weights), and
the outer step backpropagates the sum: keeping every task's graph is the point. Shaped
after MAML trainers such as the one in https://github.com/dragen1860/MAML-Pytorch (its
meta-update sums `losses_q` over tasks, then calls `backward()` on the sum).

The last function is the same accumulation whose total only goes to a log: that one keeps
graphs for nothing (GG203).
"""

import torch
import torch.nn.functional as F
from torch import nn


class Meta(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Linear(4, 3)
        self.meta_optim = torch.optim.Adam(self.net.parameters(), lr=1e-3)

    def adapt(self, x, y):
        loss = F.cross_entropy(self.net(x), y)
        grads = torch.autograd.grad(loss, list(self.net.parameters()), create_graph=True)
        return [p - 0.1 * g for p, g in zip(self.net.parameters(), grads)]

    def meta_loss(self, tasks):
        total = 0.0
        for x_support, y_support, x_query, y_query in tasks:
            weight, bias = self.adapt(x_support, y_support)
            total = total + F.cross_entropy(F.linear(x_query, weight, bias), y_query)
        return total / len(tasks)

    def step(self, tasks):
        loss = self.meta_loss(tasks)
        self.meta_optim.zero_grad()
        loss.backward()
        self.meta_optim.step()
        return loss.item()


def task():
    return torch.randn(5, 4), torch.randint(0, 3, (5,)), torch.randn(5, 4), torch.randint(0, 3, (5,))


def train_epoch(model, optimizer, batches):
    total = 0.0
    for x, y in batches:
        loss = F.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += loss  # expect: GG203
    return total / len(batches)


if __name__ == "__main__":
    meta = Meta()
    print(meta.step([task(), task()]))
    model = nn.Linear(4, 3)
    average = train_epoch(model, torch.optim.SGD(model.parameters(), lr=0.1), [task()[:2]] * 2)
    assert average.grad_fn is not None, "the logged average still holds the graphs"
    print(f"average loss {average.item():.3f}")
