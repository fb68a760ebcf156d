"""GG610 (fixed) - the clip helper materialises `parameters` into a list before iterating twice.

The trainer's utility mirrors torch.nn.utils.clip_grad_norm_ in two phases:
it first walks `parameters` to collect the gradients and compute the total
norm, then passes the same `parameters` to clip_grads_with_norm_.  The
trainer calls it with model.parameters(), a generator, which (buggy version) was exhausted by
the first walk -- the clipping phase sees no parameters and silently leaves
the gradients unchanged (the returned norm looks perfectly normal).
Observable: after "clipping" the gradient norm is still far above max_norm.

Modelled on: https://github.com/pytorch/torchtitan/pull/1258
"""
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class JobConfig:
    dim: int = 32
    n_layers: int = 2
    vocab: int = 50
    seq_len: int = 16
    batch_size: int = 4
    lr: float = 3e-3
    max_norm: float = 0.1
    steps: int = 3


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Clip gradient norm of an iterable of parameters (two-phase, like torch's)."""
    if isinstance(parameters, torch.Tensor):
        parameters = [parameters]
    else:
        parameters = list(parameters)
    grads = [p.grad for p in parameters if p.grad is not None]
    total_norm = torch.nn.utils.get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    torch.nn.utils.clip_grads_with_norm_(parameters, max_norm, total_norm, foreach)  # fixed: GG610
    return total_norm


class FeedForward(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.w1 = nn.Linear(dim, 4 * dim, bias=False)
        self.w2 = nn.Linear(4 * dim, dim, bias=False)
        self.w3 = nn.Linear(dim, 4 * dim, bias=False)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class TransformerBlock(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.attention_norm = nn.RMSNorm(dim)
        self.attention = nn.MultiheadAttention(dim, 4, batch_first=True)
        self.ffn_norm = nn.RMSNorm(dim)
        self.feed_forward = FeedForward(dim)

    def forward(self, x):
        h = self.attention_norm(x)
        x = x + self.attention(h, h, h, need_weights=False, is_causal=False)[0]
        return x + self.feed_forward(self.ffn_norm(x))


class Transformer(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.tok_embeddings = nn.Embedding(cfg.vocab, cfg.dim)
        self.layers = nn.ModuleList(TransformerBlock(cfg.dim) for _ in range(cfg.n_layers))
        self.norm = nn.RMSNorm(cfg.dim)
        self.output = nn.Linear(cfg.dim, cfg.vocab, bias=False)

    def forward(self, tokens):
        h = self.tok_embeddings(tokens)
        for layer in self.layers:
            h = layer(h)
        return self.output(self.norm(h))


class Trainer:
    def __init__(self, job_config):
        self.job_config = job_config
        self.model = Transformer(job_config)
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=job_config.lr)
        self.step = 0
        self.post_clip_norms = []

    def batch_generator(self):
        while True:
            tokens = torch.randint(0, self.job_config.vocab,
                                   (self.job_config.batch_size, self.job_config.seq_len + 1))
            yield tokens[:, :-1], tokens[:, 1:]

    def train_step(self, inputs, labels):
        self.optimizer.zero_grad()
        pred = self.model(inputs)
        loss = F.cross_entropy(pred.flatten(0, 1), labels.flatten())
        loss.backward()
        grad_norm = clip_grad_norm_(self.model.parameters(), self.job_config.max_norm)
        self.post_clip_norms.append(torch.nn.utils.get_total_norm(
            [p.grad for p in self.model.parameters() if p.grad is not None]).item())
        self.optimizer.step()
        self.step += 1
        print(f"step {self.step}: loss {loss.item():.4f} grad_norm {grad_norm.item():.4f}")

    def train(self):
        batches = self.batch_generator()
        for _ in range(self.job_config.steps):
            self.train_step(*next(batches))


if __name__ == "__main__":
    torch.manual_seed(0)
    trainer = Trainer(JobConfig())
    trainer.train()
    worst = max(trainer.post_clip_norms)
    assert worst <= trainer.job_config.max_norm * 1.01
    print("FIXED: ok")
