"""Look-alike: evaluation under torch.inference_mode() with an eagerly built rotary cache.

Modelled on: https://github.com/snowflakedb/ArcticTraining/pull/265 (counterpart)

Same trainer as the report, ``evaluate`` still runs under
``torch.inference_mode()`` and training and evaluation are interleaved.  But the
rotary cos/sin tables are registered as buffers in ``__init__`` (outside
inference mode), and evaluation only produces Python floats, so no inference
tensor ever reaches a training step.  Correct code.
"""
import argparse
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


class RotaryEmbedding(nn.Module):
    def __init__(self, dim, max_len=64, base=10000.0):
        super().__init__()
        inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2).float() / dim))
        freqs = torch.outer(torch.arange(max_len).float(), inv_freq)
        emb = torch.cat([freqs, freqs], dim=-1)
        self.register_buffer("cos_cached", emb.cos(), persistent=False)
        self.register_buffer("sin_cached", emb.sin(), persistent=False)

    def forward(self, q):
        seq_len = q.shape[-2]
        cos, sin = self.cos_cached[:seq_len], self.sin_cached[:seq_len]
        q1, q2 = q.chunk(2, dim=-1)
        return q * cos + torch.cat([-q2, q1], dim=-1) * sin


class TinyLM(nn.Module):
    def __init__(self, vocab=50, dim=16):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.rope = RotaryEmbedding(dim)
        self.qk = nn.Linear(dim, 2 * dim)
        self.out = nn.Linear(dim, vocab)

    def forward(self, ids):
        h = self.emb(ids)
        q, k = self.qk(h).chunk(2, dim=-1)
        q, k = self.rope(q), self.rope(k)
        att = (q @ k.transpose(-1, -2)) / q.shape[-1] ** 0.5
        mask = torch.triu(torch.ones(ids.shape[1], ids.shape[1], dtype=torch.bool), 1)
        att = att.masked_fill(mask, float("-inf")).softmax(-1)
        return self.out(att @ h)


@dataclass
class TrainerConfig:
    lr: float = 1e-3
    steps: int = 4
    eval_interval: int = 2
    eval_at_start: bool = True


class Trainer:
    def __init__(self, model, config, train_batches, eval_batches):
        self.model = model
        self.config = config
        self.train_batches = train_batches
        self.eval_batches = eval_batches
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=config.lr)
        self.eval_log = []

    def loss(self, ids):
        logits = self.model(ids[:, :-1])
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), ids[:, 1:].reshape(-1))

    def step(self, ids):
        self.model.train()
        loss = self.loss(ids)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item()

    @torch.inference_mode()
    def evaluate(self):
        self.model.eval()
        losses = [self.loss(ids).item() for ids in self.eval_batches]
        self.model.train()
        return sum(losses) / len(losses)

    def train(self):
        if self.config.eval_at_start:
            self.eval_log.append(self.evaluate())
        for i in range(self.config.steps):
            self.step(self.train_batches[i % len(self.train_batches)])
            if (i + 1) % self.config.eval_interval == 0:
                self.eval_log.append(self.evaluate())
        return self.eval_log


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=4)
    args = parser.parse_args(argv)
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    train = [torch.randint(0, 50, (4, 12), generator=g) for _ in range(3)]
    evals = [torch.randint(0, 50, (4, 12), generator=g) for _ in range(2)]
    trainer = Trainer(TinyLM(), TrainerConfig(steps=args.steps), train, evals)
    return trainer.train()


if __name__ == "__main__":
    log = main([])
    assert len(log) == 3
    print("OK")
