"""A small GPT training script that simulates a larger batch by accumulating gradients:
the loop backpropagates each micro-batch's mean loss and steps the optimiser every
`gradient_accumulation_steps` micro-batches, without dividing the loss by that number, so
every update is `gradient_accumulation_steps` times too large (the effective learning rate
silently changes with the accumulation setting). The reporter points at the missing
`loss = loss / gradient_accumulation_steps`, which the script later gained.

Sources (rewritten in our own words, structure kept):
* https://github.com/karpathy/nanoGPT/issues/206 - `train.py`: `loss.backward()` in the
  micro-step loop without normalising (duplicate of #168).
* https://github.com/karpathy/nanoGPT/issues/605 - the same loop after the fix.
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
        loss = nn.functional.cross_entropy(logits.view(-1, logits.size(-1)), targets.reshape(-1))
        return logits, loss


def get_batch():
    data = torch.randint(0, 12, (2, 6))
    return data[:, :-1], data[:, 1:]


def train_micro_steps(model, optimizer, max_iters, gradient_accumulation_steps):
    """The loop of the report: an inner micro-step loop, step after it."""
    for iter_num in range(max_iters):
        for micro_step in range(gradient_accumulation_steps):
            X, Y = get_batch()
            logits, loss = model(X, Y)
            loss.backward()  # missed: GG606
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)


def train_micro_steps_fixed(model, optimizer, max_iters, gradient_accumulation_steps):
    for iter_num in range(max_iters):
        for micro_step in range(gradient_accumulation_steps):
            X, Y = get_batch()
            logits, loss = model(X, Y)
            loss = loss / gradient_accumulation_steps
            loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)


def train_flat(model, optimizer, batches, gradient_accumulation_steps):
    """The same accumulation written as one loop with a modulo guard."""
    for step, (X, Y) in enumerate(batches):
        logits, loss = model(X, Y)
        loss.backward()  # missed: GG606
        if (step + 1) % gradient_accumulation_steps == 0:
            optimizer.step()
            optimizer.zero_grad()


def train_flat_fixed(model, optimizer, batches, gradient_accumulation_steps):
    for step, (X, Y) in enumerate(batches):
        logits, loss = model(X, Y)
        (loss / gradient_accumulation_steps).backward()
        if (step + 1) % gradient_accumulation_steps == 0:
            optimizer.step()
            optimizer.zero_grad()


gpt = TinyGpt()
opt = torch.optim.AdamW(gpt.parameters(), lr=1e-3)
train_micro_steps(gpt, opt, 1, 2)
train_micro_steps_fixed(gpt, opt, 1, 2)
train_flat(gpt, opt, [get_batch() for _ in range(4)], 2)
train_flat_fixed(gpt, opt, [get_batch() for _ in range(4)], 2)
