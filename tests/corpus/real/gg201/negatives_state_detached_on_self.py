"""The fixed twin of the forecaster that keeps its GRU state on `self` (it stores the
state detached), and a look-alike that starts every batch from a fresh zero state.

Source: https://github.com/sgadgil6/cnslab_fmri/issues/4 (the state kept on the module
between calls; storing it detached is the fix).
"""

import torch
from torch import nn


class ForecasterFixed(nn.Module):
    def __init__(self, n_features: int = 3, hidden: int = 6, batch: int = 2) -> None:
        super().__init__()
        self.gru = nn.GRU(n_features, hidden, batch_first=True)
        self.out = nn.Linear(hidden, 1)
        self.h = torch.zeros(1, batch, hidden)

    def forward(self, x):
        y, h = self.gru(x, self.h)
        self.h = h.detach()
        return self.out(y[:, -1])


class ForecasterFreshState(nn.Module):
    def __init__(self, n_features: int = 3, hidden: int = 6) -> None:
        super().__init__()
        self.gru = nn.GRU(n_features, hidden, batch_first=True)
        self.out = nn.Linear(hidden, 1)

    def forward(self, x):
        h0 = torch.zeros(1, x.size(0), self.gru.hidden_size)
        y, self.last_state = self.gru(x, h0)
        return self.out(y[:, -1])


def fit(model, windows, epochs=1):
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    loss_fn = nn.MSELoss()
    for epoch in range(epochs):
        for x, y in windows:
            optimizer.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            optimizer.step()


def fit_fresh(model, windows):
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    for x, y in windows:
        optimizer.zero_grad()
        nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()


if __name__ == "__main__":
    data = [(torch.randn(2, 4, 3), torch.randn(2, 1)) for _ in range(3)]
    fit(ForecasterFixed(), data)
    fit_fresh(ForecasterFreshState(), data)
