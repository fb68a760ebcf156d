"""Recurrent state kept on the module itself, reassigned in `forward` (GG201).

The training loop calls `model(x)` and backward every step; `forward` feeds the previous
step's `self.hidden` (still attached to that step's graph) into the LSTM.
"""

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
