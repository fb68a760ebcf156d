"""Look-alikes of micro-steps counted by `range(k)` that are not an undivided accumulation.

The averaged form nanoGPT's train.py uses (the loss divided by the number of micro-steps
before backward()), and loops run more than once between a clear and a step that are not a
window of micro-batches: one iteration per head of a multi-output model (its target picks
the head and the column: the sum of the head losses is the objective), a single micro-step,
a count the analysis does not know, a recurrent chain backpropagated with `retain_graph`,
and a critic stepped inside its own loop.
https://github.com/karpathy/nanoGPT/issues/206
"""

import sys

import torch
from torch import nn
import torch.nn.functional as F

grad_accum_steps = 4
single_step = 1


class TwoHeads(nn.Module):
    def __init__(self):
        super().__init__()
        self.trunk = nn.Linear(6, 8)
        self.heads = nn.ModuleList([nn.Linear(8, 1) for _ in range(2)])


def averaged(model, optimizer):
    for it in range(2):
        for _ in range(grad_accum_steps):
            x, y = torch.randn(4, 6), torch.randn(4, 1)
            loss = F.mse_loss(model(x), y)
            loss = loss / grad_accum_steps
            loss.backward()
        optimizer.step()
        optimizer.zero_grad()


def per_head(model, optimizer):
    x, y = torch.randn(4, 6), torch.randn(4, 2)
    for it in range(2):
        optimizer.zero_grad()
        for t in range(2):
            loss = F.mse_loss(model.heads[t](model.trunk(x)).squeeze(-1), y[:, t])
            loss.backward()
        optimizer.step()


def one_micro_step(model, optimizer):
    for it in range(2):
        for _ in range(single_step):
            loss = F.mse_loss(model(torch.randn(4, 6)), torch.randn(4, 1))
            loss.backward()
        optimizer.step()
        optimizer.zero_grad()


def unknown_count(model, optimizer, steps):
    for it in range(2):
        for _ in range(steps):
            loss = F.mse_loss(model(torch.randn(4, 6)), torch.randn(4, 1))
            loss.backward()
        optimizer.step()
        optimizer.zero_grad()


def recurrent_chain(cell, optimizer):
    optimizer.zero_grad()
    h = torch.zeros(4, 6)
    for _ in range(3):
        h = cell(torch.randn(4, 6), h)
        loss = h.pow(2).mean()
        loss.backward(retain_graph=True)
    optimizer.step()


def critic_steps(critic, optimizer):
    optimizer.zero_grad()
    for _ in range(grad_accum_steps):
        loss = critic(torch.randn(4, 6)).mean()
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()


if __name__ == "__main__":
    torch.manual_seed(0)
    net = nn.Linear(6, 1)
    opt = torch.optim.SGD(net.parameters(), lr=0.01)
    averaged(net, opt)
    one_micro_step(net, opt)
    unknown_count(net, opt, len(sys.argv) + 1)
    critic_steps(net, opt)
    heads = TwoHeads()
    per_head(heads, torch.optim.SGD(heads.parameters(), lr=0.01))
    rnn = nn.RNNCell(6, 6)
    recurrent_chain(rnn, torch.optim.SGD(rnn.parameters(), lr=0.01))
