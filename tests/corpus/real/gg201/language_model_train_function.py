"""A word-level language model trained by `train(model, corpus_batches, optimizer,
criterion)`: the hidden state is initialised once per epoch and fed from batch to batch
(truncated BPTT), but the call that detaches it (`repackage_hidden`) was left out, so the
second batch's backward raises "Trying to backward through the graph a second time" (or,
with retain_graph=True, the graph grows without bound).

Sources (rewritten in our own words, structure kept):
https://github.com/chickenbestlover/RNN-Time-series-Anomaly-Detection/issues/42 and
https://github.com/salesforce/awd-lstm-lm/issues/91 (what `repackage_hidden` is for).
"""

import torch
from torch import nn


class RNNModel(nn.Module):
    def __init__(self, ntoken: int = 20, ninp: int = 8, nhid: int = 8) -> None:
        super().__init__()
        self.nhid = nhid
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = nn.LSTM(ninp, nhid)
        self.decoder = nn.Linear(nhid, ntoken)

    def forward(self, inputs, hidden):
        output, hidden = self.rnn(self.encoder(inputs), hidden)
        return self.decoder(output), hidden

    def init_hidden(self, bsz):
        return (torch.zeros(1, bsz, self.nhid), torch.zeros(1, bsz, self.nhid))


def repackage_hidden(h):
    if isinstance(h, torch.Tensor):
        return h.detach()
    return tuple(repackage_hidden(v) for v in h)


def train(model, batches, optimizer, criterion, bsz=2):
    model.train()
    hidden = model.init_hidden(bsz)
    for data, targets in batches:
        optimizer.zero_grad()
        output, hidden = model(data, hidden)  # expect: GG201
        loss = criterion(output.view(-1, output.size(-1)), targets.view(-1))
        loss.backward()
        optimizer.step()


def train_fixed(model, batches, optimizer, criterion, bsz=2):
    model.train()
    hidden = model.init_hidden(bsz)
    for data, targets in batches:
        hidden = repackage_hidden(hidden)
        optimizer.zero_grad()
        output, hidden = model(data, hidden)
        loss = criterion(output.view(-1, output.size(-1)), targets.view(-1))
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    net = RNNModel()
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    data = [(torch.randint(0, 20, (5, 2)), torch.randint(0, 20, (5, 2))) for _ in range(3)]
    try:
        train(net, data, opt, nn.CrossEntropyLoss())
    except RuntimeError as error:
        assert "backward through the graph a second time" in str(error)
    else:
        raise AssertionError("expected the second-backward error")
    train_fixed(net, data, opt, nn.CrossEntropyLoss())
