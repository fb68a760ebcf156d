"""Category GG201 - RNN/LSTM hidden state carried into the next iteration without .detach().

The sequence classifier stores the LSTM (h, c) tuple on ``self.hidden`` inside
forward() and feeds it back on the next call. Because the stored state still
belongs to the previous batch's graph (which backward() already freed), the
second training step backpropagates into that freed graph and torch raises
    RuntimeError: Trying to backward through the graph a second time ...
Modelled on: https://github.com/pytorch/pytorch/issues/2769
(This file: buggy version.)
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


def get_args(argv=None):
    p = argparse.ArgumentParser(description="clip-feature LSTM classifier")
    p.add_argument("--input-len", type=int, default=16)
    p.add_argument("--hidden-len", type=int, default=32)
    p.add_argument("--num-classes", type=int, default=5)
    p.add_argument("--batch-size", type=int, default=4)
    p.add_argument("--seq-len", type=int, default=6)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--epochs", type=int, default=1)
    return p.parse_args(argv)


class ClipLSTM(nn.Module):
    def __init__(self, input_len, hidden_len, target_size, batch_size, use_log_softmax=True):
        super().__init__()
        self.hidden_len = hidden_len
        self.batch_size = batch_size
        self.target_size = target_size
        self.use_log_softmax = use_log_softmax
        self.lstm = nn.LSTM(input_len, hidden_len, batch_first=True)
        self.hidden2class = nn.Linear(hidden_len, target_size)
        self.hidden = self.init_hidden()

    def init_hidden(self):
        zeros = torch.zeros(1, self.batch_size, self.hidden_len)
        return (zeros.clone(), zeros.clone())

    def forward(self, x):
        lstm_out, self.hidden = self.lstm(x, self.hidden)  # bug: GG201
        scores = self.hidden2class(lstm_out[:, -1, :]).view(-1, self.target_size)
        if self.use_log_softmax:
            scores = F.log_softmax(scores, dim=1)
        return scores


class AverageMeter:
    def __init__(self):
        self.sum, self.count = 0.0, 0

    def update(self, val, n=1):
        self.sum += val * n
        self.count += n

    @property
    def avg(self):
        return self.sum / max(self.count, 1)


def train(train_data, model, criterion, optimizer, epoch):
    model.train()
    losses = AverageMeter()
    for i, (inputs, target) in enumerate(train_data):
        output = model(inputs)
        loss = criterion(output, target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.update(loss.item(), inputs.size(0))
        if i % 2 == 0:
            print(f"epoch {epoch} iter {i} loss {losses.avg:.4f}")
    return losses.avg


def main(argv=None):
    args = get_args(argv)
    torch.manual_seed(0)
    n = args.batch_size * 4
    feats = torch.randn(n, args.seq_len, args.input_len)
    labels = torch.randint(0, args.num_classes, (n,))
    loader = DataLoader(TensorDataset(feats, labels), batch_size=args.batch_size,
                        shuffle=True, drop_last=True)
    model = ClipLSTM(args.input_len, args.hidden_len, args.num_classes, args.batch_size)
    criterion = nn.NLLLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    for epoch in range(args.epochs):
        train(loader, model, criterion, optimizer, epoch)


if __name__ == "__main__":
    try:
        main([])
    except RuntimeError as e:
        print("BUGGY:", str(e).splitlines()[0])
        raise SystemExit(0)
    raise SystemExit("NO BUG")
