"""Stacked-LSTM-cell time-series predictor, unrolled step by step per window.

Modelled on: https://github.com/chickenbestlover/RNN-Time-series-Anomaly-Detection/issues/42 (counterpart)

Look-alike: like the predictor in the report, the hidden state is carried
from one step to the next and passed back into the recurrent cell. But here
the windows are independent samples: the state is re-created with
``init_hidden`` for every window and only carried across the time steps of
the same window, whose graph is backpropagated once, as a whole. No state
crosses a backward() call, so no detach is needed.
"""
import argparse

import torch
import torch.nn as nn


class CellPredictor(nn.Module):
    def __init__(self, feat, nhid, nlayers):
        super().__init__()
        self.encoder = nn.Linear(feat, nhid)
        self.cells = nn.ModuleList([nn.LSTMCell(nhid, nhid) for _ in range(nlayers)])
        self.decoder = nn.Linear(nhid, feat)
        self.nhid = nhid

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        return [(weight.new_zeros(bsz, self.nhid), weight.new_zeros(bsz, self.nhid))
                for _ in self.cells]

    def step(self, x_t, hidden):
        inp = self.encoder(x_t)
        new_hidden = []
        for cell, (h, c) in zip(self.cells, hidden):
            h, c = cell(inp, (h, c))
            new_hidden.append((h, c))
            inp = h
        return self.decoder(inp), new_hidden


def make_windows(series, win):
    starts = range(0, series.size(0) - win - 1, win // 2)
    xs = torch.stack([series[s:s + win] for s in starts])
    ys = torch.stack([series[s + 1:s + 1 + win] for s in starts])
    return xs, ys


def train_epoch(args, model, xs, ys, optimizer, criterion):
    model.train()
    total = 0.0
    for b in range(0, xs.size(0), args.batch_size):
        xb, yb = xs[b:b + args.batch_size], ys[b:b + args.batch_size]
        hidden = model.init_hidden(xb.size(0))
        optimizer.zero_grad()
        preds = []
        for t in range(xb.size(1)):
            out, hidden = model.step(xb[:, t], hidden)
            preds.append(out)
        loss = criterion(torch.stack(preds, 1), yb)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), args.clip)
        optimizer.step()
        total += loss.item()
    return total


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--batch_size", type=int, default=8)
    p.add_argument("--win", type=int, default=12)
    p.add_argument("--nhid", type=int, default=16)
    p.add_argument("--nlayers", type=int, default=2)
    p.add_argument("--clip", type=float, default=0.25)
    args = p.parse_args([])
    torch.manual_seed(0)
    t = torch.linspace(0, 20, 120)
    series = torch.stack([torch.sin(t), torch.cos(0.5 * t)], dim=1)
    xs, ys = make_windows(series, args.win)
    model = CellPredictor(2, args.nhid, args.nlayers)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    for _ in range(1):
        train_epoch(args, model, xs, ys, optimizer, nn.MSELoss())
    print("OK")


if __name__ == "__main__":
    main()
