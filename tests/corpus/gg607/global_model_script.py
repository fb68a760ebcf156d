"""A script whose model is a global: `train()` and `evaluate()` read it, the epoch loop at
module level calls both.

Shaped like pytorch/examples word_language_model/main.py (where `train()` does start with
`model.train()`; here it does not, as in the quickstart that pytorch/tutorials#1624
reported), so from the second epoch on the recurrent model trains without dropout.
https://github.com/pytorch/examples/blob/main/word_language_model/main.py
https://github.com/pytorch/tutorials/issues/1624
"""

import torch
from torch import nn
import torch.nn.functional as F


class RNNModel(nn.Module):
    def __init__(self, ntoken=100, nhid=32):
        super().__init__()
        self.drop = nn.Dropout(0.2)
        self.encoder = nn.Embedding(ntoken, nhid)
        self.rnn = nn.LSTM(nhid, nhid)
        self.decoder = nn.Linear(nhid, ntoken)

    def forward(self, tokens):
        output, _ = self.rnn(self.drop(self.encoder(tokens)))
        return self.decoder(self.drop(output))


model = RNNModel()
train_data = [torch.randint(0, 100, (12, 4)) for _ in range(3)]
val_data = [torch.randint(0, 100, (12, 4))]
lr = 20.0


def evaluate(data_source):
    model.eval()
    total = 0.0
    with torch.no_grad():
        for batch in data_source:
            output = model(batch[:-1])
            total += float(F.cross_entropy(output.view(-1, 100), batch[1:].reshape(-1)))
    return total / len(data_source)


def train():
    for batch in train_data:
        model.zero_grad()
        output = model(batch[:-1])
        loss = F.cross_entropy(output.view(-1, 100), batch[1:].reshape(-1))
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 0.25)
        for p in model.parameters():
            p.data.add_(p.grad, alpha=-lr)


best_val_loss = None
for epoch in range(1, 4):
    train()
    val_loss = evaluate(val_data)  # expect: GG607
    if not best_val_loss or val_loss < best_val_loss:
        with open("model.pt", "wb") as f:
            torch.save(model, f)
        best_val_loss = val_loss
    else:
        lr /= 4.0
