"""Document-level LSTM language model: full BPTT inside each document.

Modelled on: https://github.com/dpressel/dliss-tutorial/issues/1 (counterpart)

Looks like the truncated-BPTT trainer: the (h, c) state returned by the LSTM is
fed back in on the next chunk without .detach().  But here every document is
short, the state is re-initialised for each document, the per-chunk losses are
summed and backward() runs ONCE per document, after the chunk loop.  Carrying
the undetached state across the chunks is exactly what full BPTT needs, and no
graph is ever traversed twice.
"""
import argparse

import torch
import torch.nn as nn


def build_args(argv=None):
    p = argparse.ArgumentParser(description="document LM")
    p.add_argument("--vocab", type=int, default=40)
    p.add_argument("--emsize", type=int, default=16)
    p.add_argument("--nhid", type=int, default=24)
    p.add_argument("--chunk", type=int, default=6)
    p.add_argument("--docs", type=int, default=3)
    p.add_argument("--lr", type=float, default=1e-2)
    return p.parse_args(argv)


class DocLM(nn.Module):
    def __init__(self, ntoken, ninp, nhid):
        super().__init__()
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = nn.LSTM(ninp, nhid)
        self.decoder = nn.Linear(nhid, ntoken)
        self.nhid = nhid

    def forward(self, tokens, hidden):
        output, hidden = self.rnn(self.encoder(tokens), hidden)
        return self.decoder(output).flatten(0, 1), hidden

    def init_hidden(self, bsz):
        w = next(self.parameters())
        return (w.new_zeros(1, bsz, self.nhid), w.new_zeros(1, bsz, self.nhid))


def make_documents(n_docs, vocab, length=25):
    g = torch.Generator().manual_seed(1)
    return [torch.randint(0, vocab, (length, 2), generator=g) for _ in range(n_docs)]


def chunks(doc, size):
    for i in range(0, doc.size(0) - 1, size):
        n = min(size, doc.size(0) - 1 - i)
        yield doc[i:i + n], doc[i + 1:i + 1 + n].reshape(-1)


class DocTrainer:
    def __init__(self, model, args):
        self.model = model
        self.args = args
        self.criterion = nn.CrossEntropyLoss()
        self.optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)

    def document_loss(self, doc):
        hidden = self.model.init_hidden(doc.size(1))
        losses = []
        for data, targets in chunks(doc, self.args.chunk):
            output, hidden = self.model(data, hidden)
            losses.append(self.criterion(output, targets))
        return torch.stack(losses).mean()

    def train_epoch(self, docs):
        self.model.train()
        total = 0.0
        for doc in docs:
            self.optimizer.zero_grad()
            loss = self.document_loss(doc)
            loss.backward()
            self.optimizer.step()
            total += loss.item()
        return total / len(docs)


def main(argv=None):
    torch.manual_seed(0)
    args = build_args(argv)
    model = DocLM(args.vocab, args.emsize, args.nhid)
    trainer = DocTrainer(model, args)
    docs = make_documents(args.docs, args.vocab)
    first = trainer.train_epoch(docs)
    second = trainer.train_epoch(docs)
    return first, second


if __name__ == "__main__":
    a, b = main([])
    assert a == a and b == b
    print("OK")
