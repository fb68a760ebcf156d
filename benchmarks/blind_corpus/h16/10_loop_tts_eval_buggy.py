"""GG204: validation loop runs the model with autograd on and keeps every output.

`evaluate()` of a small speaker-conditioned sequence model (VoiceLoop-like) puts the model
in eval mode but does not disable gradient tracking. Every validation batch builds a full
autograd graph, and since the predicted frames are kept (for plotting / saving), every
graph of the validation pass stays alive: memory jumps during validation.
Silent: no error; the stored validation outputs still require grad and carry a grad_fn.

Modelled on: https://github.com/facebookarchive/loop/issues/57
"""
import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

parser = argparse.ArgumentParser(description="PyTorch Phonological Loop (toy)")
parser.add_argument("--epochs", type=int, default=1)
parser.add_argument("--batch-size", type=int, default=4)
parser.add_argument("--nspk", type=int, default=3)
parser.add_argument("--vocab", type=int, default=12)
parser.add_argument("--hidden", type=int, default=32)
parser.add_argument("--feat", type=int, default=10)
parser.add_argument("--lr", type=float, default=1e-3)
parser.add_argument("--clip-grad", type=float, default=0.5)


class Loop(nn.Module):
    def __init__(self, opt):
        super().__init__()
        self.encoder = nn.Embedding(opt.vocab, opt.hidden)
        self.spkr = nn.Embedding(opt.nspk, opt.hidden)
        self.rnn = nn.GRU(opt.hidden, opt.hidden, batch_first=True)
        self.proj = nn.Linear(opt.hidden, opt.feat)

    def forward(self, src, spkr, start=True):
        h0 = self.spkr(spkr).unsqueeze(0) if start else None
        out, hidden = self.rnn(self.encoder(src), h0)
        return self.proj(out), hidden


class MaskedMSE(nn.Module):
    def forward(self, output, target):
        return ((output - target) ** 2).mean()


def train(model, criterion, optimizer, loader, epoch, args):
    model.train()
    total = 0.0
    for src, spkr, target in loader:
        optimizer.zero_grad()
        output, _ = model(src, spkr, start=True)
        loss = criterion(output, target)
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), args.clip_grad)
        optimizer.step()
        total += loss.item()
    return total / len(loader)


def evaluate(model, criterion, loader, epoch, eval_losses, predictions):
    model.eval()
    total = 0.0
    for src, spkr, target in loader:
        output, _ = model(src, spkr, start=True)  # bug: GG204
        loss = criterion(output, target)
        total += loss.item()
        predictions.append(output)
    eval_losses.append(total / len(loader))
    return eval_losses[-1]


def main():
    torch.manual_seed(0)
    args = parser.parse_args([])
    def make(n):
        return TensorDataset(torch.randint(0, args.vocab, (n, 7)),
                             torch.randint(0, args.nspk, (n,)),
                             torch.randn(n, 7, args.feat))
    train_loader = DataLoader(make(12), batch_size=args.batch_size, shuffle=True)
    valid_loader = DataLoader(make(8), batch_size=args.batch_size)
    model = Loop(args)
    criterion = MaskedMSE()
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    eval_losses, predictions = [], []
    for epoch in range(1, args.epochs + 1):
        train_loss = train(model, criterion, optimizer, train_loader, epoch, args)
        eval_loss = evaluate(model, criterion, valid_loader, epoch, eval_losses, predictions)
        print(f"epoch {epoch}: train {train_loss:.4f} valid {eval_loss:.4f}")
    return predictions


if __name__ == "__main__":
    predictions = main()
    kept = [p for p in predictions if p.requires_grad and p.grad_fn is not None]
    if kept:
        print(f"BUGGY: {len(kept)} validation outputs still hold their autograd graph "
              f"(grad_fn={type(kept[0].grad_fn).__name__})")
        raise SystemExit(0)
    raise SystemExit("NO BUG")
