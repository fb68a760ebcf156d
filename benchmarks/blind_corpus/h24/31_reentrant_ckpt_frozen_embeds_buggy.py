"""GG112 - reentrant activation checkpointing whose inputs do not require grad.

Mistake: a small vision-language model is fine-tuned with LoRA adapters while
the vision tower and the token embedding are frozen.  Gradient checkpointing
wraps every decoder layer with checkpoint(..., use_reentrant=True).  The hidden
states entering the first checkpointed layer come from frozen modules, so none
of its inputs requires grad: torch warns "None of the inputs have
requires_grad=True. Gradients will be None" and the LoRA weights inside the
checkpointed layers receive no gradient (silent: .grad stays None).

Modelled on: https://github.com/2U1/Qwen-VL-Series-Finetune/issues/56
"""
import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint

TRAIN_ARGS = {"vocab": 64, "dim": 32, "layers": 2, "lora_r": 4, "steps": 2, "lr": 1e-3,
              "gradient_checkpointing": True, "freeze_vision_tower": True, "freeze_llm": True}  # lm_head stays trainable (modules_to_save)


class LoRALinear(nn.Module):
    def __init__(self, base: nn.Linear, r):
        super().__init__()
        self.base = base
        self.base.weight.requires_grad_(False)
        self.base.bias.requires_grad_(False)
        self.lora_a = nn.Parameter(torch.randn(r, base.in_features) * 0.01)
        self.lora_b = nn.Parameter(torch.zeros(base.out_features, r))

    def forward(self, x):
        return self.base(x) + F.linear(F.linear(x, self.lora_a), self.lora_b)


class DecoderLayer(nn.Module):
    def __init__(self, dim, r):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.attn = nn.MultiheadAttention(dim, 4, batch_first=True)
        self.mlp_up = LoRALinear(nn.Linear(dim, dim * 2), r)
        self.mlp_down = LoRALinear(nn.Linear(dim * 2, dim), r)

    def forward(self, h):
        x = self.norm(h)
        h = h + self.attn(x, x, x, need_weights=False)[0]
        return h + self.mlp_down(F.gelu(self.mlp_up(self.norm(h))))


class TinyVLM(nn.Module):
    def __init__(self, a):
        super().__init__()
        self.vision_tower = nn.Sequential(nn.Conv2d(3, a["dim"], 4, stride=4), nn.Flatten(2))
        self.embed_tokens = nn.Embedding(a["vocab"], a["dim"])
        self.layers = nn.ModuleList(DecoderLayer(a["dim"], a["lora_r"]) for _ in range(a["layers"]))
        self.lm_head = nn.Linear(a["dim"], a["vocab"])
        self.gradient_checkpointing = a["gradient_checkpointing"]

    def forward(self, pixels, input_ids):
        img = self.vision_tower(pixels).transpose(1, 2)
        h = torch.cat([img, self.embed_tokens(input_ids)], dim=1)
        for layer in self.layers:
            if self.gradient_checkpointing and self.training:
                h = checkpoint(layer, h, use_reentrant=True)  # bug: GG112
            else:
                h = layer(h)
        return self.lm_head(h[:, img.size(1):])


def configure_trainable(model, a):
    if a["freeze_vision_tower"]:
        model.vision_tower.requires_grad_(False)
    if a["freeze_llm"]:
        model.embed_tokens.requires_grad_(False)
        for layer in model.layers:
            layer.norm.requires_grad_(False)
            layer.attn.requires_grad_(False)
    names = [n for n, p in model.named_parameters() if p.requires_grad]
    print(f"trainable tensors: {len(names)} (e.g. {names[0]})")
    return [p for p in model.parameters() if p.requires_grad]


def train(model, params, batches, a):
    optimizer = torch.optim.AdamW(params, lr=a["lr"])
    model.train()
    for step, (pixels, ids) in enumerate(batches):
        logits = model(pixels, ids[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), ids[:, 1:].reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"step {step}: loss {loss.item():.4f}")


def main():
    torch.manual_seed(0)
    a = TRAIN_ARGS
    model = TinyVLM(a)
    params = configure_trainable(model, a)
    batches = [(torch.randn(2, 3, 16, 16), torch.randint(0, a["vocab"], (2, 9))) for _ in range(a["steps"])]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        train(model, params, batches, a)
    return model, [str(w.message) for w in caught]


if __name__ == "__main__":
    model, msgs = main()
    lora_grads = [model.layers[0].mlp_up.lora_a.grad, model.layers[-1].mlp_down.lora_b.grad]
    if all(g is None for g in lora_grads):
        hint = next((m for m in msgs if "requires_grad" in m), "no warning")
        print(f"BUGGY: LoRA weights in checkpointed layers got no gradient ({hint})")
        raise SystemExit(0)
    raise SystemExit("NO BUG")
