"""GG605 - zero_grad() between backward() and step() discards the gradients.

Mistake: in the LoRA fine-tuning loop the gradients are computed and clipped, then
`optimizer.zero_grad()` runs before `optimizer.step()`. With the default
set_to_none=True every .grad is None at step time and AdamW skips every parameter.
Silent effect: the loss is printed every step but the LoRA weights never change.

Modelled on: https://github.com/cloneofsimo/lora/issues/263
(train_lora_dreambooth.py called optimizer.zero_grad() after the backward pass,
in the wrong place relative to the update).
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

ARGS = {"rank": 4, "lora_alpha": 8, "learning_rate": 1e-3, "max_grad_norm": 1.0,
        "max_train_steps": 6, "train_batch_size": 4, "dim": 32}


class LoraInjectedLinear(nn.Module):
    def __init__(self, base: nn.Linear, r, alpha):
        super().__init__()
        self.base = base
        self.lora_down = nn.Linear(base.in_features, r, bias=False)
        self.lora_up = nn.Linear(r, base.out_features, bias=False)
        self.scale = alpha / r
        nn.init.kaiming_uniform_(self.lora_down.weight, a=math.sqrt(5))
        nn.init.normal_(self.lora_up.weight, std=1e-3)

    def forward(self, x):
        return self.base(x) + self.lora_up(self.lora_down(x)) * self.scale


class TinyDenoiser(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.to_q = nn.Linear(dim, dim)
        self.to_v = nn.Linear(dim, dim)
        self.out = nn.Linear(dim, dim)

    def forward(self, x, t):
        h = self.to_q(x) * torch.sigmoid(self.to_v(x)) + t[:, None]
        return self.out(F.silu(h))


def inject_trainable_lora(model, names, r, alpha):
    params = []
    for p in model.parameters():
        p.requires_grad_(False)
    for name in names:
        lora = LoraInjectedLinear(getattr(model, name), r, alpha)
        setattr(model, name, lora)
        params += list(lora.lora_down.parameters()) + list(lora.lora_up.parameters())
    return params


def training_loop(unet, lora_params, dataloader, optimizer, lr_scheduler, args):
    global_step = 0
    while global_step < args["max_train_steps"]:
        for (latents,) in dataloader:
            noise = torch.randn_like(latents)
            timesteps = torch.rand(latents.shape[0])
            noisy = latents + timesteps[:, None] * noise
            model_pred = unet(noisy, timesteps)
            loss = F.mse_loss(model_pred, noise)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(lora_params, args["max_grad_norm"])
            optimizer.zero_grad()  # bug: GG605
            optimizer.step()
            lr_scheduler.step()
            global_step += 1
            print(f"step {global_step}: loss={loss.detach().item():.4f} lr={lr_scheduler.get_last_lr()[0]:.2e}")
            if global_step >= args["max_train_steps"]:
                break


def main():
    torch.manual_seed(0)
    args = ARGS
    unet = TinyDenoiser(args["dim"])
    lora_params = inject_trainable_lora(unet, ["to_q", "to_v"], args["rank"], args["lora_alpha"])
    optimizer = torch.optim.AdamW(lora_params, lr=args["learning_rate"], weight_decay=1e-2)
    lr_scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: min(1.0, (s + 1) / 3))
    data = DataLoader(TensorDataset(torch.randn(16, args["dim"])), batch_size=args["train_batch_size"], shuffle=True)
    before = [p.detach().clone() for p in lora_params]
    training_loop(unet, lora_params, data, optimizer, lr_scheduler, args)
    return all(torch.equal(b, p) for b, p in zip(before, lora_params))


if __name__ == "__main__":
    if main():
        print("BUGGY: LoRA weights unchanged after training (gradients cleared before step)")
        raise SystemExit(0)
    raise SystemExit("NO BUG")
