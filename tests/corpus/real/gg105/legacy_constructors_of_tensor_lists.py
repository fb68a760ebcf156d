"""Lists of tensors with history given to the legacy constructors (`torch.Tensor`,
`torch.FloatTensor`): like `torch.tensor`, they copy the values into a new leaf, so the loss
built from it has no graph. One tensor given to `torch.Tensor` is different: the result is an
alias that keeps the history (checked with torch 2.13.0).

Sources (rewritten in our own words, structure kept):
* https://github.com/pytorch/pytorch/issues/61410 - `torch.Tensor(p)` keeps `requires_grad`,
  `torch.Tensor([p])` silently drops it; `torch.stack` is what was meant.
* https://github.com/MRsources/pulseq-zero/issues/20 - zero-dimensional tensors that require
  grad gathered into a list and made into one tensor, losing the gradient; fixed with
  `torch.stack`.
"""

import torch
from torch import nn

scale = nn.Parameter(torch.ones(1))
shift = nn.Parameter(torch.zeros(1))
opt = torch.optim.SGD([scale, shift], lr=0.1)


# Source: pulseq-zero#20 - amplitudes gathered into a list, then made into one tensor.
def waveform(times):
    points = [scale * t + shift for t in times]
    return torch.Tensor(points)  # expect: GG105


for step in range(10):
    opt.zero_grad()
    wave = waveform([0.0, 0.5, 1.0])
    loss = (wave - 1.0).pow(2).sum()
    loss.backward()
    opt.step()


# Source: pytorch#61410 - per-sample losses collected in a loop.
model = nn.Linear(4, 1)
per_sample = [model(torch.randn(1, 4)).squeeze() for _ in range(8)]
batch_loss = torch.FloatTensor(per_sample).mean()  # expect: GG105
batch_loss.backward()


# Look-alikes that keep the graph.
alias = torch.Tensor(scale * 2)  # one tensor: an alias with history
alias.sum().backward()
stacked = torch.stack([scale * t for t in (1.0, 2.0)])
stacked.sum().backward()
sizes = torch.Tensor(3, 4)  # sizes, not data
targets = torch.FloatTensor([0.0, 1.0, 2.0])  # plain numbers
