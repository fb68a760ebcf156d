"""Online next-value prediction with an nn.LSTMCell -- BUGGY (GG201).

Bug: the cell state `(h, c)` produced at step t is fed into step t + 1 through
`h, c = h_next, c_next` without `.detach()` (GG201 hidden-state-not-detached),
while the loop calls `loss.backward()` at every step. The second backward reaches
into the first step's graph, already freed, and raises:

    RuntimeError: Trying to backward through the graph a second time (or directly
    access saved tensors after they have already been freed). ...

Fix: `h, c = h_next.detach(), c_next.detach()`: keep the values, drop the history.

Run: python examples/buggy_lstm_cell.py
"""

import math

import torch
from torch import nn

torch.manual_seed(0)

HIDDEN = 24
STEPS = 60

cell = nn.LSTMCell(1, HIDDEN)
head = nn.Linear(HIDDEN, 1)
criterion = nn.MSELoss()
optimizer = torch.optim.SGD(list(cell.parameters()) + list(head.parameters()), lr=0.05)


def noisy_sine(steps: int) -> torch.Tensor:
    """A sine wave with a little noise, shaped (steps, 1, 1)."""
    t = torch.linspace(0, 4 * math.pi, steps)
    return (torch.sin(t) + 0.05 * torch.randn(steps)).view(steps, 1, 1)


def train_online(series: torch.Tensor) -> float:
    """Predict series[t + 1] from series[t], updating the weights after every step."""
    h = torch.zeros(1, HIDDEN)
    c = torch.zeros(1, HIDDEN)
    running = 0.0
    for t in range(series.size(0) - 1):
        h_next, c_next = cell(series[t], (h, c))
        loss = criterion(head(h_next), series[t + 1])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        running += loss.item()
        h, c = h_next, c_next  # expect: GG201
    return running / (series.size(0) - 1)


if __name__ == "__main__":
    for epoch in range(2):
        print(f"epoch {epoch}: mean loss {train_online(noisy_sine(STEPS)):.4f}")
