"""Word-level LSTM language model trained with truncated BPTT.

Modelled on: https://github.com/dpressel/dliss-tutorial/issues/1

The tutorial trains a language model by walking over a long token stream in
chunks of `bptt` steps and initialises each chunk from the previous chunk's
final (h, c) state.  In this version the trainer forgets to cut the state from
the previous chunk's graph: the (h, c) tuple returned by the LSTM is fed
straight back in on the next chunk.  The graph of chunk k therefore hangs off
the graph of chunk k-1, whose buffers the previous backward() already freed, so
the second chunk's backward() fails with "Trying to backward through the graph
a second time" (and "fixing" it with retain_graph=True would make every step
backpropagate through the whole history).

Fixed version: the carried state is detached (repackage_hidden) before each chunk.
"""
import argparse

import torch
import torch.nn as nn


def build_args(argv=None):
    p = argparse.ArgumentParser(description="tiny LSTM LM")
    p.add_argument("--vocab", type=int, default=50)
    p.add_argument("--emsize", type=int, default=16)
    p.add_argument("--nhid", type=int, default=32)
    p.add_argument("--nlayers", type=int, default=2)
    p.add_argument("--bptt", type=int, default=8)
    p.add_argument("--batch-size", type=int, default=4)
    p.add_argument("--lr", type=float, default=0.5)
    p.add_argument("--clip", type=float, default=0.25)
    return p.parse_args(argv)


class RNNLM(nn.Module):
    def __init__(self, ntoken, ninp, nhid, nlayers, dropout=0.1):
        super().__init__()
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = nn.LSTM(ninp, nhid, nlayers, dropout=dropout)
        self.decoder = nn.Linear(nhid, ntoken)
        self.nhid, self.nlayers = nhid, nlayers

    def forward(self, tokens, hidden):
        emb = self.drop(self.encoder(tokens))
        output, hidden = self.rnn(emb, hidden)
        logits = self.decoder(self.drop(output))
        return logits.view(-1, logits.size(-1)), hidden

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        return (weight.new_zeros(self.nlayers, bsz, self.nhid),
                weight.new_zeros(self.nlayers, bsz, self.nhid))


def batchify(stream, bsz):
    nbatch = stream.size(0) // bsz
    return stream[: nbatch * bsz].view(bsz, -1).t().contiguous()


def repackage_hidden(h):
    """Wrap hidden states in new tensors, detaching them from their history."""
    if isinstance(h, torch.Tensor):
        return h.detach()
    return tuple(repackage_hidden(v) for v in h)


def get_batch(source, i, bptt):
    seq_len = min(bptt, len(source) - 1 - i)
    return source[i:i + seq_len], source[i + 1:i + 1 + seq_len].reshape(-1)


class LMTrainer:
    def __init__(self, model, train_data, args):
        self.model = model
        self.train_data = train_data
        self.args = args
        self.criterion = nn.CrossEntropyLoss()

    def sgd_step(self):
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.args.clip)
        with torch.no_grad():
            for p in self.model.parameters():
                p.add_(p.grad, alpha=-self.args.lr)

    def train_epoch(self):
        self.model.train()
        total = 0.0
        hidden = self.model.init_hidden(self.args.batch_size)
        for batch, i in enumerate(range(0, self.train_data.size(0) - 1, self.args.bptt)):
            data, targets = get_batch(self.train_data, i, self.args.bptt)
            self.model.zero_grad()
            # start this chunk from the previous state, but cut its history
            hidden = repackage_hidden(hidden)
            output, hidden = self.model(data, hidden)
            loss = self.criterion(output, targets)
            loss.backward()
            self.sgd_step()
            total += loss.item()
        return total / (batch + 1)


def main(argv=None):
    torch.manual_seed(0)
    args = build_args(argv)
    stream = torch.randint(0, args.vocab, (400,))
    train_data = batchify(stream, args.batch_size)
    model = RNNLM(args.vocab, args.emsize, args.nhid, args.nlayers)
    trainer = LMTrainer(model, train_data, args)
    return trainer.train_epoch()


if __name__ == "__main__":
    loss = main([])
    assert loss == loss
    print("FIXED: ok")
