"""Look-alike: each consumer gets its own fresh ``parameters()`` generator.

Modelled on: https://github.com/pytorch/pytorch/issues/148259 (counterpart)

Same trainer, gradient logging and clipping, but the code calls
``self.model.parameters()`` anew for the logger and again for
``clip_grad_norm_`` (and filters trainable parameters into a list for the
optimizer).  Every call returns a new generator, so nothing is exhausted and
clipping sees all gradients.
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
        trainable = [p for p in model.parameters() if p.requires_grad]
        self.optimizer = torch.optim.SGD(trainable, lr=args.lr)
        self.criterion = nn.CrossEntropyLoss()
        self.grad_log = []
        self.clip_norms = []

    def train_step(self, tokens, labels):
        self.optimizer.zero_grad()
        loss = self.criterion(self.model(tokens), labels) * self.args.loss_scale
        loss.backward()
        log_grad_stats(self.model.parameters(), self.grad_log)
        total = torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.args.max_norm)
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
    assert trainer.post_clip_norm <= args.max_norm * 1.01 and trainer.clip_norms[-1] > 0
    print("OK")
