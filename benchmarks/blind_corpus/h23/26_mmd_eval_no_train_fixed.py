"""GG607 - model.eval() inside the training loop, model.train() never restored.

A multimodal dialogue (text + image feature) response model is trained by
``train()``, which calls ``model.train()`` once before the epoch loop.  At the
end of each epoch it runs ``evaluate()``, which switches the model to
``model.eval()`` and returns.  FIXED version: ``model.train()`` is called
again right after validation, so every training step runs in training mode
(dropout active, BatchNorm using batch statistics).

Modelled on: https://github.com/shubhamagarwal92/mmd/issues/14
"""
import argparse
import sys

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def get_args():
    p = argparse.ArgumentParser()
    p.add_argument("--vocab", type=int, default=60)
    p.add_argument("--img-dim", type=int, default=24)
    p.add_argument("--hidden", type=int, default=32)
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--dropout", type=float, default=0.3)
    p.add_argument("--lr", type=float, default=1e-3)
    return p.parse_args([])


class MultimodalHRED(nn.Module):
    def __init__(self, a):
        super().__init__()
        self.emb = nn.Embedding(a.vocab, a.hidden)
        self.utt_enc = nn.GRU(a.hidden, a.hidden, batch_first=True)
        self.img_proj = nn.Sequential(nn.Linear(a.img_dim, a.hidden), nn.BatchNorm1d(a.hidden), nn.ReLU())
        self.ctx = nn.Linear(2 * a.hidden, a.hidden)
        self.drop = nn.Dropout(a.dropout)
        self.dec = nn.GRU(a.hidden, a.hidden, batch_first=True)
        self.out = nn.Linear(a.hidden, a.vocab)

    def forward(self, text, image, target_in):
        _, h = self.utt_enc(self.drop(self.emb(text)))
        ctx = torch.tanh(self.ctx(torch.cat([h[-1], self.img_proj(image)], dim=-1)))
        dec_out, _ = self.dec(self.drop(self.emb(target_in)), ctx.unsqueeze(0).contiguous())
        return self.out(self.drop(dec_out))


def evaluate(model, loader, criterion):
    model.eval()
    total, n = 0.0, 0
    with torch.no_grad():
        for text, image, tgt in loader:
            logits = model(text, image, tgt[:, :-1])
            total += criterion(logits.reshape(-1, logits.size(-1)), tgt[:, 1:].reshape(-1)).item()
            n += 1
    return total / n


def train(model, train_loader, val_loader, args, mode_log):
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    model.train()
    for epoch in range(args.epochs):
        for i, (text, image, tgt) in enumerate(train_loader):
            mode_log.append((epoch, model.training))
            logits = model(text, image, tgt[:, :-1])
            loss = criterion(logits.reshape(-1, logits.size(-1)), tgt[:, 1:].reshape(-1))
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 5.0)
            optimizer.step()
        val_loss = evaluate(model, val_loader, criterion)
        model.train()  # fixed: GG607
        print(f"epoch {epoch}: train loss {loss.item():.3f} val loss {val_loss:.3f}")


def make_loader(a, n=16, shuffle=True):
    text = torch.randint(0, a.vocab, (n, 7))
    image = torch.randn(n, a.img_dim)
    tgt = torch.randint(0, a.vocab, (n, 6))
    return DataLoader(TensorDataset(text, image, tgt), batch_size=8, shuffle=shuffle)


def main():
    args = get_args()
    torch.manual_seed(0)
    model = MultimodalHRED(args)
    mode_log = []
    train(model, make_loader(args), make_loader(args, 8, False), args, mode_log)
    return mode_log


if __name__ == "__main__":
    log = main()
    eval_steps = [e for e, training in log if not training]
    assert not eval_steps, eval_steps
    print("FIXED: ok")
