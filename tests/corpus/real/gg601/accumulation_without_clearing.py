"""Gradient accumulation whose optimizer is never cleared: the backward runs on every batch
and the step on every k-th, but nothing in the loop calls `zero_grad()`, so each step
applies every gradient since the start of training (GG601). Accumulating is fine when the
gradients are cleared after each step (the negatives below).

Sources (rewritten in our own words, structure kept):
* https://github.com/tenstorrent/tt-blacksmith/pull/711 - a LoRA trainer stepped its
  optimizer without ever clearing the gradients; the fix clears them after each step.
* https://github.com/pytorch/pytorch/issues/47175 - forgetting `zero_grad()` (or calling it
  once per epoch) silently trains on summed gradients; nothing warns.
"""

import torch
from torch import nn


def train_lora(model, batches, optimizer, accumulation_steps):
    model.train()
    for step, (x, y) in enumerate(batches):  # expect: GG601
        loss = nn.functional.mse_loss(model(x), y) / accumulation_steps
        loss.backward()
        if (step + 1) % accumulation_steps == 0:
            optimizer.step()


def train_cleared_once(model, batches, optimizer, accumulation_steps):
    optimizer.zero_grad()
    for step, (x, y) in enumerate(batches):  # expect: GG601
        loss = nn.functional.mse_loss(model(x), y) / accumulation_steps
        loss.backward()
        if (step + 1) % accumulation_steps == 0:
            optimizer.step()


def train_accumulated(model, batches, optimizer, accumulation_steps):
    for step, (x, y) in enumerate(batches):
        loss = nn.functional.mse_loss(model(x), y) / accumulation_steps
        loss.backward()
        if (step + 1) % accumulation_steps == 0:
            optimizer.step()
            optimizer.zero_grad()


def train_accumulated_model_cleared(model, batches, optimizer, accumulation_steps):
    for step, (x, y) in enumerate(batches):
        loss = nn.functional.mse_loss(model(x), y) / accumulation_steps
        loss.backward()
        if (step + 1) % accumulation_steps == 0:
            optimizer.step()
            model.zero_grad(set_to_none=True)


net = nn.Linear(4, 1)
opt = torch.optim.SGD(net.parameters(), lr=0.01)
data = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(8)]
for train in (train_lora, train_cleared_once, train_accumulated, train_accumulated_model_cleared):
    train(net, data, opt, 4)
