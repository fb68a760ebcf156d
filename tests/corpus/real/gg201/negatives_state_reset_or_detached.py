"""The fixed versions of the carried-state bugs: the state is detached, rebuilt or not kept.

Sources (rewritten in our own words, structure kept):
* https://github.com/pytorch/pytorch/issues/2769 - the fix re-initialises `model.hidden` at
  the start of every batch.
* https://github.com/sgadgil6/cnslab_fmri/pull/5 - "lstm fix": forward no longer passes the
  stored state back into the LSTM.
* https://github.com/MorvanZhou/PyTorch-Tutorial/issues/57 - `h_state = h_state.data` after
  the forward call.
* pytorch/examples word_language_model: `repackage_hidden` detaches a tensor or a tuple.
"""

import torch
from torch import nn


class LstmClassifier(nn.Module):
    """pytorch#2769 after the fix: the caller resets `hidden` before each batch."""

    def __init__(self, input_len: int = 4, hidden_len: int = 8, target_size: int = 3) -> None:
        super().__init__()
        self.hidden_len = hidden_len
        self.lstm = nn.LSTM(input_len, hidden_len, batch_first=True)
        self.hidden2class = nn.Linear(hidden_len, target_size)
        self.hidden = self.init_hidden()

    def init_hidden(self):
        return (torch.zeros(1, 1, self.hidden_len), torch.zeros(1, 1, self.hidden_len))

    def forward(self, x):
        lstm_out, self.hidden = self.lstm(x, self.hidden)
        return self.hidden2class(lstm_out[:, -1, :])


# Source: pytorch#2769, the suggested fix: a fresh state per batch.
def train(train_data, model, criterion, optimizer, epoch):
    model.train()
    for i, (inputs, target) in enumerate(train_data):
        model.hidden = model.init_hidden()
        output = model(inputs)
        loss = criterion(output, target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


class FmriLstm(nn.Module):
    """cnslab_fmri PR #5: the LSTM starts from zeros on every call."""

    def __init__(self, hidden_dim: int = 8, input_dim: int = 5) -> None:
        super().__init__()
        self.lstm = nn.LSTM(input_dim, hidden_dim, num_layers=1, batch_first=True)
        self.linear = nn.Linear(hidden_dim, 1)
        self.hidden = None

    def forward(self, x):
        lstm_out, self.hidden = self.lstm(x)
        return torch.sigmoid(self.linear(lstm_out[:, -1, :]))


def run_training(model, loader, optimizer, epochs):
    criterion = nn.BCELoss()
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()


# Source: MorvanZhou/PyTorch-Tutorial#57, tutorial 403 as published.
def fit_sine(steps):
    rnn = nn.RNN(input_size=1, hidden_size=8, num_layers=1, batch_first=True)
    head = nn.Linear(8, 1)
    optimizer = torch.optim.Adam(list(rnn.parameters()) + list(head.parameters()), lr=0.02)
    loss_func = nn.MSELoss()
    h_state = None
    for step in range(steps):
        x = torch.sin(torch.linspace(step, step + 1, 10)).view(1, 10, 1)
        y = torch.cos(torch.linspace(step, step + 1, 10)).view(1, 10, 1)
        r_out, h_state = rnn(x, h_state)
        h_state = h_state.data
        loss = loss_func(head(r_out), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def repackage_hidden(h):
    """word_language_model: wrap hidden states in new tensors, cut from their history."""
    if isinstance(h, torch.Tensor):
        return h.detach()
    return tuple(repackage_hidden(v) for v in h)


# Source: pytorch/examples word_language_model main.py train(): repackage before each batch.
def train_language_model(model, batches, criterion, lr, ntokens):
    model.train()
    hidden = model.init_hidden(2)
    for data, targets in batches:
        model.zero_grad()
        hidden = repackage_hidden(hidden)
        output, hidden = model(data, hidden)
        loss = criterion(output.view(-1, ntokens), targets)
        loss.backward()
        for p in model.parameters():
            p.data.add_(p.grad, alpha=-lr)


class StreamTrainer:
    """A trainer object keeping the state between calls, detached under a None guard."""

    def __init__(self) -> None:
        self.gru = nn.GRU(3, 6)
        self.head = nn.Linear(6, 1)
        params = list(self.gru.parameters()) + list(self.head.parameters())
        self.optimizer = torch.optim.SGD(params, lr=0.05)
        self.hidden = None

    def train_batch(self, x, y):
        if self.hidden is not None:
            self.hidden = self.hidden.detach()
        out, self.hidden = self.gru(x, self.hidden)
        loss = nn.functional.mse_loss(self.head(out), y)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item()

    def fit(self, batches):
        return [self.train_batch(x, y) for x, y in batches]
