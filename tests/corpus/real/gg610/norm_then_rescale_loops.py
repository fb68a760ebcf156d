"""Hand-written gradient clipping: one loop sums the squared gradients, a second one rescales
them, both over the same `model.parameters()` generator.

Modelled on https://github.com/ShusenTang/Dive-into-DL-PyTorch/issues/101 (written anew,
inlined into the training step): the first loop exhausts the generator, so the rescaling
loop never runs and exploding RNN gradients are never clipped.
"""

import torch
from torch import nn


class CharRNN(nn.Module):
    def __init__(self, vocab, hidden):
        super().__init__()
        self.rnn = nn.RNN(vocab, hidden)
        self.dense = nn.Linear(hidden, vocab)

    def forward(self, x, state):
        y, state = self.rnn(x, state)
        return self.dense(y), state


def train_epoch(batches, vocab, theta, lr):
    model = CharRNN(vocab, 64)
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    loss_fn = nn.CrossEntropyLoss()
    for x, y in batches:
        out, _ = model(x, None)
        loss = loss_fn(out.reshape(-1, vocab), y.reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        params = model.parameters()
        norm = torch.zeros(1)
        for param in params:
            norm += (param.grad.data**2).sum()
        norm = norm.sqrt().item()
        if norm > theta:
            for param in params:  # expect: GG610
                param.grad.data *= theta / norm
        optimizer.step()
