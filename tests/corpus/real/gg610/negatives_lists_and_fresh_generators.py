"""Look-alikes of the reported bugs, written the way the fixes and real training scripts do
it: a list bound once, a fresh generator per use, a generator read once.

Sources: the fixes proposed in https://github.com/pytorch/pytorch/issues/148259,
https://github.com/PixArt-alpha/PixArt-alpha/pull/160 and
https://github.com/ShusenTang/Dive-into-DL-PyTorch/issues/101.
"""

import torch
import torch.nn.functional as F
from accelerate import Accelerator
from torch import nn


class Denoiser(nn.Module):
    def __init__(self):
        super().__init__()
        self.base = nn.Linear(32, 32)
        self.lora = nn.Linear(32, 32, bias=False)

    def forward(self, x):
        return self.base(x) + self.lora(x)


def lora_listed(args, dataloader):
    accelerator = Accelerator()
    transformer = Denoiser()
    transformer.base.requires_grad_(False)
    lora_layers = list(filter(lambda p: p.requires_grad, transformer.parameters()))
    optimizer = torch.optim.AdamW(lora_layers, lr=args.lr)
    for batch in dataloader:
        loss = F.mse_loss(transformer(batch), batch)
        accelerator.backward(loss)
        if accelerator.sync_gradients:
            accelerator.clip_grad_norm_(lora_layers, args.max_grad_norm)
        optimizer.step()
        optimizer.zero_grad()


def lora_generator_per_step(args, dataloader):
    accelerator = Accelerator()
    transformer = Denoiser()
    optimizer = torch.optim.AdamW(
        filter(lambda p: p.requires_grad, transformer.parameters()), lr=args.lr
    )
    for batch in dataloader:
        loss = F.mse_loss(transformer(batch), batch)
        accelerator.backward(loss)
        if accelerator.sync_gradients:
            params_to_clip = filter(lambda p: p.requires_grad, transformer.parameters())
            accelerator.clip_grad_norm_(params_to_clip, args.max_grad_norm)
        optimizer.step()
        optimizer.zero_grad()


def grad_clipping(params, theta):
    params = list(params)
    norm = torch.zeros(1)
    for param in params:
        norm += (param.grad.data**2).sum()
    norm = norm.sqrt().item()
    if norm > theta:
        for param in params:
            param.grad.data *= theta / norm


def clipped_by_helper(model, x, theta):
    model(x).sum().backward()
    grad_clipping(model.parameters(), theta)


def printed_then_clipped_fresh():
    model = nn.Linear(10, 1)
    model(torch.randn(4, 10)).sum().backward()
    for p in model.parameters():
        print(tuple(p.shape))
    return nn.utils.clip_grad_norm_(model.parameters(), 1.0)


def count_then_optimize():
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    trainable = [p for p in model.parameters() if p.requires_grad]
    print("trainable:", sum(p.numel() for p in trainable))
    return torch.optim.SGD(trainable, lr=0.1)
