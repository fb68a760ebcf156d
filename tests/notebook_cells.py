"""Notebook cells shared by the CLI and language-server notebook tests: a setup cell with a
magic, and a training cell (after a shell line) that carries an RNN cell's hidden state
into the next step without `.detach()` (GG201)."""

SETUP = """\
import torch
from torch import nn
%matplotlib inline
rnn = nn.RNNCell(4, 8)
head = nn.Linear(8, 1)
opt = torch.optim.SGD([*rnn.parameters(), *head.parameters()], lr=0.1)
h = torch.zeros(1, 8)
"""
LOOP = """\
!pip install tqdm
for step in range(5):
    x = torch.randn(1, 4)
    h_next = rnn(x, h)
    loss = head(h_next).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    h = h_next
"""
