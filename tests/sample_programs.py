"""Small programs the editor tests open: one copy each, shared by the LSP, Neovim and Emacs
tests."""

# A GG201 bug: the RNN cell's hidden state carried across iterations without .detach().
HIDDEN_STATE = """\
import torch
from torch import nn
rnn = nn.RNNCell(4, 8)
head = nn.Linear(8, 1)
opt = torch.optim.SGD([*rnn.parameters(), *head.parameters()], lr=0.1)
h = torch.zeros(1, 8)
for step in range(5):
    x = torch.randn(1, 4)
    h_next = rnn(x, h)
    loss = head(h_next).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    h = h_next
"""
# The 0-based line GG201 reports (`h = h_next`).
HIDDEN_STATE_LINE = 13
