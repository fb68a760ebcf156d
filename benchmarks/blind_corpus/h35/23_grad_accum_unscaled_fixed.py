"""Causal-LM Trainer loop with gradient accumulation.

Modelled on: https://github.com/huggingface/transformers/pull/35207

The PR "Scale loss before backward" fixed the Trainer's training step so
that, with gradient_accumulation_steps > 1, each micro-batch loss is
divided by the number of accumulation steps before backward(). Without
the division the accumulated gradient is the SUM of the micro-batch
gradients, i.e. gradient_accumulation_steps times larger than the
gradient of the equivalent big batch, and the reported grad_norm and the
effective learning rate blow up with the accumulation factor.

Fixed version: the loss is divided by gradient_accumulation_steps.
"""
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class TrainingArguments:
    per_device_train_batch_size: int = 2
    gradient_accumulation_steps: int = 4
    learning_rate: float = 1e-3
    max_grad_norm: float = 1e9


class TinyCausalLM(nn.Module):
    def __init__(self, vocab=40, dim=16):
        super().__init__()
        self.wte = nn.Embedding(vocab, dim)
        self.mlp = nn.Sequential(nn.Linear(dim, dim), nn.GELU())
        self.lm_head = nn.Linear(dim, vocab)

    def forward(self, input_ids):
        return self.lm_head(self.mlp(self.wte(input_ids)))


class Trainer:
    def __init__(self, model, args):
        self.model = model
        self.args = args
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=args.learning_rate)
        self.grad_norms = []

    def compute_loss(self, model, inputs):
        logits = model(inputs[:, :-1])
        return F.cross_entropy(logits.reshape(-1, logits.size(-1)), inputs[:, 1:].reshape(-1))

    def training_step(self, model, inputs):
        model.train()
        loss = self.compute_loss(model, inputs)
        loss = loss / self.args.gradient_accumulation_steps
        loss.backward()
        return loss.detach()

    def train(self, micro_batches):
        self.optimizer.zero_grad()
        for step, inputs in enumerate(micro_batches):
            self.training_step(self.model, inputs)
            if (step + 1) % self.args.gradient_accumulation_steps == 0:
                norm = torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.args.max_grad_norm)
                self.grad_norms.append(norm.item())
                self.optimizer.step()
                self.optimizer.zero_grad()


def big_batch_grad_norm(model, trainer, micro_batches):
    model.zero_grad()
    trainer.compute_loss(model, torch.cat(micro_batches)).backward()
    norm = torch.sqrt(sum((p.grad ** 2).sum() for p in model.parameters())).item()
    model.zero_grad()
    return norm


if __name__ == "__main__":
    torch.manual_seed(0)
    args = TrainingArguments()
    model = TinyCausalLM()
    g = torch.Generator().manual_seed(0)
    micro = [torch.randint(0, 40, (args.per_device_train_batch_size, 8), generator=g)
             for _ in range(args.gradient_accumulation_steps)]
    trainer = Trainer(model, args)
    reference = big_batch_grad_norm(model, trainer, micro)
    trainer.train(micro)
    ratio = trainer.grad_norms[0] / reference
    if ratio > 1.5:
        print(f"BUGGY: accumulated grad norm is {ratio:.2f}x the big-batch norm (loss not scaled)")
    else:
        print("FIXED: ok")
