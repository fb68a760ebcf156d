"""Gradient clipping on scaled gradients, in a segmentation script and in a DDP trainer.

Modelled on milesial/Pytorch-UNet's train.py as reported in
https://github.com/milesial/Pytorch-UNet/issues/468 (fixed by
https://github.com/milesial/Pytorch-UNet/pull/470) and on pytorch/examples'
distributed/minGPT-ddp/mingpt/trainer.py as reported in
https://github.com/pytorch/examples/issues/1196: `scaler.scale(loss).backward()`, then
`clip_grad_norm_` with `max_norm` 1.0 on gradients still multiplied by the scale, then
`scaler.step(optimizer)`. Written from scratch.
"""

import torch
import torch.nn.functional as F
from torch import nn


class TinyUNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.down = nn.Conv2d(3, 8, 3, padding=1)
        self.up = nn.Conv2d(8, 2, 3, padding=1)

    def forward(self, x):
        return self.up(F.relu(self.down(x)))


def train_model(model, epochs=2, amp=False, gradient_clipping=1.0):
    optimizer = torch.optim.RMSprop(model.parameters(), lr=1e-5, weight_decay=1e-8, momentum=0.999)
    grad_scaler = torch.cuda.amp.GradScaler(enabled=amp)
    criterion = nn.CrossEntropyLoss()
    for epoch in range(epochs):
        model.train()
        for _ in range(4):
            images = torch.randn(2, 3, 16, 16)
            true_masks = torch.randint(0, 2, (2, 16, 16))
            with torch.autocast("cpu", enabled=amp):
                masks_pred = model(images)
                loss = criterion(masks_pred, true_masks)
            optimizer.zero_grad(set_to_none=True)
            grad_scaler.scale(loss).backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), gradient_clipping)  # expect: GG609
            grad_scaler.step(optimizer)
            grad_scaler.update()


class Trainer:
    def __init__(self, model, optimizer, use_amp=True, grad_norm_clip=1.0):
        self.model = model
        self.optimizer = optimizer
        self.use_amp = use_amp
        self.grad_norm_clip = grad_norm_clip
        if use_amp:
            self.scaler = torch.amp.GradScaler("cpu")

    def run_batch(self, source, targets):
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=self.use_amp):
            loss = F.cross_entropy(self.model(source), targets)
        self.optimizer.zero_grad(set_to_none=True)
        if self.use_amp:
            self.scaler.scale(loss).backward()
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.grad_norm_clip)  # expect: GG609
            self.scaler.step(self.optimizer)
            self.scaler.update()
        else:
            loss.backward()
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.grad_norm_clip)
            self.optimizer.step()
        return loss.item()


if __name__ == "__main__":
    train_model(TinyUNet())
    net = nn.Linear(10, 4)
    trainer = Trainer(net, torch.optim.SGD(net.parameters(), lr=0.1))
    for _ in range(3):
        trainer.run_batch(torch.randn(8, 10), torch.randint(0, 4, (8,)))
