"""Recurrent state kept between calls of a per-batch training method (GG201).

Sources (rewritten in our own words, structure kept):
* pytorch/examples word_language_model `train()`: the loop calls `repackage_hidden(hidden)`
  before every batch (https://github.com/pytorch/examples/blob/main/word_language_model/main.py);
  dropping it gives "Trying to backward through the graph a second time", the error reported
  in https://github.com/MorvanZhou/PyTorch-Tutorial/issues/57.
* https://github.com/ndrplz/ConvLSTM_pytorch/issues/21 - a reinforcement-learning agent feeds
  the updated hidden state back in a loop, and only the evaluation copy runs under no_grad.
* https://github.com/pytorch/pytorch/issues/2769 - state on a long-lived object.
"""

import torch
from torch import nn


class StreamTrainer:
    """The state lives on the trainer and is fed back on the next `train_batch` call."""

    def __init__(self) -> None:
        self.gru = nn.GRU(3, 6)
        self.head = nn.Linear(6, 1)
        params = list(self.gru.parameters()) + list(self.head.parameters())
        self.optimizer = torch.optim.SGD(params, lr=0.05)
        self.hidden = None

    def train_batch(self, x, y):
        out, self.hidden = self.gru(x, self.hidden)  # expect: GG201
        loss = nn.functional.mse_loss(self.head(out), y)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item()

    def fit(self, batches):
        return [self.train_batch(x, y) for x, y in batches]


class DetachingStreamTrainer:
    """The fixed trainer: the state is detached before each batch, so the comprehension
    that calls `train_batch` per batch carries no graph from one batch to the next."""

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


# Source: word_language_model train() with the repackage_hidden call left out; the model
# and the data come in as parameters.
def train_language_model(model, batches, criterion, lr, ntokens):
    model.train()
    hidden = model.init_hidden(2)
    for data, targets in batches:
        model.zero_grad()
        output, hidden = model(data, hidden)  # missed: GG201
        loss = criterion(output.view(-1, ntokens), targets)
        loss.backward()
        for p in model.parameters():
            p.data.add_(p.grad, alpha=-lr)


class RecurrentAgent(nn.Module):
    """ConvLSTM#21-style agent: an LSTM cell stepped once per environment step."""

    def __init__(self) -> None:
        super().__init__()
        self.cell = nn.LSTMCell(4, 8)
        self.policy = nn.Linear(8, 2)

    def forward(self, obs, state):
        h, c = self.cell(obs, state)
        return self.policy(h), (h, c)


# Source: ConvLSTM#21, the training copy of the rollout: one update per step, the state
# tuple goes straight into the next step.
def train_agent(agent, optimizer, observations, returns):
    state = (torch.zeros(1, 8), torch.zeros(1, 8))
    for obs, ret in zip(observations, returns):
        logits, state = agent(obs, state)  # missed: GG201
        loss = nn.functional.cross_entropy(logits, ret)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


# Source: the word_language_model structure with nn.LSTM built in the function and a while
# loop over positions of one long sequence (truncated BPTT without the truncation).
def tbptt_while(sequence, targets, bptt):
    lstm = nn.LSTM(2, 4)
    decoder = nn.Linear(4, 2)
    optimizer = torch.optim.Adam(list(lstm.parameters()) + list(decoder.parameters()))
    hidden = (torch.zeros(1, 1, 4), torch.zeros(1, 1, 4))
    i = 0
    while i < sequence.size(0) - 1:
        chunk = sequence[i : i + bptt]
        target = targets[i : i + bptt]
        output, hidden = lstm(chunk, hidden)  # expect: GG201
        loss = nn.functional.mse_loss(decoder(output), target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        i += bptt
