"""GG201 look-alike (correct code): LSTM state carried across batches, but repackaged.

A word-level language model trained with truncated BPTT. The hidden state returned
by one batch is passed to the next, which looks exactly like the classic bug, but a
helper (repackage_hidden) detaches it at the top of every batch, so each backward()
only walks the current segment's graph. Evaluation carries state under no_grad.
Modelled on: none found (correct counterpart of the reports behind 10/11)
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

ARGS = dict(ntokens=40, emsize=16, nhid=24, nlayers=2, bptt=8, batch_size=4, lr=2.0, clip=0.25, epochs=2)


class RNNModel(nn.Module):
    def __init__(self, ntoken, ninp, nhid, nlayers, dropout=0.2):
        super().__init__()
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = nn.LSTM(ninp, nhid, nlayers, dropout=dropout)
        self.decoder = nn.Linear(nhid, ntoken)
        self.nlayers, self.nhid = nlayers, nhid

    def forward(self, inp, hidden):
        emb = self.drop(self.encoder(inp))
        output, hidden = self.rnn(emb, hidden)
        return self.decoder(self.drop(output)), hidden

    def init_hidden(self, bsz):
        w = next(self.parameters())
        return (w.new_zeros(self.nlayers, bsz, self.nhid), w.new_zeros(self.nlayers, bsz, self.nhid))


def repackage_hidden(h):
    """Wraps hidden states in new Tensors, to detach them from their history."""
    if isinstance(h, torch.Tensor):
        return h.detach()
    return tuple(repackage_hidden(v) for v in h)


def batchify(data, bsz):
    nbatch = data.size(0) // bsz
    return data[: nbatch * bsz].view(bsz, -1).t().contiguous()


def get_batch(source, i, bptt):
    seq_len = min(bptt, len(source) - 1 - i)
    return source[i:i + seq_len], source[i + 1:i + 1 + seq_len].reshape(-1)


def train_epoch(model, train_data, args):
    model.train()
    hidden = model.init_hidden(args["batch_size"])
    total = 0.0
    for batch, i in enumerate(range(0, train_data.size(0) - 1, args["bptt"])):
        data, targets = get_batch(train_data, i, args["bptt"])
        hidden = repackage_hidden(hidden)
        model.zero_grad()
        output, hidden = model(data, hidden)
        loss = F.cross_entropy(output.view(-1, args["ntokens"]), targets)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), args["clip"])
        with torch.no_grad():
            for p in model.parameters():
                p.add_(p.grad, alpha=-args["lr"])
        total += loss.item()
    return total / (batch + 1)


def evaluate(model, data_source, args):
    model.eval()
    hidden = model.init_hidden(args["batch_size"])
    total = 0.0
    with torch.no_grad():
        for i in range(0, data_source.size(0) - 1, args["bptt"]):
            data, targets = get_batch(data_source, i, args["bptt"])
            output, hidden = model(data, hidden)
            total += len(data) * F.cross_entropy(output.view(-1, args["ntokens"]), targets).item()
    return total / (len(data_source) - 1)


def main():
    torch.manual_seed(0)
    corpus = torch.randint(0, ARGS["ntokens"], (400,))
    train_data = batchify(corpus[:320], ARGS["batch_size"])
    val_data = batchify(corpus[320:], ARGS["batch_size"])
    model = RNNModel(ARGS["ntokens"], ARGS["emsize"], ARGS["nhid"], ARGS["nlayers"])
    for epoch in range(ARGS["epochs"]):
        tr = train_epoch(model, train_data, ARGS)
        val = evaluate(model, val_data, ARGS)
        print(f"epoch {epoch}: train {tr:.3f} valid {val:.3f} ppl {math.exp(val):.1f}")


if __name__ == "__main__":
    main()
    print("OK")
