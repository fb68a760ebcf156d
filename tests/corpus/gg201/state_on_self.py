"""Recurrent state kept on a module or a trainer object across batches (GG201)."""

import torch
from torch import nn


class StatefulLSTM(nn.Module):
    """Keeps its LSTM state between calls, as "stateful" Keras-style models do."""

    def __init__(self, features: int = 4, hidden: int = 16) -> None:
        super().__init__()
        self.lstm = nn.LSTM(features, hidden, batch_first=True)
        self.head = nn.Linear(hidden, 1)
        self.hidden = None

    def forward(self, x):
        out, self.hidden = self.lstm(x, self.hidden)  # expect: GG201
        return self.head(out[:, -1])


model = StatefulLSTM()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
loss_fn = nn.MSELoss()

for step in range(100):
    x = torch.randn(2, 10, 4)
    y = torch.randn(2, 1)
    optimizer.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()


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
