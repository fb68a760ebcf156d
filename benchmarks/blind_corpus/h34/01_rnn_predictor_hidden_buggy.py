"""Stacked-LSTM time-series predictor trained with truncated BPTT.

Modelled on: https://github.com/chickenbestlover/RNN-Time-series-Anomaly-Detection/issues/42

The project's 1_train_predictor.py keeps one hidden state across all the
BPTT chunks of the series and calls ``model.repackage_hidden(hidden)`` at the
start of every batch to cut it from its history (the issue asks what that call
is for). In this version the trainer forgets the call: the (h, c) tuple
returned by the LSTM for chunk k is fed straight into chunk k+1, so the second
``loss.backward()`` walks back into chunk k's graph, whose buffers the first
backward already freed -> "Trying to backward through the graph a second time".
"""
import argparse

import torch
import torch.nn as nn


class RNNPredictor(nn.Module):
    def __init__(self, enc_inp_size, rnn_inp_size, rnn_hid_size, dec_out_size, nlayers):
        super().__init__()
        self.encoder = nn.Linear(enc_inp_size, rnn_inp_size)
        self.rnn = nn.LSTM(rnn_inp_size, rnn_hid_size, nlayers)
        self.decoder = nn.Linear(rnn_hid_size, dec_out_size)
        self.nlayers = nlayers
        self.rnn_hid_size = rnn_hid_size

    def forward(self, inp, hidden):
        emb = self.encoder(inp.reshape(-1, inp.size(-1))).view(inp.size(0), inp.size(1), -1)
        output, hidden = self.rnn(emb, hidden)
        decoded = self.decoder(output.reshape(-1, output.size(-1)))
        return decoded.view(output.size(0), output.size(1), -1), hidden

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        return (weight.new_zeros(self.nlayers, bsz, self.rnn_hid_size),
                weight.new_zeros(self.nlayers, bsz, self.rnn_hid_size))

    def repackage_hidden(self, h):
        """Wraps hidden states in new tensors, to detach them from their history."""
        if isinstance(h, tuple):
            return tuple(self.repackage_hidden(v) for v in h)
        return h.detach()


def batchify(series, bsz):
    nbatch = series.size(0) // bsz
    series = series[: nbatch * bsz]
    return series.view(bsz, -1, series.size(-1)).transpose(0, 1).contiguous()


def get_batch(source, i, bptt):
    seq_len = min(bptt, len(source) - 1 - i)
    return source[i:i + seq_len], source[i + 1:i + 1 + seq_len]


def train(args, model, train_dataset, optimizer, criterion):
    model.train()
    total_loss = 0.0
    hidden = model.init_hidden(args.batch_size)
    for batch, i in enumerate(range(0, train_dataset.size(0) - 1, args.bptt)):
        inputSeq, targetSeq = get_batch(train_dataset, i, args.bptt)
        optimizer.zero_grad()
        outSeq, hidden = model(inputSeq, hidden)  # bug: GG201
        loss = criterion(outSeq.reshape(-1, args.feat), targetSeq.reshape(-1, args.feat))
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), args.clip)
        optimizer.step()
        total_loss += loss.item()
    return total_loss


def parse_args(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--batch_size", type=int, default=4)
    p.add_argument("--bptt", type=int, default=10)
    p.add_argument("--feat", type=int, default=2)
    p.add_argument("--emsize", type=int, default=16)
    p.add_argument("--nhid", type=int, default=16)
    p.add_argument("--nlayers", type=int, default=2)
    p.add_argument("--clip", type=float, default=0.25)
    p.add_argument("--lr", type=float, default=0.01)
    return p.parse_args(argv)


def main():
    torch.manual_seed(0)
    args = parse_args([])
    t = torch.linspace(0, 20, 200)
    series = torch.stack([torch.sin(t), torch.cos(0.5 * t)], dim=1)
    train_dataset = batchify(series, args.batch_size)
    model = RNNPredictor(args.feat, args.emsize, args.nhid, args.feat, args.nlayers)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    criterion = nn.MSELoss()
    try:
        train(args, model, train_dataset, optimizer, criterion)
        print("no error")
    except RuntimeError as e:
        print("BUGGY:", str(e).splitlines()[0])


if __name__ == "__main__":
    main()
