"""LoRA fine-tuning Trainer for a small language-model head.

Modelled on: https://github.com/tenstorrent/tt-blacksmith/pull/711

In the Trainer class used for LoRA LLM training the optimizer step was
never followed (or preceded) by zero_grad(), so every backward() added its
gradients on top of all previous ones and each update used the running sum
of every batch seen so far. The PR turned on zero_grad for the optimizer
step.

Fixed version: training_step clears gradients before each backward().
"""
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class TrainConfig:
    vocab: int = 32
    dim: int = 16
    rank: int = 4
    lr: float = 1e-2
    steps: int = 3
    batch_size: int = 4
    seq_len: int = 6


class LoRALinear(nn.Module):
    def __init__(self, base: nn.Linear, rank: int):
        super().__init__()
        self.base = base
        self.base.weight.requires_grad_(False)
        self.base.bias.requires_grad_(False)
        self.lora_a = nn.Parameter(torch.randn(rank, base.in_features) * 0.1)
        self.lora_b = nn.Parameter(torch.randn(base.out_features, rank) * 0.1)

    def forward(self, x):
        return self.base(x) + F.linear(F.linear(x, self.lora_a), self.lora_b)


class TinyLM(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.embed = nn.Embedding(cfg.vocab, cfg.dim)
        self.embed.weight.requires_grad_(False)
        self.proj = LoRALinear(nn.Linear(cfg.dim, cfg.dim), cfg.rank)
        self.lm_head = nn.Linear(cfg.dim, cfg.vocab)

    def forward(self, ids):
        return self.lm_head(torch.tanh(self.proj(self.embed(ids))))


class Trainer:
    def __init__(self, model, cfg):
        self.model = model
        self.cfg = cfg
        params = [p for p in model.parameters() if p.requires_grad]
        self.optimizer = torch.optim.SGD(params, lr=cfg.lr)
        self.grad_log = []

    def compute_loss(self, batch):
        logits = self.model(batch[:, :-1])
        return F.cross_entropy(logits.reshape(-1, logits.size(-1)), batch[:, 1:].reshape(-1))

    def training_step(self, batch):
        self.optimizer.zero_grad()
        loss = self.compute_loss(batch)
        loss.backward()
        self.grad_log.append(self.model.proj.lora_a.grad.clone())
        self.optimizer.step()
        return loss.item()

    def fit(self, batches):
        self.model.train()
        return [self.training_step(b) for b in batches]


def make_batches(cfg):
    g = torch.Generator().manual_seed(0)
    return [torch.randint(0, cfg.vocab, (cfg.batch_size, cfg.seq_len), generator=g) for _ in range(cfg.steps)]


def fresh_grad(model, trainer, batch):
    saved = model.proj.lora_a.grad
    model.proj.lora_a.grad = None
    trainer.compute_loss(batch).backward()
    g = model.proj.lora_a.grad.clone()
    model.proj.lora_a.grad = saved
    return g


if __name__ == "__main__":
    torch.manual_seed(0)
    cfg = TrainConfig()
    model = TinyLM(cfg)
    trainer = Trainer(model, cfg)
    batches = make_batches(cfg)
    trainer.fit(batches[:-1])
    expected = fresh_grad(model, trainer, batches[-1])
    trainer.training_step(batches[-1])
    used = trainer.grad_log[-1]
    if not torch.allclose(used, expected, atol=1e-6):
        print("BUGGY: step used gradients accumulated over all previous batches")
    else:
        print("FIXED: ok")
