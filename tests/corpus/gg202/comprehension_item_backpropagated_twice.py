"""One item of a comprehension-built list backpropagated twice.

Each item of `[torch.tanh(model.embed(x)) for _ in range(3)]` has a graph of its own, so
one backward per item runs; but `views[0]` read again names the same item, whose graph
the first backward freed: the second raises "Trying to backward through the graph a
second time" (checked under torch 2.13.0). The same mistake (a loss backpropagated twice,
here through a list) is the first cause listed at
https://deadends.dev/cuda/backward-through-graph-twice
"""

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Linear(8, 8)


def score_views(model, x):
    views = [torch.tanh(model.embed(x)) for _ in range(3)]
    views[0].sum().backward()  # expect: GG202
    views[1].sum().backward()
    views[0].mean().backward()


if __name__ == "__main__":
    torch.manual_seed(0)
    score_views(Model(), torch.randn(4, 8))
