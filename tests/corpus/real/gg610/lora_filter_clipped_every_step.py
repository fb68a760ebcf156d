"""A `filter(...)` of the trainable LoRA parameters, given to the optimizer and then, through
an alias, to `accelerator.clip_grad_norm_` on every synchronised step.

Modelled on https://github.com/PixArt-alpha/PixArt-alpha/pull/160 (written anew): a filter
object is iterated once, so from the first clip on (the optimizer already emptied it) no
gradient is ever clipped.
"""

import torch
import torch.nn.functional as F
from accelerate import Accelerator
from torch import nn


class Denoiser(nn.Module):
    def __init__(self):
        super().__init__()
        self.base = nn.Linear(32, 32)
        self.lora_down = nn.Linear(32, 4, bias=False)
        self.lora_up = nn.Linear(4, 32, bias=False)

    def forward(self, x):
        return self.base(x) + self.lora_up(self.lora_down(x))


def train(args, dataloader):
    accelerator = Accelerator(gradient_accumulation_steps=args.accumulation)
    transformer = Denoiser()
    transformer.base.requires_grad_(False)
    lora_layers = filter(lambda p: p.requires_grad, transformer.parameters())
    optimizer = torch.optim.AdamW(lora_layers, lr=args.lr)
    transformer, optimizer, dataloader = accelerator.prepare(transformer, optimizer, dataloader)
    global_step = 0
    for epoch in range(args.epochs):
        for batch in dataloader:
            with accelerator.accumulate(transformer):
                noise = torch.randn_like(batch)
                loss = F.mse_loss(transformer(batch + noise), noise)
                accelerator.backward(loss)
                if accelerator.sync_gradients:
                    params_to_clip = lora_layers
                    accelerator.clip_grad_norm_(params_to_clip, args.max_grad_norm)  # expect: GG610
                optimizer.step()
                optimizer.zero_grad()
            global_step += 1
            if global_step >= args.max_steps:
                break
