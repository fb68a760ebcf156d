"""The accumulation loop of a GPT training script, alone in its file: each micro-batch's
mean loss is backpropagated undivided and the optimiser steps every
`gradient_accumulation_steps` batches, so each update is that many times too large
(nothing raises; the effective learning rate depends on the accumulation setting).

Source (rewritten in our own words, structure kept): https://github.com/karpathy/nanoGPT/issues/206
(see also micro_step_accumulation_without_division.py in this directory for the fix; kept
apart because a division by the accumulation factor anywhere in a file silences the rule).
"""

import torch
from torch import nn


class TinyGpt(nn.Module):
    def __init__(self, vocab: int = 12) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab, 8)
        self.head = nn.Linear(8, vocab)

    def forward(self, idx, targets):
        logits = self.head(self.embed(idx))
        loss = nn.functional.cross_entropy(logits.reshape(-1, logits.size(-1)), targets.reshape(-1))
        return logits, loss


def train(model, optimizer, batches, gradient_accumulation_steps):
    for step, (X, Y) in enumerate(batches):
        logits, loss = model(X, Y)
        loss.backward()  # expect: GG606
        if (step + 1) % gradient_accumulation_steps == 0:
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)


def train_every_step(model, optimizer, batches, log_interval):
    """Not accumulation: the step runs every batch, the modulo guards the log only."""
    for step, (X, Y) in enumerate(batches):
        logits, loss = model(X, Y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        if (step + 1) % log_interval == 0:
            print(step, loss.item())


def train_cleared_each_batch(model, optimizer, batches, update_every):
    """Gradients cleared every batch do not accumulate, so no step is too large (not GG606's
    bug); but the gradients of every batch but the last of each window are computed and
    thrown away, which is GG605's."""
    for step, (X, Y) in enumerate(batches):
        optimizer.zero_grad()  # expect: GG605
        logits, loss = model(X, Y)
        loss.backward()
        if (step + 1) % update_every == 0:
            optimizer.step()


def batches(n):
    data = [torch.randint(0, 12, (2, 6)) for _ in range(n)]
    return [(d[:, :-1], d[:, 1:]) for d in data]


gpt = TinyGpt()
opt = torch.optim.AdamW(gpt.parameters(), lr=1e-3)
train(gpt, opt, batches(4), 2)
train_every_step(gpt, opt, batches(4), 2)
train_cleared_each_batch(gpt, opt, batches(4), 2)
