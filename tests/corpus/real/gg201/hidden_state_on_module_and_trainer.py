"""Recurrent state carried across training batches without a detach (GG201), as reported.

Sources (rewritten in our own words, structure kept):
* https://github.com/pytorch/pytorch/issues/2769 - an LSTM classifier keeps `self.hidden` on
  the module, `forward` feeds it back in, and `train(train_data, model, criterion, optimizer,
  epoch)` loops over batches.
* https://github.com/sgadgil6/cnslab_fmri/issues/4 - an fMRI LSTM whose `forward` stores the
  LSTM's returned state on `self.hidden`; backward fails on the second batch ("Trying to
  backward through the graph a second time"), retain_graph=True runs out of memory.
* https://github.com/MorvanZhou/PyTorch-Tutorial/issues/57 - RNN regression tutorial 403:
  removing `h_state = h_state.data` gives the same error.
"""

import torch
from torch import nn


class LstmClassifier(nn.Module):
    """pytorch#2769: the state lives on the module and is fed back by forward()."""

    def __init__(self, input_len: int = 4, hidden_len: int = 8, target_size: int = 3) -> None:
        super().__init__()
        self.hidden_len = hidden_len
        self.lstm = nn.LSTM(input_len, hidden_len, batch_first=True)
        self.hidden2class = nn.Linear(hidden_len, target_size)
        self.hidden = self.init_hidden()

    def init_hidden(self):
        return (torch.zeros(1, 1, self.hidden_len), torch.zeros(1, 1, self.hidden_len))

    def forward(self, x):
        lstm_out, self.hidden = self.lstm(x, self.hidden)  # missed: GG201
        return self.hidden2class(lstm_out[:, -1, :])


# Source: pytorch#2769, the training function receives everything as parameters.
def train(train_data, model, criterion, optimizer, epoch):
    model.train()
    for i, (inputs, target) in enumerate(train_data):
        output = model(inputs)
        loss = criterion(output, target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


class FmriLstm(nn.Module):
    """cnslab_fmri#4: the module keeps the returned state and reuses it next call."""

    def __init__(self, hidden_dim: int = 8, input_dim: int = 5) -> None:
        super().__init__()
        self.hidden_dim = hidden_dim
        self.lstm = nn.LSTM(input_dim, hidden_dim, num_layers=1, batch_first=True)
        self.linear = nn.Linear(hidden_dim, 1)
        self.dropout = nn.Dropout(p=0.2)
        self.hidden = (torch.randn(1, 2, hidden_dim), torch.randn(1, 2, hidden_dim))

    def forward(self, x):
        lstm_out, self.hidden = self.lstm(x, self.hidden)  # missed: GG201
        out = self.dropout(lstm_out[:, -1, :])
        return torch.sigmoid(self.linear(out))


# Source: cnslab_fmri#4, run_training_lstm.py: an epoch loop around a batch loop.
def run_training(model, loader, optimizer, epochs):
    criterion = nn.BCELoss()
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            pred = model(x)
            loss = criterion(pred, y)
            loss.backward()
            optimizer.step()


# Source: MorvanZhou/PyTorch-Tutorial#57, tutorial 403 without `h_state = h_state.data`.
class RnnRegressor(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.rnn = nn.RNN(input_size=1, hidden_size=8, num_layers=1, batch_first=True)
        self.out = nn.Linear(8, 1)

    def forward(self, x, h_state):
        r_out, h_state = self.rnn(x, h_state)
        return self.out(r_out), h_state


def fit_sine(steps):
    rnn = RnnRegressor()
    optimizer = torch.optim.Adam(rnn.parameters(), lr=0.02)
    loss_func = nn.MSELoss()
    h_state = None
    for step in range(steps):
        x = torch.sin(torch.linspace(step, step + 1, 10)).view(1, 10, 1)
        y = torch.cos(torch.linspace(step, step + 1, 10)).view(1, 10, 1)
        prediction, h_state = rnn(x, h_state)  # expect: GG201
        loss = loss_func(prediction, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
