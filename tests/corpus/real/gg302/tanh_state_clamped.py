"""A hand-written recurrent cell whose new state is `torch.tanh(...)` and which then
clips the state in place for numerical safety (`h.clamp_(-0.99, 0.99)`) before the output
layer reads it. tanh saved its output, so `loss.backward()` raises "modified by an inplace
operation [...] output 0 of Tanh". The clip must be out of place.

Source (rewritten in our own words, structure kept):
https://github.com/pytorch/pytorch/issues/96265 (an in-place change inside a custom
recurrent step, found with anomaly detection) and
https://github.com/idiap/fast-transformers/pull/10 (recurrent state updated in place).

The cell runs in a loop over `seq`; its only caller passes a tensor of 4 time steps, so
the loop certainly runs and the state after it is the cell's (clamped) output. With a
`seq` of unknown length the loop may run zero times and GradGuard stays silent (graph
nodes are must-facts).
"""

import torch
from torch import nn


class ElmanCell(nn.Module):
    def __init__(self, n_in: int = 3, n_hidden: int = 5) -> None:
        super().__init__()
        self.ih = nn.Linear(n_in, n_hidden)
        self.hh = nn.Linear(n_hidden, n_hidden)

    def forward(self, x, h):
        h = torch.tanh(self.ih(x) + self.hh(h))
        h.clamp_(-0.99, 0.99)  # expect: GG302
        return h


def run(cell, head, seq, target):
    h = torch.zeros(seq.size(1), 5)
    for x in seq:
        h = cell(x, h)
    loss = (head(h) - target).pow(2).mean()
    loss.backward()
    return loss.item()


if __name__ == "__main__":
    seq, target = torch.randn(4, 2, 3), torch.randn(2, 1)
    head = nn.Linear(5, 1)
    try:
        run(ElmanCell(), head, seq, target)
    except RuntimeError as error:
        assert "modified by an inplace operation" in str(error)
    else:
        raise AssertionError("expected the in-place error")
