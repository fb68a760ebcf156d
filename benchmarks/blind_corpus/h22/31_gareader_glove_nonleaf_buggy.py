"""Category GG405 - optimizer given a non-leaf tensor.

A gated-attention reader for multiple-choice reading comprehension fine-tunes its
GloVe word vectors. The GloVe matrix comes from NumPy as float64; the model wraps
it with requires_grad=True and then calls .float(), which produces a new
non-leaf tensor (the result of a cast). That tensor is added to the optimizer's
parameter list next to model.parameters(), and building the optimizer fails with:
    ValueError: can't optimize a non-leaf Tensor

Modelled on: https://github.com/boyuanzheng010/SemEval2021-Reading-Comprehension-of-Abstract-Meaning/issues/3
"""
import sys
from types import SimpleNamespace

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

config = SimpleNamespace(glove_word_size=60, glove_word_dim=16, hidden_size=16, n_layers=2,
                         n_options=5, lr=0.05, epochs=1, batch_size=4, passage_len=20,
                         question_len=8, seed=1)


def load_glove_matrix(cfg):
    """Stand-in for reading glove.6B.*.txt into an (V, D) float64 array."""
    rng = np.random.default_rng(cfg.seed)
    return rng.normal(0, 0.3, size=(cfg.glove_word_size, cfg.glove_word_dim))


class GAReader(nn.Module):
    def __init__(self, cfg, glove_matrix):
        super().__init__()
        self.word_vectors = torch.tensor(glove_matrix, requires_grad=True).float()
        d, h = cfg.glove_word_dim, cfg.hidden_size
        self.q_gru = nn.GRU(d, h, batch_first=True, bidirectional=True)
        self.p_grus = nn.ModuleList([nn.GRU(d if i == 0 else 2 * h, h, batch_first=True, bidirectional=True)
                                     for i in range(cfg.n_layers)])
        self.option_proj = nn.Linear(d, 2 * h)

    def embed(self, ids):
        return F.embedding(ids, self.word_vectors)

    def forward(self, passage, question, options):
        q, _ = self.q_gru(self.embed(question))
        x = self.embed(passage)
        for gru in self.p_grus:
            x, _ = gru(x)
            att = torch.softmax(x @ q.transpose(1, 2), dim=-1)
            x = x * (att @ q)
        summary = x.mean(dim=1)
        opt_repr = self.option_proj(self.embed(options).mean(dim=2))
        return (opt_repr * summary[:, None]).sum(-1)


def make_batches(cfg, n=2):
    V = cfg.glove_word_size
    for _ in range(n):
        yield (torch.randint(1, V, (cfg.batch_size, cfg.passage_len)),
               torch.randint(1, V, (cfg.batch_size, cfg.question_len)),
               torch.randint(1, V, (cfg.batch_size, cfg.n_options, 3)),
               torch.randint(0, cfg.n_options, (cfg.batch_size,)))


def train(epoch, model, optimizer, criterion, batches):
    model.train()
    for step, (passage, question, options, label) in enumerate(batches):
        logits = model(passage, question, options)
        loss = criterion(logits, label)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"epoch {epoch} step {step}: loss {loss.item():.4f}")


def main(cfg):
    torch.manual_seed(cfg.seed)
    model = GAReader(cfg, load_glove_matrix(cfg))
    params = list(model.parameters()) + [model.word_vectors]
    optimizer = torch.optim.SGD(params, lr=cfg.lr)  # bug: GG405
    criterion = nn.CrossEntropyLoss()
    before = model.word_vectors.detach().clone()
    for epoch in range(cfg.epochs):
        train(epoch, model, optimizer, criterion, make_batches(cfg))
    return before, model


if __name__ == "__main__":
    try:
        main(config)
    except ValueError as e:
        print("BUGGY:", str(e).splitlines()[0])
        sys.exit(0)
    raise SystemExit("NO BUG")
