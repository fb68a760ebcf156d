"""Sentence-relatedness model initialised with pre-trained word vectors.

Modelled on: https://github.com/dasguptar/treelstm.pytorch/pull/26

The fix PR reports that constructing the similarity model with a non-frozen
embedding crashed in `__init__` at `self.emb.weight.copy_(init_emb)` with
"a leaf Variable that requires grad has been used in an in-place operation":
the embedding weight is a Parameter (a leaf that requires grad), and copying
the pre-trained vectors into it in place, outside torch.no_grad(), is refused
by autograd.  (When the embedding is frozen the weight no longer requires grad
and the same line works, which is why it went unnoticed.)

Fixed version: the pre-trained vectors are copied under torch.no_grad().
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


def parse_args(argv=None):
    p = argparse.ArgumentParser(description="SICK relatedness")
    p.add_argument("--vocab", type=int, default=60)
    p.add_argument("--input_dim", type=int, default=16)
    p.add_argument("--mem_dim", type=int, default=24)
    p.add_argument("--hidden_dim", type=int, default=12)
    p.add_argument("--num_classes", type=int, default=5)
    p.add_argument("--freeze_embed", action="store_true")
    p.add_argument("--lr", type=float, default=0.01)
    return p.parse_args(argv)


def load_word_vectors(vocab_size, dim, seed=0):
    """Stand-in for reading GloVe vectors from disk."""
    g = torch.Generator().manual_seed(seed)
    return torch.randn(vocab_size, dim, generator=g) * 0.1


class SentenceEncoder(nn.Module):
    def __init__(self, in_dim, mem_dim):
        super().__init__()
        self.rnn = nn.GRU(in_dim, mem_dim, batch_first=True)

    def forward(self, embs):
        _, h = self.rnn(embs)
        return h[-1]


class Similarity(nn.Module):
    def __init__(self, mem_dim, hidden_dim, num_classes):
        super().__init__()
        self.wh = nn.Linear(2 * mem_dim, hidden_dim)
        self.wp = nn.Linear(hidden_dim, num_classes)

    def forward(self, lvec, rvec):
        mult_dist = lvec * rvec
        abs_dist = torch.abs(lvec - rvec)
        out = torch.sigmoid(self.wh(torch.cat((mult_dist, abs_dist), 1)))
        return F.log_softmax(self.wp(out), dim=1)


class SimilarityModel(nn.Module):
    def __init__(self, vocab_size, in_dim, mem_dim, hidden_dim, num_classes,
                 init_emb, freeze):
        super().__init__()
        self.emb = nn.Embedding(vocab_size, in_dim, padding_idx=0)
        with torch.no_grad():
            self.emb.weight.copy_(init_emb)
        if freeze:
            self.emb.weight.requires_grad = False
        self.encoder = SentenceEncoder(in_dim, mem_dim)
        self.similarity = Similarity(mem_dim, hidden_dim, num_classes)

    def forward(self, linputs, rinputs):
        lstate = self.encoder(self.emb(linputs))
        rstate = self.encoder(self.emb(rinputs))
        return self.similarity(lstate, rstate)


def map_label_to_target(label, num_classes):
    target = torch.zeros(label.size(0), num_classes)
    floor = label.floor().long().clamp(max=num_classes - 1)
    ceil = (floor + 1).clamp(max=num_classes - 1)
    frac = (label - floor.float()).unsqueeze(1)
    target.scatter_(1, floor.unsqueeze(1), 1 - frac)
    target.scatter_add_(1, ceil.unsqueeze(1), frac)
    return target


def train_epoch(model, optimizer, batches, num_classes):
    model.train()
    total = 0.0
    for left, right, label in batches:
        optimizer.zero_grad()
        out = model(left, right)
        loss = F.kl_div(out, map_label_to_target(label, num_classes), reduction="batchmean")
        loss.backward()
        optimizer.step()
        total += loss.item()
    return total / len(batches)


def main(argv=None):
    torch.manual_seed(0)
    args = parse_args(argv)
    emb = load_word_vectors(args.vocab, args.input_dim)
    model = SimilarityModel(args.vocab, args.input_dim, args.mem_dim, args.hidden_dim,
                            args.num_classes, emb, args.freeze_embed)
    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.Adagrad(params, lr=args.lr)
    batches = [(torch.randint(1, args.vocab, (8, 7)), torch.randint(1, args.vocab, (8, 9)),
                torch.rand(8) * (args.num_classes - 1)) for _ in range(3)]
    return train_epoch(model, optimizer, batches, args.num_classes)


if __name__ == "__main__":
    loss = main([])
    assert loss == loss
    print("FIXED: ok")
