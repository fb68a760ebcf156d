"""GG112 - LoRA fine-tuning with reentrant gradient checkpointing and frozen embeddings.

A ChatGLM-like model is fine-tuned with LoRA: every base weight (embeddings,
attention/MLP projections, output layer) is frozen and only the LoRA A/B
matrices inside the transformer layers train.  With gradient checkpointing on,
each layer runs through torch.utils.checkpoint.checkpoint(..., use_reentrant=True).
The hidden states entering the first checkpoint come from the frozen embedding
and do not require grad, so the reentrant checkpoint's output does not either
(torch warns "None of the inputs have requires_grad=True") and the LoRA weights
inside are unreachable.  The loss has no grad_fn:
    RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn

Modelled on: https://github.com/zai-org/ChatGLM3/pull/846
"""
import math
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint



@dataclass
class ModelConfig:
    vocab_size: int = 40
    hidden_size: int = 32
    num_layers: int = 2
    num_heads: int = 4
    lora_r: int = 4
    lora_alpha: int = 8


class LoraLinear(nn.Module):
    def __init__(self, base: nn.Linear, r, alpha):
        super().__init__()
        self.base = base
        self.lora_A = nn.Parameter(torch.randn(r, base.in_features) * 0.02)
        self.lora_B = nn.Parameter(torch.zeros(base.out_features, r))
        self.scaling = alpha / r

    def forward(self, x):
        return self.base(x) + (x @ self.lora_A.t() @ self.lora_B.t()) * self.scaling


class GLMBlock(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        h = cfg.hidden_size
        self.num_heads = cfg.num_heads
        self.input_layernorm = nn.LayerNorm(h)
        self.query_key_value = nn.Linear(h, 3 * h)
        self.dense = nn.Linear(h, h)
        self.post_attention_layernorm = nn.LayerNorm(h)
        self.mlp = nn.Sequential(nn.Linear(h, 4 * h), nn.GELU(), nn.Linear(4 * h, h))

    def forward(self, hidden_states):
        b, t, h = hidden_states.shape
        x = self.input_layernorm(hidden_states)
        q, k, v = self.query_key_value(x).view(b, t, 3, self.num_heads, h // self.num_heads).unbind(2)
        attn = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), is_causal=True)
        hidden_states = hidden_states + self.dense(attn.transpose(1, 2).reshape(b, t, h))
        return hidden_states + self.mlp(self.post_attention_layernorm(hidden_states))


class ChatGLMForConditionalGeneration(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.embedding = nn.Embedding(cfg.vocab_size, cfg.hidden_size)
        self.layers = nn.ModuleList([GLMBlock(cfg) for _ in range(cfg.num_layers)])
        self.final_layernorm = nn.LayerNorm(cfg.hidden_size)
        self.output_layer = nn.Linear(cfg.hidden_size, cfg.vocab_size, bias=False)
        self.gradient_checkpointing = False

    def gradient_checkpointing_enable(self):
        self.gradient_checkpointing = True

    def enable_input_require_grads(self):
        def make_inputs_require_grads(module, inputs, output):
            output.requires_grad_(True)
        self._require_grads_hook = self.embedding.register_forward_hook(make_inputs_require_grads)

    def forward(self, input_ids, labels=None):
        hidden_states = self.embedding(input_ids)
        for layer in self.layers:
            if self.gradient_checkpointing and self.training:
                hidden_states = checkpoint(layer, hidden_states, use_reentrant=True)  # bug: GG112
            else:
                hidden_states = layer(hidden_states)
        logits = self.output_layer(self.final_layernorm(hidden_states))
        loss = None
        if labels is not None:
            loss = F.cross_entropy(logits[:, :-1].reshape(-1, logits.size(-1)), labels[:, 1:].reshape(-1), ignore_index=-100)
        return {"loss": loss, "logits": logits}


def get_peft_model(model, cfg):
    for p in model.parameters():
        p.requires_grad = False
    for layer in model.layers:
        layer.query_key_value = LoraLinear(layer.query_key_value, cfg.lora_r, cfg.lora_alpha)
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    total = sum(p.numel() for p in model.parameters())
    print(f"trainable params: {trainable} || all params: {total} || trainable%: {100 * trainable / total:.2f}")
    return model


def finetune(max_steps=3):
    torch.manual_seed(0)
    cfg = ModelConfig()
    model = ChatGLMForConditionalGeneration(cfg)
    model.gradient_checkpointing_enable()
    model = get_peft_model(model, cfg)
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-3)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: min(1.0, (s + 1) / 2))
    model.train()
    for step in range(max_steps):
        input_ids = torch.randint(0, cfg.vocab_size, (2, 12))
        out = model(input_ids, labels=input_ids)
        out["loss"].backward()
        torch.nn.utils.clip_grad_norm_([p for p in model.parameters() if p.requires_grad], 1.0)
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad()
        print(f"step {step}: loss {out['loss'].item():.4f} ppl {math.exp(out['loss'].item()):.1f}")
    return model


if __name__ == "__main__":
    try:
        finetune()
    except RuntimeError as err:
        print(f"BUGGY: {str(err).splitlines()[0]}")
        raise SystemExit(0)
    raise SystemExit("NO BUG")
