"""GG609 in a loop that accumulates scaled gradients and steps every few batches.

Every batch backpropagates `scaler.scale(loss)`; on every `accum`-th batch the body of the
`if` clips and then steps through the scaler. The clip is the first thing that body does,
so it sees the gradients still multiplied by the scale: the norm it compares with
`max_norm` is about 65536 times too large, the clip always fires, and after
`scaler.step` unscales them the gradients are tiny. (Measured the same way as the other
cases of this rule with `torch.amp.GradScaler("cpu")` and torch 2.13.0.)

Look-alikes that stay silent: the same step with `scaler.unscale_(optimizer)` first in the
body of the `if`; a loop whose `if` tests whether the scaler is in use at all.
"""

import torch
from torch import nn


def train_accumulating(model, optimizer, batches, accum=4):
    scaler = torch.amp.GradScaler("cpu")
    for i, (x, y) in enumerate(batches):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            loss = nn.functional.mse_loss(model(x), y) / accum
        scaler.scale(loss).backward()
        if (i + 1) % accum == 0:
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # expect: GG609
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad()


def train_unscaled_first(model, optimizer, batches, accum=4):
    scaler = torch.amp.GradScaler("cpu")
    for i, (x, y) in enumerate(batches):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            loss = nn.functional.mse_loss(model(x), y) / accum
        scaler.scale(loss).backward()
        if (i + 1) % accum == 0:
            scaler.unscale_(optimizer)
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad()


def train_switchable(model, optimizer, batches, use_scaler):
    scaler = torch.amp.GradScaler("cpu", enabled=use_scaler)
    for x, y in batches:
        loss = nn.functional.mse_loss(model(x), y)
        scaler.scale(loss).backward()
        if not use_scaler:
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad()
