"""Category GG407 look-alike - parameter .grad read in a logging helper, after backward().

The sentiment RNN trainer computes per-module gradient norms from ``p.grad``
for its logs. The helper runs after ``loss.backward()`` in every step and only
visits parameters that require grad (the frozen pretrained embedding is
skipped), so no ``.grad`` it reads is None. No error; prints OK.
Modelled on: https://github.com/vanzytay/pytorch_sentiment_rnn/issues/6
"""
import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

parser = argparse.ArgumentParser()
parser.add_argument("--vocab", type=int, default=60)
parser.add_argument("--emb", type=int, default=16)
parser.add_argument("--hidden", type=int, default=24)
parser.add_argument("--batch-size", type=int, default=5)
parser.add_argument("--clip-norm", type=float, default=1.0)
parser.add_argument("--lr", type=float, default=1e-3)


class SentimentRNN(nn.Module):
    def __init__(self, vocab, emb, hidden, pretrained=None):
        super().__init__()
        self.embed = nn.Embedding(vocab, emb)
        if pretrained is not None:
            self.embed.weight.data.copy_(pretrained)
            self.embed.weight.requires_grad = False
        self.rnn = nn.GRU(emb, hidden, batch_first=True)
        self.out = nn.Linear(hidden, 2)

    def forward(self, tokens):
        _, h = self.rnn(self.embed(tokens))
        return self.out(h[-1])


class Trainer:
    def __init__(self, model, args):
        self.model, self.args = model, args
        self.opt = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=args.lr)
        self.criterion = nn.CrossEntropyLoss()
        self.logs = []

    def grad_norms(self):
        norms = {}
        for name, p in self.model.named_parameters():
            if not p.requires_grad:
                continue
            norms[name.split(".")[0]] = norms.get(name.split(".")[0], 0.0) + p.grad.norm().item() ** 2
        return {k: v ** 0.5 for k, v in norms.items()}

    def train_step(self, tokens, labels):
        self.model.train()
        self.opt.zero_grad()
        loss = self.criterion(self.model(tokens), labels)
        loss.backward()
        norms = self.grad_norms()
        nn.utils.clip_grad_norm_(self.model.parameters(), self.args.clip_norm)
        self.opt.step()
        self.logs.append({"loss": loss.item(), **norms})
        return self.logs[-1]


def main():
    args = parser.parse_args([])
    torch.manual_seed(0)
    glove = torch.randn(args.vocab, args.emb)
    model = SentimentRNN(args.vocab, args.emb, args.hidden, pretrained=glove)
    ds = TensorDataset(torch.randint(0, args.vocab, (15, 9)), torch.randint(0, 2, (15,)))
    trainer = Trainer(model, args)
    for tokens, labels in DataLoader(ds, batch_size=args.batch_size, shuffle=True):
        log = trainer.train_step(tokens, labels)
        print(" ".join(f"{k}={v:.3f}" for k, v in log.items()))
    assert model.embed.weight.grad is None and "embed" not in trainer.logs[-1]


if __name__ == "__main__":
    main()
    print("OK")
