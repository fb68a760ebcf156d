"""A time-series forecaster whose GRU state lives on the module: `forward` feeds
`self.h` to the GRU and stores the returned state back on `self.h`, so the next batch's
forward starts from a state that still belongs to the previous batch's graph; the second
`loss.backward()` in the training loop raises "Trying to backward through the graph a
second time". Storing `h.detach()` fixes it.

Source (rewritten in our own words, structure kept):
https://github.com/sgadgil6/cnslab_fmri/issues/4 (an LSTM keeping `self.hidden` between
calls; `retain_graph=True` then ran out of memory)
"""

import torch
from torch import nn


class Forecaster(nn.Module):
    def __init__(self, n_features: int = 3, hidden: int = 6, batch: int = 2) -> None:
        super().__init__()
        self.gru = nn.GRU(n_features, hidden, batch_first=True)
        self.out = nn.Linear(hidden, 1)
        self.h = torch.zeros(1, batch, hidden)

    def forward(self, x):
        y, self.h = self.gru(x, self.h)  # expect: GG201
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


if __name__ == "__main__":
    data = [(torch.randn(2, 4, 3), torch.randn(2, 1)) for _ in range(3)]
    try:
        fit(Forecaster(), data)
    except RuntimeError as error:
        assert "backward through the graph a second time" in str(error)
    else:
        raise AssertionError("expected the second-backward error")
