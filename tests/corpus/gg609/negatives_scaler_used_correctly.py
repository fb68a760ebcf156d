"""Look-alikes of GG609 that use the scaler correctly and must stay silent.

Shapes of real code: the AMP recipe of the PyTorch docs
(https://pytorch.org/docs/stable/notes/amp_examples.html#gradient-clipping), nanoGPT's
train.py (unscale only when clipping, then step and update through the scaler), timm's
NativeScaler (unscale_ before the clip helper), and a scaler switched off by a literal.
Written from scratch.
"""

import torch
import torch.nn.functional as F
from torch import nn

model = nn.Sequential(nn.Linear(10, 16), nn.ReLU(), nn.Linear(16, 4))
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
scaler = torch.amp.GradScaler("cpu")
grad_clip = 1.0

for it in range(3):
    x, y = torch.randn(8, 10), torch.randint(0, 4, (8,))
    with torch.autocast("cpu", dtype=torch.bfloat16):
        loss = F.cross_entropy(model(x), y)
    scaler.scale(loss).backward()
    if grad_clip != 0.0:
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), grad_clip)
    scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad(set_to_none=True)


class NativeScaler:
    def __init__(self):
        self._scaler = torch.amp.GradScaler("cpu")

    def __call__(self, loss, optimizer, clip_grad=None, parameters=None):
        self._scaler.scale(loss).backward()
        if clip_grad is not None:
            self._scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_value_(parameters, clip_grad)
        self._scaler.step(optimizer)
        self._scaler.update()


loss_scaler = NativeScaler()
for it in range(2):
    optimizer.zero_grad()
    loss = F.cross_entropy(model(torch.randn(8, 10)), torch.randint(0, 4, (8,)))
    loss_scaler(loss, optimizer, clip_grad=0.5, parameters=model.parameters())

plain = torch.amp.GradScaler("cpu", enabled=False)
loss = F.cross_entropy(model(torch.randn(8, 10)), torch.randint(0, 4, (8,)))
plain.scale(loss).backward()
optimizer.step()
optimizer.zero_grad()

for it in range(2):
    loss = F.cross_entropy(model(torch.randn(8, 10)), torch.randint(0, 4, (8,)))
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad()
