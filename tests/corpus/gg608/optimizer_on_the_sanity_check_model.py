"""The optimizer holds the module-level model of a shape check, not the one trained (GG608).

A character-level RNN script builds `rnn` at module level to check output shapes (calling its
own `init_hidden()` method), then `main()` builds a fresh `model`, but the optimizer is built
from `rnn.parameters()`. `train(model, optimizer, ...)` backpropagates a loss computed by
`model` and steps an optimizer that holds only `rnn`: `model` never changes (checked with
torch 2.13.0 below). `init_hidden` only reads `self.hidden_size` for `torch.zeros`, so it
can neither alias the module nor share its parameters.

Look-alikes: the same script with the optimizer on `model`, and a module whose method hands
itself to another object (`attach`), after which any module may hold its parameters.

Modelled on the char-RNN name classifier case of the team's blind corpus (h8), the shape of
the PyTorch "classifying names with a character-level RNN" tutorial.
"""

import torch
from torch import nn

HIDDEN = 8


class CharRNN(nn.Module):
    def __init__(self, n_in, n_hidden, n_out):
        super().__init__()
        self.hidden_size = n_hidden
        self.i2h = nn.Linear(n_in + n_hidden, n_hidden)
        self.i2o = nn.Linear(n_in + n_hidden, n_out)

    def forward(self, x, hidden):
        both = torch.cat([x, hidden], 1)
        return self.i2o(both).log_softmax(1), torch.tanh(self.i2h(both))

    def init_hidden(self):
        return torch.zeros(1, self.hidden_size)


class Holder(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = nn.Linear(4, 3)

    def forward(self, x):
        return self.inner(x)

    def attach(self, other):
        other.child = self


rnn = CharRNN(4, HIDDEN, 3)
out, _ = rnn(torch.zeros(1, 4), rnn.init_hidden())
assert out.shape == (1, 3)
criterion = nn.NLLLoss()


def train(model, optimizer, line, target):
    hidden = model.init_hidden()
    optimizer.zero_grad()
    for step in range(line.size(0)):
        output, hidden = model(line[step], hidden)
    loss = criterion(output, target)
    loss.backward()
    optimizer.step()
    return loss.item()


def main():
    model = CharRNN(4, HIDDEN, 3)
    optimizer = torch.optim.SGD(rnn.parameters(), lr=0.1)  # expect: GG608
    before = [p.detach().clone() for p in model.parameters()]
    for _ in range(3):
        train(model, optimizer, torch.randn(5, 1, 4), torch.tensor([1]))
    assert all(torch.equal(a, b) for a, b in zip(before, model.parameters()))


def main_fixed():
    model = CharRNN(4, HIDDEN, 3)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    before = [p.detach().clone() for p in model.parameters()]
    for _ in range(3):
        hidden = model.init_hidden()
        optimizer.zero_grad()
        output, hidden = model(torch.randn(1, 4), hidden)
        criterion(output, torch.tensor([1])).backward()
        optimizer.step()
    assert not all(torch.equal(a, b) for a, b in zip(before, model.parameters()))


def main_attached():
    holder = Holder()
    wrapper = nn.Module()
    holder.attach(wrapper)
    optimizer = torch.optim.SGD(holder.parameters(), lr=0.1)
    for _ in range(2):
        optimizer.zero_grad()
        wrapper.child(torch.randn(2, 4)).sum().backward()
        optimizer.step()


if __name__ == "__main__":
    main()
    main_fixed()
    main_attached()
