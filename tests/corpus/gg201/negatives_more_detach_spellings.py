"""More ways to cut the carried state's history, all correct: no GG201."""

import torch
from torch import nn

lstm = nn.LSTM(3, 8)
cell = nn.GRUCell(3, 8)
head = nn.Linear(8, 1)
optimizer = torch.optim.SGD([*lstm.parameters(), *cell.parameters(), *head.parameters()], lr=0.1)


def clone_then_detach(steps):
    h = torch.zeros(2, 8)
    for _ in range(steps):
        h_next = cell(torch.randn(2, 3), h)
        loss = head(h_next).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        h = h_next.clone().detach()


def detach_then_clone(steps):
    h = torch.zeros(2, 8)
    for _ in range(steps):
        h_next = cell(torch.randn(2, 3), h)
        loss = head(h_next).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        h = h_next.detach().clone()


def copied_under_no_grad(steps):
    h = torch.zeros(2, 8)
    for _ in range(steps):
        h_next = cell(torch.randn(2, 3), h)
        loss = head(h_next).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        with torch.no_grad():
            h = h_next.clone()


def reset_each_step(steps):
    h = torch.zeros(2, 8)
    for _ in range(steps):
        h = torch.zeros_like(h)
        h = cell(torch.randn(2, 3), h)
        loss = head(h).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def unpacked_and_repacked(steps):
    hidden = None
    for _ in range(steps):
        out, hidden = lstm(torch.randn(4, 2, 3), hidden)
        loss = head(out).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        h, c = hidden
        hidden = (h.detach(), c.detach())


def list_comprehension(steps):
    hidden = None
    for _ in range(steps):
        out, hidden = lstm(torch.randn(4, 2, 3), hidden)
        hidden = [s.detach() for s in hidden]
        loss = head(out).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def mapped_detach(steps):
    hidden = None
    for _ in range(steps):
        out, hidden = lstm(torch.randn(4, 2, 3), hidden)
        hidden = tuple(map(torch.Tensor.detach, hidden))
        loss = head(out).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
