"""GG301 (fixed version): in-place update of a leaf tensor that requires grad.

Mistake: a word-language-model training script (no torch.optim; plain SGD with
lr annealing, as in the old PyTorch example) updates every parameter with
``p.add_(p.grad, alpha=-lr)``.  Parameters are leaves that require grad, and
the update runs with grad mode on, so autograd refuses the in-place op.
torch raises: RuntimeError: a leaf Variable that requires grad is being used in
an in-place operation.
Fix: update the parameters under ``torch.no_grad()``.
Modelled on: https://github.com/pytorch/examples/pull/779
"""
import argparse
import math
import time

import torch
import torch.nn as nn

parser = argparse.ArgumentParser(description="RNN/LSTM word language model")
parser.add_argument("--ntokens", type=int, default=50)
parser.add_argument("--emsize", type=int, default=16)
parser.add_argument("--nhid", type=int, default=24)
parser.add_argument("--nlayers", type=int, default=1)
parser.add_argument("--lr", type=float, default=20.0)
parser.add_argument("--clip", type=float, default=0.25)
parser.add_argument("--bptt", type=int, default=10)
parser.add_argument("--batch_size", type=int, default=5)
parser.add_argument("--log-interval", type=int, default=2)


class RNNModel(nn.Module):
    def __init__(self, ntoken, ninp, nhid, nlayers, dropout=0.2):
        super().__init__()
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = nn.LSTM(ninp, nhid, nlayers)
        self.decoder = nn.Linear(nhid, ntoken)
        self.nhid, self.nlayers = nhid, nlayers

    def forward(self, inp, hidden):
        output, hidden = self.rnn(self.drop(self.encoder(inp)), hidden)
        return self.decoder(self.drop(output)), hidden

    def init_hidden(self, bsz):
        w = next(self.parameters())
        return (w.new_zeros(self.nlayers, bsz, self.nhid), w.new_zeros(self.nlayers, bsz, self.nhid))


def repackage_hidden(h):
    if isinstance(h, torch.Tensor):
        return h.detach()
    return tuple(repackage_hidden(v) for v in h)


def get_batch(source, i, bptt):
    seq_len = min(bptt, len(source) - 1 - i)
    return source[i:i + seq_len], source[i + 1:i + 1 + seq_len].reshape(-1)


def sgd_update(params, lr):
    with torch.no_grad():
        for p in params:
            if p.grad is not None:
                p.add_(p.grad, alpha=-lr)  # fixed: GG301


def train(model, train_data, criterion, lr, args, epoch):
    model.train()
    total_loss = 0.0
    start = time.time()
    hidden = model.init_hidden(args.batch_size)
    for batch, i in enumerate(range(0, train_data.size(0) - 1, args.bptt)):
        data, targets = get_batch(train_data, i, args.bptt)
        hidden = repackage_hidden(hidden)
        model.zero_grad()
        output, hidden = model(data, hidden)
        loss = criterion(output.view(-1, args.ntokens), targets)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), args.clip)
        sgd_update(model.parameters(), lr)
        total_loss += loss.item()
        if batch % args.log_interval == 0 and batch > 0:
            cur = total_loss / args.log_interval
            ms = (time.time() - start) * 1000 / args.log_interval
            print(f"| epoch {epoch} | batch {batch} | lr {lr:.2f} | ms/batch {ms:.1f} | ppl {math.exp(cur):.2f}")
            total_loss, start = 0.0, time.time()


def main():
    args = parser.parse_args([])
    torch.manual_seed(1111)
    corpus = torch.randint(0, args.ntokens, (300,))
    nbatch = corpus.size(0) // args.batch_size
    train_data = corpus[:nbatch * args.batch_size].view(args.batch_size, -1).t().contiguous()
    model = RNNModel(args.ntokens, args.emsize, args.nhid, args.nlayers)
    criterion = nn.CrossEntropyLoss()
    lr = args.lr
    for epoch in range(1, 3):
        train(model, train_data, criterion, lr, args, epoch)
        lr /= 4.0


if __name__ == "__main__":
    main()
    print("FIXED: ok")
