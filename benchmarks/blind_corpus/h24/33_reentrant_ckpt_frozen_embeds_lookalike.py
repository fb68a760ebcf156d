"""GG112 look-alike - reentrant checkpoint after a frozen embedding, made safe.

Same frozen-embedding + LoRA + use_reentrant=True layout, but the trainer calls
enable_input_require_grads(): a forward hook marks the embedding output as
requiring grad, so the reentrant checkpoint sees an input that requires grad
and the LoRA weights inside it are trained.

Modelled on: https://github.com/2U1/Qwen-VL-Series-Finetune/issues/56 (the usual remedy)
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint

VOCAB, DIM, LAYERS, R = 64, 32, 2, 4


class LoRALinear(nn.Module):
    def __init__(self, base, r):
        super().__init__()
        self.base = base.requires_grad_(False)
        self.lora_a = nn.Parameter(torch.randn(r, base.in_features) * 0.01)
        self.lora_b = nn.Parameter(torch.zeros(base.out_features, r))

    def forward(self, x):
        return self.base(x) + x @ self.lora_a.t() @ self.lora_b.t()


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = nn.LayerNorm(DIM).requires_grad_(False)
        self.up = LoRALinear(nn.Linear(DIM, 2 * DIM), R)
        self.down = LoRALinear(nn.Linear(2 * DIM, DIM), R)

    def forward(self, h):
        return h + self.down(F.gelu(self.up(self.norm(h))))


class TinyLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed_tokens = nn.Embedding(VOCAB, DIM).requires_grad_(False)
        self.layers = nn.ModuleList(Block() for _ in range(LAYERS))
        self.lm_head = nn.Linear(DIM, VOCAB).requires_grad_(False)

    def enable_input_require_grads(self):
        def make_inputs_require_grad(module, inputs, output):
            output.requires_grad_(True)
        self._hook = self.embed_tokens.register_forward_hook(make_inputs_require_grad)

    def forward(self, ids):
        h = self.embed_tokens(ids)
        for layer in self.layers:
            h = checkpoint(layer, h, use_reentrant=True)
        return self.lm_head(h)


def main():
    torch.manual_seed(0)
    model = TinyLM()
    model.enable_input_require_grads()
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=1e-2)
    model.train()
    for step in range(3):
        ids = torch.randint(0, VOCAB, (2, 9))
        logits = model(ids[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, VOCAB), ids[:, 1:].reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"step {step}: loss {loss.item():.4f}")
    assert model.layers[0].up.lora_a.grad is not None
    assert model.layers[-1].down.lora_b.grad is not None


if __name__ == "__main__":
    main()
    print("OK")
