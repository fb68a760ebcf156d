"""Trainer that logs per-parameter gradient stats, then clips the same generator.

Modelled on: https://github.com/pytorch/pytorch/issues/148259

The issue describes ``params_to_clip = model.parameters()`` being iterated
once (e.g. to log gradient statistics) and then handed to
``clip_grad_norm_``.  ``model.parameters()`` is a generator, so the second
pass sees nothing: no gradient is clipped and the returned norm is 0, while
the optimizer steps with the full, unclipped gradients.
"""
import argparse
import warnings

import torch
import torch.nn as nn


class SequenceClassifier(nn.Module):
    def __init__(self, vocab, dim, n_cls):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.rnn = nn.GRU(dim, dim, batch_first=True)
        self.out = nn.Linear(dim, n_cls)

    def forward(self, tokens):
        h, _ = self.rnn(self.emb(tokens))
        return self.out(h[:, -1])


def log_grad_stats(params, logger):
    for p in params:
        if p.grad is not None:
            logger.append((tuple(p.shape), p.grad.norm().item()))


class Trainer:
    def __init__(self, model, args):
        self.model = model
        self.args = args
        self.optimizer = torch.optim.SGD(model.parameters(), lr=args.lr)
        self.criterion = nn.CrossEntropyLoss()
        self.grad_log = []
        self.clip_norms = []

    def train_step(self, tokens, labels):
        self.optimizer.zero_grad()
        loss = self.criterion(self.model(tokens), labels) * self.args.loss_scale
        loss.backward()
        params_to_clip = self.model.parameters()
        log_grad_stats(params_to_clip, self.grad_log)
        total = torch.nn.utils.clip_grad_norm_(params_to_clip, self.args.max_norm)  # bug: GG610
        self.clip_norms.append(total.item())
        self.post_clip_norm = torch.norm(torch.stack([p.grad.norm() for p in self.model.parameters()])).item()
        self.optimizer.step()
        return loss.item()


def make_batches(args, n=2):
    g = torch.Generator().manual_seed(0)
    return [(torch.randint(0, args.vocab, (args.batch_size, args.seq_len), generator=g),
             torch.randint(0, args.n_cls, (args.batch_size,), generator=g)) for _ in range(n)]


def get_args(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--vocab", type=int, default=40)
    p.add_argument("--dim", type=int, default=16)
    p.add_argument("--n-cls", type=int, default=3)
    p.add_argument("--seq-len", type=int, default=6)
    p.add_argument("--batch-size", type=int, default=8)
    p.add_argument("--lr", type=float, default=0.05)
    p.add_argument("--max-norm", type=float, default=0.5)
    p.add_argument("--loss-scale", type=float, default=10.0)
    return p.parse_args(argv)


if __name__ == "__main__":
    warnings.simplefilter("ignore")
    torch.manual_seed(0)
    args = get_args([])
    trainer = Trainer(SequenceClassifier(args.vocab, args.dim, args.n_cls), args)
    for tokens, labels in make_batches(args):
        trainer.train_step(tokens, labels)
    if trainer.post_clip_norm > args.max_norm * 1.01:
        print(f"BUGGY: gradient norm after clipping is {trainer.post_clip_norm:.2f} > max_norm "
              f"{args.max_norm} (clip_grad_norm_ got an exhausted generator, returned {trainer.clip_norms[-1]})")
    else:
        print("gradients clipped")
