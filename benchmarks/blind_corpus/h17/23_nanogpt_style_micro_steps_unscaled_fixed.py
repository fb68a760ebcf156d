"""GG606 (fixed) - each micro-step loss is divided by gradient_accumulation_steps.

The GPT training script splits each batch into `gradient_accumulation_steps`
micro-batches and calls loss.backward() on every one of them, and the buggy version never
scaled the loss by 1/gradient_accumulation_steps.  The accumulated gradient
is therefore the *sum* of the micro-batch gradients -- N times the gradient of
the batch-mean loss -- which silently changes the effective learning rate and
makes grad_clip bite N times too early.
Observable: accumulated grad == N * grad of the mean loss on the whole batch.

Modelled on: https://github.com/karpathy/nanoGPT/issues/206
"""
import copy
import math
from contextlib import nullcontext

import torch
import torch.nn as nn
import torch.nn.functional as F

# -----------------------------------------------------------------------------
# config
batch_size = 4
block_size = 16
vocab_size = 64
n_embd = 32
n_head = 4
dropout = 0.0
learning_rate = 6e-4
max_iters = 4
gradient_accumulation_steps = 4
grad_clip = 1.0
eval_iters = 2
device = "cpu"
ctx = nullcontext()
# -----------------------------------------------------------------------------

torch.manual_seed(1337)
data = torch.randint(0, vocab_size, (2000,))
train_data, val_data = data[:1800], data[1800:]


def get_batch(split):
    d = train_data if split == "train" else val_data
    ix = torch.randint(len(d) - block_size, (batch_size,))
    x = torch.stack([d[i:i + block_size] for i in ix])
    y = torch.stack([d[i + 1:i + 1 + block_size] for i in ix])
    return x.to(device), y.to(device)


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln_1 = nn.LayerNorm(n_embd)
        self.attn = nn.MultiheadAttention(n_embd, n_head, dropout=dropout, batch_first=True)
        self.ln_2 = nn.LayerNorm(n_embd)
        self.mlp = nn.Sequential(nn.Linear(n_embd, 4 * n_embd), nn.GELU(), nn.Linear(4 * n_embd, n_embd))

    def forward(self, x):
        T = x.size(1)
        mask = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
        h = self.ln_1(x)
        x = x + self.attn(h, h, h, attn_mask=mask, need_weights=False)[0]
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    def __init__(self):
        super().__init__()
        self.wte = nn.Embedding(vocab_size, n_embd)
        self.wpe = nn.Embedding(block_size, n_embd)
        self.blocks = nn.ModuleList([Block() for _ in range(2)])
        self.ln_f = nn.LayerNorm(n_embd)
        self.lm_head = nn.Linear(n_embd, vocab_size, bias=False)

    def forward(self, idx, targets=None):
        pos = torch.arange(idx.size(1), device=idx.device)
        x = self.wte(idx) + self.wpe(pos)
        for block in self.blocks:
            x = block(x)
        logits = self.lm_head(self.ln_f(x))
        loss = None
        if targets is not None:
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))
        return logits, loss


@torch.no_grad()
def estimate_loss(model):
    out = {}
    model.eval()
    for split in ["train", "val"]:
        losses = torch.zeros(eval_iters)
        for k in range(eval_iters):
            X, Y = get_batch(split)
            losses[k] = model(X, Y)[1].item()
        out[split] = losses.mean().item()
    model.train()
    return out


def forward_backward(model, micro_batches):
    for micro_step, (X, Y) in enumerate(micro_batches):
        with ctx:
            logits, loss = model(X, Y)
        loss = loss / gradient_accumulation_steps  # fixed: GG606
        loss.backward()
    return loss


def accumulation_check(model):
    micro = [get_batch("train") for _ in range(gradient_accumulation_steps)]
    acc, full = copy.deepcopy(model), copy.deepcopy(model)
    forward_backward(acc, micro)
    X = torch.cat([m[0] for m in micro]); Y = torch.cat([m[1] for m in micro])
    full(X, Y)[1].backward()
    g_acc, g_full = acc.lm_head.weight.grad, full.lm_head.weight.grad
    return torch.allclose(g_acc, g_full, rtol=1e-4, atol=1e-6)


model = GPT().to(device)
optimizer = torch.optim.AdamW(model.parameters(), lr=learning_rate, betas=(0.9, 0.95))
for iter_num in range(max_iters):
    micro_batches = [get_batch("train") for _ in range(gradient_accumulation_steps)]
    loss = forward_backward(model, micro_batches)
    norm = torch.nn.utils.clip_grad_norm_(model.parameters(), grad_clip)
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    print(f"iter {iter_num}: loss {loss.item():.4f}, grad norm {norm.item():.3f}")
print(estimate_loss(model))

if __name__ == "__main__":
    assert accumulation_check(model)
    print("FIXED: ok")
