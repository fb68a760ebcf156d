"""GG201 (fixed): LSTM state kept on self and reused by the next forward() call.
Fixed version: the state stored on self is detached before the next batch uses it.

Mistake: the fMRI sequence classifier stores its (h, c) state as self.hidden and
forward() both consumes and overwrites it. The new state still hangs on the graph of
the batch that produced it, so the second batch's backward() tries to go back through
the first batch's already-freed graph.
Error raised by torch: RuntimeError: Trying to backward through the graph a second time
(or directly access saved tensors after they have already been freed) ...
Modelled on: https://github.com/sgadgil6/cnslab_fmri/issues/4
"""
import sys

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cpu")
BATCH = 8
N_ROIS = 10
WINDOW = 12


class fMRI_LSTM(nn.Module):
    def __init__(self, hidden_dim, input_dim, batch_size):
        super().__init__()
        self.hidden_dim = hidden_dim
        self.batch_size = batch_size
        self.lstm = nn.LSTM(input_dim, hidden_dim, num_layers=1, batch_first=True)
        self.dropout = nn.Dropout(p=0.2)
        self.linear = nn.Linear(hidden_dim, 1)
        self.activate = nn.Sigmoid()
        self.hidden = self.init_hidden()

    def init_hidden(self):
        return (torch.zeros(1, self.batch_size, self.hidden_dim, device=device),
                torch.zeros(1, self.batch_size, self.hidden_dim, device=device))

    def forward(self, x):
        lstm_out, hidden = self.lstm(x, self.hidden)
        self.hidden = tuple(h.detach() for h in hidden)  # fixed: GG201
        out = self.dropout(lstm_out[:, -1, :])
        return self.activate(self.linear(out)).squeeze(-1)


def make_loader():
    gen = torch.Generator().manual_seed(0)
    series = torch.randn(48, WINDOW, N_ROIS, generator=gen)
    sex = (series[:, :, 0].mean(1) > 0).float()
    return DataLoader(TensorDataset(series, sex), batch_size=BATCH, shuffle=True, drop_last=True)


def train(model, loader, optimizer, criterion, epochs=2):
    for epoch in range(epochs):
        model.train()
        running, n = 0.0, 0
        for i, (x, y) in enumerate(loader):
            x, y = x.to(device), y.to(device)
            optimizer.zero_grad()
            out = model(x)
            loss = criterion(out, y)
            loss.backward()
            optimizer.step()
            running += loss.item()
            n += 1
        print(f"[epoch {epoch}] mean loss {running / n:.4f}")


def main():
    torch.manual_seed(0)
    model = fMRI_LSTM(hidden_dim=16, input_dim=N_ROIS, batch_size=BATCH).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    criterion = nn.BCELoss()
    train(model, make_loader(), optimizer, criterion)


if __name__ == "__main__":
    main()
    print("FIXED: ok")
