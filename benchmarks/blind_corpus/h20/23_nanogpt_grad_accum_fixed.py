"""GG606 (fixed) - each micro-batch loss is scaled by 1/gradient_accumulation_steps.

The accumulated gradient now equals the gradient of the full-batch mean loss.

Modelled on: https://github.com/karpathy/nanoGPT/pull/207
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

# -----------------------------------------------------------------------------
# default config values
batch_size = 4
block_size = 8
gradient_accumulation_steps = 4
n_embd = 32
vocab_size = 50
learning_rate = 6e-4
max_iters = 3
grad_clip = 1.0
device = "cpu"
# -----------------------------------------------------------------------------


class TinyGPT(nn.Module):
    def __init__(self):
        super().__init__()
        self.wte = nn.Embedding(vocab_size, n_embd)
        self.wpe = nn.Embedding(block_size, n_embd)
        self.attn = nn.MultiheadAttention(n_embd, 4, batch_first=True)
        self.ln = nn.LayerNorm(n_embd)
        self.lm_head = nn.Linear(n_embd, vocab_size, bias=False)

    def forward(self, idx, targets=None):
        t = idx.shape[1]
        x = self.wte(idx) + self.wpe(torch.arange(t, device=idx.device))
        mask = torch.triu(torch.ones(t, t, dtype=torch.bool), 1)
        a, _ = self.attn(x, x, x, attn_mask=mask, need_weights=False)
        logits = self.lm_head(self.ln(x + a))
        loss = None if targets is None else F.cross_entropy(logits.view(-1, vocab_size), targets.view(-1))
        return logits, loss


torch.manual_seed(1337)
train_data = torch.randint(0, vocab_size, (2000,))


def get_batch(gen):
    ix = torch.randint(len(train_data) - block_size, (batch_size,), generator=gen)
    x = torch.stack([train_data[i:i + block_size] for i in ix])
    y = torch.stack([train_data[i + 1:i + 1 + block_size] for i in ix])
    return x.to(device), y.to(device)


def get_lr(it):
    return learning_rate * 0.5 * (1 + math.cos(math.pi * it / max_iters))


model = TinyGPT().to(device)
optimizer = torch.optim.AdamW(model.parameters(), lr=learning_rate, weight_decay=0.1)


def reference_grad(micro_batches):
    """Gradient of the mean loss over all micro-batches of one step."""
    model.zero_grad(set_to_none=True)
    X = torch.cat([m[0] for m in micro_batches])
    Y = torch.cat([m[1] for m in micro_batches])
    _, loss = model(X, Y)
    loss.backward()
    g = model.lm_head.weight.grad.clone()
    model.zero_grad(set_to_none=True)
    return g


ratios = []
gen = torch.Generator().manual_seed(0)
for iter_num in range(max_iters):
    for group in optimizer.param_groups:
        group["lr"] = get_lr(iter_num)
    micro = [get_batch(gen) for _ in range(gradient_accumulation_steps)]
    ref = reference_grad(micro)
    for micro_step in range(gradient_accumulation_steps):
        X, Y = micro[micro_step]
        logits, loss = model(X, Y)
        loss = loss / gradient_accumulation_steps  # fixed: GG606
        loss.backward()
    ratios.append((model.lm_head.weight.grad.norm() / ref.norm()).item())
    if grad_clip != 0.0:
        torch.nn.utils.clip_grad_norm_(model.parameters(), grad_clip)
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    print(f"iter {iter_num}: loss {loss.item():.4f}, accumulated/full-batch grad ratio {ratios[-1]:.2f}")

if __name__ == "__main__":
    assert all(abs(r - 1.0) < 1e-3 for r in ratios)
    print("FIXED: ok")
