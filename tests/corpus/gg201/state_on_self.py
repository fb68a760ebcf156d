"""Recurrent state kept on a trainer object across batches (GG201)."""

import torch
from torch import nn


class SequenceTrainer:
    """Owns a GRU, its optimiser and the running hidden state."""

    def __init__(self) -> None:
        self.rnn = nn.GRU(3, 8)
        self.head = nn.Linear(8, 1)
        self.optimizer = torch.optim.SGD(
            list(self.rnn.parameters()) + list(self.head.parameters()), lr=0.1
        )
        self.hidden = torch.zeros(1, 5, 8)

    def fit(self, steps: int) -> None:
        for _ in range(steps):
            x = torch.randn(6, 5, 3)
            y = torch.randn(6, 5, 1)
            out, self.hidden = self.rnn(x, self.hidden)  # expect: GG201
            loss = nn.functional.mse_loss(self.head(out), y)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()


SequenceTrainer().fit(50)
