"""Single-head self-attention classifier ("naked attention") on synthetic sequences.

Modelled on: https://github.com/jostmey/NakedAttention/issues/1

The training script accumulates the epoch averages with
``e_train += e_batch/len(loader_train)`` and ``a_train += ...`` where
``e_batch`` is the loss tensor that was just backpropagated. Each ``+=`` adds a
node to a graph that links every batch's loss, so all batches' graphs stay
alive until the end of the epoch (the reporter ran out of RAM on Kaggle).
The check below shows the epoch total still carries a grad_fn chain back to
the model.
"""
import argparse

import torch
import torch.nn as nn


class NakedAttention(nn.Module):
    def __init__(self, num_features, num_hidden, num_classes):
        super().__init__()
        self.query = nn.Linear(num_features, num_hidden)
        self.key = nn.Linear(num_features, num_hidden)
        self.value = nn.Linear(num_features, num_hidden)
        self.output = nn.Linear(num_hidden, num_classes)

    def forward(self, x):
        q, k, v = self.query(x), self.key(x), self.value(x)
        w = torch.softmax(q @ k.transpose(1, 2) / q.size(-1) ** 0.5, dim=-1)
        h = (w @ v).mean(dim=1)
        return self.output(h)


def make_loader(n, seq, feat, bs, gen):
    x = torch.randn(n, seq, feat, generator=gen)
    y = (x[:, :, 0].sum(1) > 0).long()
    return [(x[i:i + bs], y[i:i + bs]) for i in range(0, n, bs)]


def accuracy(logits, y):
    return (logits.argmax(1) == y).float().mean()


def run_epoch(model, loss_fn, optimizer, loader_train):
    model.train()
    e_train = 0.0
    a_train = 0.0
    for xs_batch, ys_batch in loader_train:
        ls_batch = model(xs_batch)
        e_batch = loss_fn(ls_batch, ys_batch)
        a_batch = accuracy(ls_batch, ys_batch)
        optimizer.zero_grad()
        e_batch.backward()
        optimizer.step()
        e_train += e_batch / len(loader_train)  # bug: GG203
        a_train += a_batch / len(loader_train)
    return e_train, a_train


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--batch", type=int, default=16)
    p.add_argument("--hidden", type=int, default=16)
    p.add_argument("--epochs", type=int, default=2)
    args = p.parse_args([])
    gen = torch.Generator().manual_seed(0)
    torch.manual_seed(0)
    loader_train = make_loader(128, 8, 4, args.batch, gen)
    model = NakedAttention(4, args.hidden, 2)
    loss_fn = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(args.epochs):
        e_train, a_train = run_epoch(model, loss_fn, optimizer, loader_train)
        print("epoch", epoch, "loss", float(e_train), "acc", float(a_train))
    if torch.is_tensor(e_train) and e_train.grad_fn is not None:
        print("BUGGY: epoch loss keeps the autograd graph of every batch:", e_train.grad_fn)
    else:
        print("no graph kept")


if __name__ == "__main__":
    main()
