"""LoRA fine-tuning script that builds a fresh parameter iterator for each consumer.

Look-alike: the optimizer still receives a one-shot ``filter(...)`` generator, but the
clipping call asks the model again (``trainable_parameters(transformer)`` returns a new
generator every call), so each iterator is iterated exactly once.

Modelled on: https://github.com/PixArt-alpha/PixArt-alpha/pull/160

The LoRA training script collects the trainable adapter weights with
``lora_layers = filter(lambda p: p.requires_grad, transformer.parameters())`` and passes
them to the optimizer, which iterates the filter object to build its param group. Later
the loop calls ``clip_grad_norm_(lora_layers, max_grad_norm)`` with the same, now
exhausted, iterator: it sees no parameters, reports a norm of 0 and clips nothing, so
exploding LoRA gradients are never limited. The check compares the reported norm with
the real gradient norm of the LoRA parameters.
"""
import argparse
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class LoRALinear(nn.Module):
    def __init__(self, base: nn.Linear, rank=4, alpha=8):
        super().__init__()
        self.base = base
        self.lora_down = nn.Linear(base.in_features, rank, bias=False)
        self.lora_up = nn.Linear(rank, base.out_features, bias=False)
        nn.init.kaiming_uniform_(self.lora_down.weight, a=math.sqrt(5))
        nn.init.normal_(self.lora_up.weight, std=0.5)
        self.scale = alpha / rank

    def forward(self, x):
        return self.base(x) + self.lora_up(self.lora_down(x)) * self.scale


class TinyTransformer(nn.Module):
    def __init__(self, dim=16, depth=2):
        super().__init__()
        self.blocks = nn.ModuleList(nn.Sequential(nn.Linear(dim, dim), nn.GELU(), nn.Linear(dim, dim)) for _ in range(depth))
        self.out = nn.Linear(dim, dim)

    def forward(self, x):
        for block in self.blocks:
            x = x + block(x)
        return self.out(x)


def inject_lora(transformer, rank):
    transformer.requires_grad_(False)
    for block in transformer.blocks:
        for i, layer in enumerate(block):
            if isinstance(layer, nn.Linear):
                block[i] = LoRALinear(layer, rank=rank)
    return transformer


def trainable_parameters(model):
    return (p for p in model.parameters() if p.requires_grad)


def parse_args(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--rank", type=int, default=4)
    p.add_argument("--learning_rate", type=float, default=1e-4)
    p.add_argument("--max_grad_norm", type=float, default=1.0)
    p.add_argument("--max_train_steps", type=int, default=3)
    return p.parse_args(argv)


def main(args):
    torch.manual_seed(0)
    transformer = inject_lora(TinyTransformer(), args.rank)
    lora_layers = filter(lambda p: p.requires_grad, transformer.parameters())
    optimizer = torch.optim.AdamW(lora_layers, lr=args.learning_rate, weight_decay=1e-2)
    reported, actual = [], []
    for step in range(args.max_train_steps):
        latents = torch.randn(8, 16) * 10
        noise = torch.randn_like(latents)
        model_pred = transformer(latents + noise)
        loss = F.mse_loss(model_pred.float(), noise.float(), reduction="mean")
        loss.backward()
        actual.append(torch.norm(torch.stack([p.grad.norm() for p in transformer.parameters() if p.grad is not None])).item())
        params_to_clip = trainable_parameters(transformer)
        total_norm = torch.nn.utils.clip_grad_norm_(params_to_clip, args.max_grad_norm)
        reported.append(float(total_norm))
        optimizer.step()
        optimizer.zero_grad()
    return reported, actual


if __name__ == "__main__":
    reported, actual = main(parse_args([]))
    assert abs(reported[0] - actual[0]) < 1e-3 * max(actual[0], 1.0)
    print("OK")
