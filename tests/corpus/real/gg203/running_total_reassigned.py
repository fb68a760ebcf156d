"""Running totals written `total = total + loss` rather than `total += loss` (GG203): the
assignment spelling keeps every iteration's graph alive exactly as the augmented one does.

Sources (rewritten in our own words, structure kept):
* https://github.com/Prateek-Havanur/Novel_classification/blob/main/utils/tools.py -
  `train_epoch(model, train_loader, optimizer, clip, criterion, ...)` of an LSTM classifier:
  the hidden state is re-wrapped from `.data` every batch, the loss is backpropagated, and
  `epoch_loss = epoch_loss + loss` sums the tensor itself; the epoch ends with
  `epoch_loss.cpu().detach().numpy()`. Its `val_epoch` does the same sum under
  `torch.no_grad()` (no graph to keep: a negative below).
* https://pytorch.org/docs/stable/notes/faq.html ("Don't accumulate history across your
  training loop") and https://github.com/google/brax/pull/152 - the same leak with `+=`.
* https://github.com/bubbliiiing/yolo3-pytorch/issues/3 - `total_loss` and `val_loss` summed
  as tensors; the fix adds `.item()`.
"""

import torch
from torch import nn


class SentimentLSTM(nn.Module):
    def __init__(self, vocab=50, hidden=8, classes=2):
        super().__init__()
        self.hidden = hidden
        self.embed = nn.Embedding(vocab, hidden)
        self.lstm = nn.LSTM(hidden, hidden, batch_first=True)
        self.fc = nn.Linear(hidden, classes)

    def init_hidden(self, batch_size):
        return (torch.zeros(1, batch_size, self.hidden), torch.zeros(1, batch_size, self.hidden))

    def forward(self, x, h):
        out, h = self.lstm(self.embed(x), h)
        return self.fc(out[:, -1]), h


# Source: Novel_classification tools.py, train_epoch.
def train_epoch(model, train_loader, optimizer, clip, criterion, batch_size):
    h = model.init_hidden(batch_size)
    epoch_loss = 0
    model.train()
    for inputs, labels in train_loader:
        h = tuple([each.data for each in h])
        optimizer.zero_grad()
        output, h = model(inputs, h)
        loss = criterion(output.squeeze(), labels.long())
        epoch_loss = epoch_loss + loss  # expect: GG203
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), clip)
        optimizer.step()
    return epoch_loss.cpu().detach().numpy()


# Source: the same file's val_epoch: the sum runs under no_grad, nothing is kept.
def val_epoch(model, valid_loader, criterion, batch_size):
    model.eval()
    epoch_loss = 0
    with torch.no_grad():
        val_h = model.init_hidden(batch_size)
        for inputs, labels in valid_loader:
            val_h = tuple([each.data for each in val_h])
            output, val_h = model(inputs, val_h)
            val_loss = criterion(output.squeeze(), labels.long())
            epoch_loss = epoch_loss + val_loss
    return epoch_loss.cpu().numpy()


def train_epoch_items(model, train_loader, optimizer, criterion, batch_size):
    """The fix: the number, not the tensor."""
    h = model.init_hidden(batch_size)
    epoch_loss = 0.0
    for inputs, labels in train_loader:
        h = tuple([each.data for each in h])
        optimizer.zero_grad()
        output, h = model(inputs, h)
        loss = criterion(output, labels)
        epoch_loss = epoch_loss + loss.item()
        loss.backward()
        optimizer.step()
    return epoch_loss


def train_epoch_detached(model, train_loader, optimizer, criterion, batch_size):
    """Also fine: a detached copy holds no graph."""
    h = model.init_hidden(batch_size)
    epoch_loss = torch.zeros(())
    for inputs, labels in train_loader:
        h = tuple([each.data for each in h])
        optimizer.zero_grad()
        output, h = model(inputs, h)
        loss = criterion(output, labels)
        loss.backward()
        optimizer.step()
        epoch_loss = epoch_loss + loss.detach()
    return epoch_loss


def train_with_l2(network, batches, optimizer, criterion, weight):
    """Sums rebuilt inside one iteration (the L2 penalty over the parameters, the loss plus the
    penalty) are backpropagated in that iteration: nothing outlives it."""
    for x, y in batches:
        optimizer.zero_grad()
        loss = criterion(network(x), y)
        l2 = 0.0
        for param in network.parameters():
            l2 = l2 + param.norm(2)
        loss = loss + weight * l2
        loss.backward()
        optimizer.step()


def accumulate_then_backward(network, batches, optimizer, criterion):
    """Summing on purpose and backpropagating the sum once: the graphs are needed."""
    optimizer.zero_grad()
    total = 0
    for x, y in batches:
        total = total + criterion(network(x), y)
    total.backward()
    optimizer.step()


torch.manual_seed(0)
lstm = SentimentLSTM()
opt = torch.optim.SGD(lstm.parameters(), lr=0.1)
ce = nn.CrossEntropyLoss()
loader = [(torch.randint(0, 50, (4, 6)), torch.randint(0, 2, (4,))) for _ in range(3)]
train_epoch(lstm, loader, opt, 1.0, ce, 4)
h0 = lstm.init_hidden(4)
kept = 0
for inputs, labels in loader:
    output, h0 = lstm(inputs, tuple(each.data for each in h0))
    step_loss = ce(output, labels)
    kept = kept + step_loss  # expect: GG203
    step_loss.backward()
assert kept.grad_fn is not None, "the total links every batch's graph"
assert not torch.is_tensor(train_epoch_items(lstm, loader, opt, ce, 4))
assert train_epoch_detached(lstm, loader, opt, ce, 4).grad_fn is None
assert val_epoch(lstm, loader, ce, 4).shape == ()
linear = nn.Linear(3, 2)
data = [(torch.randn(4, 3), torch.randint(0, 2, (4,))) for _ in range(2)]
train_with_l2(linear, data, torch.optim.SGD(linear.parameters(), lr=0.1), ce, 1e-4)
accumulate_then_backward(linear, data, torch.optim.SGD(linear.parameters(), lr=0.1), ce)
