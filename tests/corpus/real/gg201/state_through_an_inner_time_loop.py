"""Truncated backpropagation through time written as two loops: an outer loop over chunks
that backpropagates once per chunk, and an inner loop over the time steps of the chunk that
carries the hidden state. Without a detach between chunks, the second chunk's backward
reaches into the first chunk's freed graph.

GradGuard knows that `for t in range(10)` (bounds that are int literals, or names bound to
them) runs its body at least once, so the loss accumulated in the inner loop is a tensor with
history after it, not "maybe still the 0 it started as".

Sources (rewritten in our own words, structure kept):
* https://github.com/MorvanZhou/PyTorch-Tutorial/issues/57 - the hidden state carried from
  one training step to the next without `h_state.data`; "Trying to backward through the
  graph a second time".
* pytorch/examples word_language_model/main.py (`repackage_hidden` at the start of every
  chunk) - the fixed shape of the same loop nest.
"""

import torch
from torch import nn

cell = nn.LSTMCell(4, 8)
head = nn.Linear(8, 1)
opt = torch.optim.Adam(list(cell.parameters()) + list(head.parameters()))
series = torch.randn(100, 2, 4)
chunk = 10

h, c = torch.zeros(2, 8), torch.zeros(2, 8)
for start in range(0, 100, chunk):
    opt.zero_grad()
    loss = 0
    for t in range(chunk):
        h, c = cell(series[start + t], (h, c))  # expect: GG201
        loss = loss + head(h).pow(2).mean()
    loss.backward()
    opt.step()


# The fixed loop: the state is detached at the start of every chunk.
h, c = torch.zeros(2, 8), torch.zeros(2, 8)
for start in range(0, 100, chunk):
    h, c = h.detach(), c.detach()
    opt.zero_grad()
    loss = 0
    for t in range(chunk):
        h, c = cell(series[start + t], (h, c))
        loss = loss + head(h).pow(2).mean()
    loss.backward()
    opt.step()


# A fresh state per chunk carries nothing across chunks.
for start in range(0, 100, chunk):
    h, c = torch.zeros(2, 8), torch.zeros(2, 8)
    opt.zero_grad()
    loss = 0
    for t in range(chunk):
        h, c = cell(series[start + t], (h, c))
        loss = loss + head(h).pow(2).mean()
    loss.backward()
    opt.step()
