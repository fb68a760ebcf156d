"""GG112 - reentrant checkpointing of LoRA decoder layers fed by frozen embeddings.

Category: GG112 (reentrant checkpoint whose inputs do not require grad).
The mistake: for a LoRA fine-tune of a small vision-language model, the
vision tower, connector and token embeddings are frozen and only LoRA
adapters (plus the final norm) are trainable.  With gradient checkpointing
on, each decoder layer runs under checkpoint(..., use_reentrant=True).  Its
only tensor input, the hidden states, comes from frozen modules and does
not require grad, so the reentrant checkpoint output is cut from the graph
(torch warns "None of the inputs have requires_grad=True").  backward()
still runs through the trainable final norm, but every LoRA adapter inside
the checkpointed layers keeps grad None and is never updated.
This file: BUGGY version.
Modelled on: https://github.com/TinyLLaVA/TinyLLaVA_Factory/issues/144
"""
import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint

ARGS = dict(vocab=64, d=32, heads=4, layers=2, img_tokens=4, seq=10, lora_r=4, lr=1e-3,
            batch=4, steps=3, gradient_checkpointing=True)


class LoRALinear(nn.Module):
    def __init__(self, base: nn.Linear, r: int, alpha: float = 8.0):
        super().__init__()
        self.base = base.requires_grad_(False)
        self.lora_A = nn.Parameter(torch.randn(r, base.in_features) * 0.02)
        self.lora_B = nn.Parameter(torch.zeros(base.out_features, r))
        self.scale = alpha / r

    def forward(self, x):
        return self.base(x) + (x @ self.lora_A.t() @ self.lora_B.t()) * self.scale


class DecoderLayer(nn.Module):
    def __init__(self, d, heads, r):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.attn = nn.MultiheadAttention(d, heads, batch_first=True)
        self.up = LoRALinear(nn.Linear(d, 4 * d), r)
        self.down = LoRALinear(nn.Linear(4 * d, d), r)

    def forward(self, h):
        mask = torch.triu(torch.ones(h.size(1), h.size(1), dtype=torch.bool), 1)
        x = self.ln1(h)
        h = h + self.attn(x, x, x, attn_mask=mask, need_weights=False)[0]
        return h + self.down(F.gelu(self.up(self.ln2(h))))


class TinyVLM(nn.Module):
    def __init__(self, a):
        super().__init__()
        self.vision_tower = nn.Sequential(nn.Conv2d(3, 8, 4, 4), nn.Flatten(2))
        self.connector = nn.Linear(8, a["d"])
        self.embed_tokens = nn.Embedding(a["vocab"], a["d"])
        self.layers = nn.ModuleList([DecoderLayer(a["d"], a["heads"], a["lora_r"]) for _ in range(a["layers"])])
        self.norm = nn.LayerNorm(a["d"])
        self.lm_head = nn.Linear(a["d"], a["vocab"], bias=False)
        self.gradient_checkpointing = False

    def gradient_checkpointing_enable(self):
        self.gradient_checkpointing = True

    def forward(self, images, input_ids):
        img = self.connector(self.vision_tower(images).transpose(1, 2))
        hidden = torch.cat([img, self.embed_tokens(input_ids)], dim=1)
        for layer in self.layers:
            if self.gradient_checkpointing and self.training:
                hidden = checkpoint(layer, hidden, use_reentrant=True)  # bug: GG112
            else:
                hidden = layer(hidden)
        return self.lm_head(self.norm(hidden))


def prepare_lora_model(model):
    for name, p in model.named_parameters():
        p.requires_grad = "lora_" in name or name.startswith("norm.")
    return [p for p in model.parameters() if p.requires_grad]


def training_step(model, batch, optimizer, n_img):
    images, ids = batch
    logits = model(images, ids[:, :-1])[:, n_img:]
    loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), ids[:, 1:].reshape(-1))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss.item()


def main():
    torch.manual_seed(0)
    a = ARGS
    model = TinyVLM(a)
    params = prepare_lora_model(model)
    if a["gradient_checkpointing"]:
        model.gradient_checkpointing_enable()
    optimizer = torch.optim.AdamW(params, lr=a["lr"])
    model.train()
    for step in range(a["steps"]):
        batch = (torch.randn(a["batch"], 3, 8, 8), torch.randint(0, a["vocab"], (a["batch"], a["seq"])))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            print(f"step {step}: loss {training_step(model, batch, optimizer, a['img_tokens']):.4f}")
    return model


if __name__ == "__main__":
    model = main()
    lora = [p for n, p in model.named_parameters() if "lora_" in n]
    if all(p.grad is None for p in lora) and model.norm.weight.grad is not None:
        print(f"BUGGY: all {len(lora)} LoRA tensors inside checkpointed layers have grad None; "
              "only the final norm trained")
    else:
        raise SystemExit("NO BUG")
