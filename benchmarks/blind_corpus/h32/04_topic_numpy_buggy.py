"""Dynamic topic model: printing the top words of each topic between epochs.

Modelled on: https://github.com/adjidieng/DETM/pull/11

In DETM the ``visualize`` helper asks the model for its topic-word matrix
``beta`` (a function of the learned topic embeddings ``alpha`` and word
embeddings ``rho``) and turns each topic row into a NumPy array to arg-sort the
vocabulary.  ``beta`` is computed from parameters that require grad and the
helper runs outside ``torch.no_grad()``, so ``gamma.cpu().numpy()`` raises
"Can't call numpy() on Tensor that requires grad".  The PR added ``.detach()``.
"""
import argparse

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class DETM(nn.Module):
    def __init__(self, vocab_size, num_topics, num_times, rho_size, t_hidden):
        super().__init__()
        self.num_topics = num_topics
        self.num_times = num_times
        self.rho = nn.Linear(rho_size, vocab_size, bias=False)
        self.mu_q_alpha = nn.Parameter(torch.randn(num_topics, num_times, rho_size))
        self.q_theta = nn.Sequential(nn.Linear(vocab_size + num_topics, t_hidden), nn.ReLU(),
                                     nn.Linear(t_hidden, num_topics))

    def get_alpha(self):
        return self.mu_q_alpha

    def get_beta(self, alpha):
        # (K, T, L) x (L, V) -> (K, T, V)
        logit = self.rho(alpha.view(-1, alpha.size(-1)))
        logit = logit.view(self.num_topics, self.num_times, -1)
        return F.softmax(logit, dim=-1)

    def forward(self, bows, times):
        alpha = self.get_alpha()
        beta = self.get_beta(alpha)[:, times, :].permute(1, 0, 2)  # (B, K, V)
        eta = torch.zeros(bows.size(0), self.num_topics)
        theta = F.softmax(self.q_theta(torch.cat([bows / bows.sum(1, keepdim=True), eta], 1)), -1)
        probs = torch.bmm(theta.unsqueeze(1), beta).squeeze(1)
        nll = -(torch.log(probs + 1e-6) * bows).sum(1)
        return nll.mean()


def visualize(model, vocab, args):
    """Print the top words of a few topics at a few time slices."""
    model.eval()
    alpha = model.get_alpha()
    beta = model.get_beta(alpha)
    lines = []
    for k in range(args.num_topics):
        for t in args.times_to_show:
            gamma = beta[k, t, :]
            top = list(gamma.cpu().numpy().argsort()[-args.num_words:][::-1])  # bug: GG502
            lines.append(f"topic {k} t={t}: " + " ".join(vocab[i] for i in top))
    model.train()
    return lines


def train_epoch(model, optimizer, corpus, args):
    model.train()
    total = 0.0
    for bows, times in corpus:
        optimizer.zero_grad()
        loss = model(bows, times)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), args.clip)
        optimizer.step()
        total += loss.item()
    return total / len(corpus)


def make_corpus(args, n_batches=4):
    g = torch.Generator().manual_seed(0)
    return [(torch.randint(0, 3, (args.batch_size, args.vocab_size), generator=g).float() + 0.1,
             torch.randint(0, args.num_times, (args.batch_size,), generator=g)) for _ in range(n_batches)]


def get_args(argv=None):
    p = argparse.ArgumentParser(description="DETM toy")
    p.add_argument("--vocab-size", type=int, default=30)
    p.add_argument("--num-topics", type=int, default=3)
    p.add_argument("--num-times", type=int, default=4)
    p.add_argument("--rho-size", type=int, default=8)
    p.add_argument("--t-hidden", type=int, default=16)
    p.add_argument("--batch-size", type=int, default=6)
    p.add_argument("--num-words", type=int, default=5)
    p.add_argument("--clip", type=float, default=2.0)
    p.add_argument("--epochs", type=int, default=2)
    a = p.parse_args(argv)
    a.times_to_show = [0, a.num_times - 1]
    return a


if __name__ == "__main__":
    torch.manual_seed(0)
    args = get_args([])
    vocab = [f"w{i}" for i in range(args.vocab_size)]
    model = DETM(args.vocab_size, args.num_topics, args.num_times, args.rho_size, args.t_hidden)
    optimizer = torch.optim.Adam(model.parameters(), lr=5e-3)
    corpus = make_corpus(args)
    try:
        for epoch in range(args.epochs):
            train_epoch(model, optimizer, corpus, args)
            for line in visualize(model, vocab, args):
                pass
        print("no error")
    except RuntimeError as e:
        print(f"BUGGY: {e}")
