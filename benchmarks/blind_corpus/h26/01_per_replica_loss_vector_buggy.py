"""GG501 - backward() without a gradient argument on a loss with more than one element.

The relation tagger computes its loss inside forward() (the way multi-GPU
training code does, so each replica returns its own loss).  The loss comes back
as one value per example (reduction='none', like the vector DataParallel gathers
from several replicas), and the trainer calls .backward() on that vector
without reducing it first.
torch raises: RuntimeError: grad can be implicitly created only for scalar outputs

Modelled on: https://github.com/hy-struggle/PRGC/issues/16
"""
import argparse
import random

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


def get_args(argv=None):
    p = argparse.ArgumentParser(description="span/relation tagger (toy)")
    p.add_argument("--vocab_size", type=int, default=120)
    p.add_argument("--hidden", type=int, default=32)
    p.add_argument("--num_rels", type=int, default=5)
    p.add_argument("--seq_len", type=int, default=12)
    p.add_argument("--batch_size", type=int, default=8)
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--lr", type=float, default=3e-3)
    p.add_argument("--seed", type=int, default=7)
    return p.parse_args(argv)


def set_seed(seed):
    random.seed(seed)
    torch.manual_seed(seed)


class RelationTagger(nn.Module):
    """Encoder + relation classifier; returns its own loss when labels are given."""

    def __init__(self, vocab_size, hidden, num_rels):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, hidden, padding_idx=0)
        self.encoder = nn.GRU(hidden, hidden, batch_first=True, bidirectional=True)
        self.rel_head = nn.Sequential(
            nn.Linear(2 * hidden, hidden),
            nn.Tanh(),
            nn.Linear(hidden, num_rels),
        )

    def forward(self, input_ids, attention_mask, rel_labels=None):
        h, _ = self.encoder(self.embed(input_ids))
        mask = attention_mask.unsqueeze(-1).float()
        pooled = (h * mask).sum(1) / mask.sum(1).clamp(min=1.0)
        logits = self.rel_head(pooled)
        if rel_labels is None:
            return logits
        # one loss value per example: the caller is expected to reduce it
        per_example = F.cross_entropy(logits, rel_labels, reduction="none")
        return per_example, logits


def build_loader(args):
    n = 48
    ids = torch.randint(1, args.vocab_size, (n, args.seq_len))
    lengths = torch.randint(4, args.seq_len + 1, (n,))
    mask = (torch.arange(args.seq_len)[None, :] < lengths[:, None]).long()
    ids = ids * mask
    labels = torch.randint(0, args.num_rels, (n,))
    return DataLoader(TensorDataset(ids, mask, labels), batch_size=args.batch_size, shuffle=True)


def train(args, model, loader, optimizer):
    model.train()
    history = []
    for epoch in range(args.epochs):
        running = 0.0
        for step, (ids, mask, labels) in enumerate(loader):
            optimizer.zero_grad()
            loss, _ = model(ids, mask, rel_labels=labels)
            loss.backward()  # bug: GG501
            nn.utils.clip_grad_norm_(model.parameters(), 2.0)
            optimizer.step()
            running += loss.mean().item()
        history.append(running / len(loader))
        print(f"epoch {epoch} loss {history[-1]:.4f}")
    return history


def main(argv=None):
    args = get_args(argv)
    set_seed(args.seed)
    model = RelationTagger(args.vocab_size, args.hidden, args.num_rels)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    loader = build_loader(args)
    return train(args, model, loader, optimizer)


if __name__ == "__main__":
    try:
        main([])
    except RuntimeError as err:
        print(f"BUGGY: {str(err).splitlines()[0]}")
        raise SystemExit(0)
    raise SystemExit("NO BUG")
