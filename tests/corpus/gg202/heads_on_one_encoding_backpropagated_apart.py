"""Multi-head model: the heads' outputs are built by a comprehension over one encoding.

Each head's output is computed afresh, but all of them run through the one encoding `h`
computed before the comprehension: the first head's backward frees the encoder's graph,
and the second raises "Trying to backward through the graph a second time" (checked under
torch 2.13.0). Stacking the items makes one tensor running through every item's graph: two
backward calls of it fail the same way. The usual way out is one backward of the summed losses. The reuse of one
non-detached tensor across several losses is the cause listed at
https://deadends.dev/cuda/backward-through-graph-twice
"""

import torch
from torch import nn


def train_heads(encoder, heads, x):
    h = encoder(x)
    outs = [head(h) for head in heads]
    outs[0].sum().backward()  # expect: GG202
    outs[1].sum().backward()


def stacked_views(encoder, x):
    views = [torch.tanh(encoder(x)) for _ in range(3)]
    stacked = torch.stack(views)
    stacked.sum().backward()  # expect: GG202
    stacked.mean().backward()


if __name__ == "__main__":
    torch.manual_seed(0)
    enc = nn.Sequential(nn.Linear(8, 8), nn.Tanh())
    two_heads = [nn.Linear(8, 2) for _ in range(2)]
    try:
        stacked_views(enc, torch.randn(4, 8))
    except RuntimeError as error:
        assert "backward through the graph a second time" in str(error)
    else:
        raise AssertionError("stacked_views: expected a second backward through a freed graph")
    train_heads(enc, two_heads, torch.randn(4, 8))
