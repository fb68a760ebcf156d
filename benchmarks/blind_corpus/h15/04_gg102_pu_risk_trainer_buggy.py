"""GG102 - backward() on a risk that the loss function already turned into a float.

Category: GG102 (value went through .item()/float() before backward()).
The mistake: the PU-learning model's loss_func() returns its four results
(accuracy, risk, positive risk, negative risk) as Python floats via .item(),
because they are also logged.  The trainer then calls (risk).backward(),
which fails with
    AttributeError: 'float' object has no attribute 'backward'
This file: BUGGY version.
Modelled on: https://github.com/v-mipeng/LexiconNER/issues/7
"""
import argparse
import sys

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def get_args(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--vocab", type=int, default=50)
    p.add_argument("--emb", type=int, default=16)
    p.add_argument("--hidden", type=int, default=16)
    p.add_argument("--prior", type=float, default=0.3)
    p.add_argument("--beta", type=float, default=0.0)
    p.add_argument("--gamma", type=float, default=1.0)
    p.add_argument("--lr", type=float, default=1e-2)
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--epochs", type=int, default=1)
    return p.parse_args(argv)


class PULSTMCNN(nn.Module):
    """Token tagger that scores every token as entity (1) / unlabeled (0)."""

    def __init__(self, args):
        super().__init__()
        self.args = args
        self.emb = nn.Embedding(args.vocab, args.emb)
        self.lstm = nn.LSTM(args.emb, args.hidden, batch_first=True, bidirectional=True)
        self.out = nn.Linear(2 * args.hidden, 1)

    def forward(self, tokens):
        h, _ = self.lstm(self.emb(tokens))
        return torch.sigmoid(self.out(h)).squeeze(-1)

    def loss_func(self, yTrue, yPred):
        """non-negative PU risk; returns values for the training log."""
        prior = self.args.prior
        pos = (yTrue == 1).float()
        unl = (yTrue == 0).float()
        n_pos = torch.clamp(pos.sum(), min=1.0)
        n_unl = torch.clamp(unl.sum(), min=1.0)
        y = torch.clamp(yPred, 1e-6, 1 - 1e-6)
        p_risk = prior * ((1 - y) * pos).sum() / n_pos
        n_risk = (y * unl).sum() / n_unl - prior * (y * pos).sum() / n_pos
        risk = p_risk + n_risk
        if n_risk.item() < -self.args.beta:
            risk = -self.args.gamma * n_risk
        acc = ((yPred > 0.5).float() == yTrue).float().mean()
        return acc.item(), risk.item(), p_risk.item(), n_risk.item()


class Trainer:
    def __init__(self, model, args):
        self.model = model
        self.args = args
        self.optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
        self.history = []

    def train_mini_batch(self, batch, args):
        tokens, labels = batch
        self.optimizer.zero_grad()
        result = self.model(tokens)
        acc, risk, prisk, nrisk = self.model.loss_func(labels, result)
        (risk).backward()  # bug: GG102
        self.optimizer.step()
        return acc, risk, prisk, nrisk

    def train(self, loader):
        for epoch in range(self.args.epochs):
            for step, batch in enumerate(loader):
                acc, risk, prisk, nrisk = self.train_mini_batch(batch, self.args)
                self.history.append(float(risk))
                print(f"epoch {epoch} step {step}: acc {float(acc):.3f} "
                      f"risk {float(risk):.4f} (p {float(prisk):.4f}, n {float(nrisk):.4f})")


def main():
    torch.manual_seed(0)
    args = get_args([])
    tokens = torch.randint(0, args.vocab, (32, 10))
    labels = (torch.rand(32, 10) < 0.2).float()
    loader = DataLoader(TensorDataset(tokens, labels), batch_size=args.batch, shuffle=True)
    trainer = Trainer(PULSTMCNN(args), args)
    trainer.train(loader)


if __name__ == "__main__":
    try:
        main()
    except (RuntimeError, AttributeError) as err:
        print(f"BUGGY: {str(err).splitlines()[0]}")
        sys.exit(0)
    raise SystemExit("NO BUG")
