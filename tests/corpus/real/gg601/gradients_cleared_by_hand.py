"""Gradients cleared by hand, without `zero_grad()`: in place through `.data`, or replaced.

Sources (rewritten in our own words, structure kept):
* https://github.com/llSourcell/pytorch_in_5_minutes/issues/1 - a reader asks when to call
  `w1.grad.data.zero_()`: the script clears each weight's gradient through `.data` by hand
  after every update instead of calling `zero_grad()`.
* https://github.com/khoadoan106/backdoor_attacks/blob/master/python/utils/dnn.py - a
  `clear_grad(model)` helper detaching and zeroing each parameter's gradient itself.

Every loop below clears what the next backward adds to, so none keeps stale gradients: a
helper over a module-level list of every network's parameters zeroing `p.grad.data`, and
a trainer that replaces each gradient with a fresh zero tensor. The buggy function shows
what they prevent: the same loop without the helper call.
"""

import torch
from torch import nn

generator = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 6))
critic = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 1))
every_parameter = list(generator.parameters()) + list(critic.parameters())
g_solver = torch.optim.SGD(generator.parameters(), lr=0.1)
c_solver = torch.optim.SGD(critic.parameters(), lr=0.1)


def reset_grad():
    for p in every_parameter:
        if p.grad is not None:
            p.grad.data.zero_()


def train_with_reset(iterations=3):
    for _ in range(iterations):
        real, z = torch.randn(5, 6), torch.randn(5, 4)
        c_loss = critic(generator(z).detach()).mean() - critic(real).mean()
        c_loss.backward()
        c_solver.step()
        reset_grad()
        g_loss = -critic(generator(z)).mean()
        g_loss.backward()
        g_solver.step()
        reset_grad()


def train_without_reset(iterations=3):
    for _ in range(iterations):  # expect: GG601
        z = torch.randn(5, 4)
        g_loss = -critic(generator(z)).mean()
        g_loss.backward()
        g_solver.step()


class Regressor:
    def __init__(self):
        self.net = nn.Linear(3, 1)
        self.optimizer = torch.optim.SGD(self.net.parameters(), lr=0.05)

    def clear(self):
        for p in self.net.parameters():
            p.grad = torch.zeros_like(p)

    def fit(self, x, y, epochs=3):
        for _ in range(epochs):
            loss = (self.net(x) - y).pow(2).mean()
            loss.backward()
            self.optimizer.step()
            self.clear()


def _gradient_after_two_steps(clear):
    model = nn.Linear(2, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.0)  # lr 0: gradients alone change
    x = torch.ones(1, 2)
    for _ in range(2):
        model(x).sum().backward()
        optimizer.step()
        if clear:
            for p in model.parameters():
                p.grad.data.zero_()
    model(x).sum().backward()
    return model.weight.grad.clone()


if __name__ == "__main__":
    # Without clearing, the third backward adds to the first two: three times the gradient.
    assert torch.equal(_gradient_after_two_steps(clear=False), torch.full((1, 2), 3.0))
    # Zeroing `.grad.data` by hand clears as zero_grad() does: one gradient's worth.
    assert torch.equal(_gradient_after_two_steps(clear=True), torch.ones(1, 2))
    train_with_reset()
    train_without_reset()
    Regressor().fit(torch.randn(8, 3), torch.randn(8, 1))
    print("ok")
