"""A helper (or a module's `forward`) that loops over the time steps of a chunk and returns
the state, called once per chunk by a training loop (GG201). The helper rebinds its
parameter `h` to a tensor built on it, so what the caller passes comes back unchanged or
with that history (`FunctionSummary.rebound`); carried into the next chunk without a detach,
the next backward raises "Trying to backward through the graph a second time".

The look-alikes keep the same helpers and cut the state where real code does: the caller
detaches it or calls a `repackage_hidden` helper (pytorch/examples word_language_model),
the helper detaches or re-creates it before its loop, a guarded `h.detach_()`, and
rollouts under `torch.no_grad()`. Sources: https://github.com/dpressel/dliss-tutorial/issues/1
(detach the state between chunks), https://github.com/pytorch/examples/blob/main/word_language_model/main.py
(`repackage_hidden`), https://github.com/tensorflow/tensorflow/issues/107 (the inner loop
over a block's time steps); written in our own words.
"""

import torch
from torch import nn


def repackage_hidden(h):
    if isinstance(h, torch.Tensor):
        return h.detach()
    return tuple(repackage_hidden(v) for v in h)


def unroll(cell, chunk, h):
    outputs = []
    for x_t in chunk:
        h = cell(x_t, h)
        outputs.append(h)
    return torch.stack(outputs), h


def unroll_detaching(cell, chunk, h):
    h = h.detach()
    outputs = []
    for x_t in chunk:
        h = cell(x_t, h)
        outputs.append(h)
    return torch.stack(outputs), h


def unroll_fresh(cell, chunk, h):
    h = torch.zeros(chunk.size(1), cell.hidden_size)
    for x_t in chunk:
        h = cell(x_t, h)
    return h, h


class StepModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.cell = nn.GRUCell(2, 4)
        self.head = nn.Linear(4, 1)

    def forward(self, chunk, h):
        outs = []
        for x_t in chunk:
            h = self.cell(x_t, h)
            outs.append(self.head(h))
        return torch.stack(outs), h


def caller_detaches(seq, tgt):
    cell, head = nn.GRUCell(2, 4), nn.Linear(4, 1)
    opt = torch.optim.SGD([*cell.parameters(), *head.parameters()], lr=0.1)
    h = torch.zeros(2, 4)
    for start in range(0, 9, 3):
        h = h.detach()
        outputs, h = unroll(cell, seq[start : start + 3], h)
        loss = (head(outputs) - tgt[start : start + 3]).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


def caller_repackages(seq, tgt):
    cell, head = nn.GRUCell(2, 4), nn.Linear(4, 1)
    opt = torch.optim.SGD([*cell.parameters(), *head.parameters()], lr=0.1)
    h = torch.zeros(2, 4)
    for start in range(0, 9, 3):
        h = repackage_hidden(h)
        outputs, h = unroll(cell, seq[start : start + 3], h)
        loss = (head(outputs) - tgt[start : start + 3]).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


def callee_detaches(seq, tgt):
    cell, head = nn.GRUCell(2, 4), nn.Linear(4, 1)
    opt = torch.optim.SGD([*cell.parameters(), *head.parameters()], lr=0.1)
    h = torch.zeros(2, 4)
    for start in range(0, 9, 3):
        outputs, h = unroll_detaching(cell, seq[start : start + 3], h)
        loss = (head(outputs) - tgt[start : start + 3]).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


def callee_fresh(seq, tgt):
    cell, head = nn.GRUCell(2, 4), nn.Linear(4, 1)
    opt = torch.optim.SGD([*cell.parameters(), *head.parameters()], lr=0.1)
    h = torch.zeros(2, 4)
    for start in range(0, 9, 3):
        outputs, h = unroll_fresh(cell, seq[start : start + 3], h)
        loss = (head(outputs) - tgt[start]).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


def module_guarded_inplace(seq, tgt):
    model = StepModel()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    h = None
    for start in range(0, 9, 3):
        if h is not None:
            h.detach_()
        else:
            h = torch.zeros(2, 4)
        out, h = model(seq[start : start + 3], h)
        loss = (out - tgt[start : start + 3]).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


def inline_truncated(seq, tgt):
    cell, head = nn.GRUCell(2, 4), nn.Linear(4, 1)
    opt = torch.optim.SGD([*cell.parameters(), *head.parameters()], lr=0.1)
    h = torch.zeros(2, 4)
    for start in range(0, 9, 3):
        h = h.detach()
        for x_t in seq[start : start + 3]:
            h = cell(x_t, h)
        loss = (head(h) - tgt[start]).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


def inline_sampling(seq):
    cell, head = nn.GRUCell(2, 4), nn.Linear(4, 1)
    h = torch.zeros(2, 4)
    samples = []
    with torch.no_grad():
        for start in range(0, 9, 3):
            for x_t in seq[start : start + 3]:
                h = cell(x_t, h)
            samples.append(head(h))
    return samples


def module_sampling(seq):
    model = StepModel()
    model.eval()
    h = torch.zeros(2, 4)
    outs = []
    with torch.no_grad():
        for start in range(0, 9, 3):
            out, h = model(seq[start : start + 3], h)
            outs.append(out)
    return outs


def unroll_steps(cell, chunk, h):
    for t in range(chunk.size(0)):
        h = cell(chunk[t], h)
    return h


def train_with_step_helper(seq, tgt):
    cell, head = nn.GRUCell(2, 4), nn.Linear(4, 1)
    opt = torch.optim.SGD([*cell.parameters(), *head.parameters()], lr=0.1)
    h = torch.zeros(2, 4)
    for start in range(0, 9, 3):
        h = unroll_steps(cell, seq[start : start + 3], h)  # expect: GG201
        loss = (head(h) - tgt[start]).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    try:
        train_with_step_helper(torch.randn(9, 2, 2), torch.randn(9, 2, 1))
    except RuntimeError as error:
        assert "backward through the graph a second time" in str(error)
    else:
        raise AssertionError("expected the second-backward error")
    seq, tgt = torch.randn(9, 2, 2), torch.randn(9, 2, 1)
    for f in (
        caller_detaches,
        caller_repackages,
        callee_detaches,
        callee_fresh,
        module_guarded_inplace,
        inline_truncated,
    ):
        f(seq, tgt)
    inline_sampling(seq)
    module_sampling(seq)
    print("ok")
