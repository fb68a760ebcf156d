"""GG606 - gradient accumulation without dividing the loss by the number of micro-steps.

Mistake: this char-level GPT training script simulates a larger batch by running
`gradient_accumulation_steps` micro-batches before every optimizer step, but the
per-micro-batch *mean* loss is back-propagated as is.  The accumulated gradient
is therefore the sum, not the mean, over the micro-batches.
Silent effect (no exception): every step's gradient (and the norm that gradient
clipping sees) is `gradient_accumulation_steps` times the gradient of the
equivalent large batch, so the clip threshold and learning rate are silently off.

Modelled on: https://github.com/karpathy/nanoGPT/issues/168
"""
import math
from contextlib import nullcontext

import torch
import torch.nn as nn
import torch.nn.functional as F

# -----------------------------------------------------------------------------
# config (would normally come from configurator.py / the command line)
block_size = 16
batch_size = 8
gradient_accumulation_steps = 4
n_embd = 32
n_head = 4
vocab_size = 27
learning_rate = 6e-4
max_iters = 3
warmup_iters = 2
grad_clip = 1.0
dtype = "float32"
device = "cpu"
# -----------------------------------------------------------------------------

data_gen = torch.Generator().manual_seed(1337)
train_data = torch.randint(0, vocab_size, (4096,), generator=torch.Generator().manual_seed(0))


def get_batch(split, gen=data_gen):
    ix = torch.randint(len(train_data) - block_size, (batch_size,), generator=gen)
    x = torch.stack([train_data[i:i + block_size] for i in ix])
    y = torch.stack([train_data[i + 1:i + 1 + block_size] for i in ix])
    return x.to(device), y.to(device)


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln_1 = nn.LayerNorm(n_embd)
        self.qkv = nn.Linear(n_embd, 3 * n_embd)
        self.proj = nn.Linear(n_embd, n_embd)
        self.ln_2 = nn.LayerNorm(n_embd)
        self.mlp = nn.Sequential(nn.Linear(n_embd, 4 * n_embd), nn.GELU(), nn.Linear(4 * n_embd, n_embd))

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.qkv(self.ln_1(x)).split(n_embd, dim=2)
        q, k, v = (t.view(B, T, n_head, C // n_head).transpose(1, 2) for t in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(y.transpose(1, 2).contiguous().view(B, T, C))
        return x + self.mlp(self.ln_2(x))


class TinyGPT(nn.Module):
    def __init__(self):
        super().__init__()
        self.wte = nn.Embedding(vocab_size, n_embd)
        self.wpe = nn.Embedding(block_size, n_embd)
        self.block = Block()
        self.ln_f = nn.LayerNorm(n_embd)
        self.lm_head = nn.Linear(n_embd, vocab_size, bias=False)

    def forward(self, idx, targets=None):
        pos = torch.arange(idx.size(1), device=idx.device)
        x = self.block(self.wte(idx) + self.wpe(pos))
        logits = self.lm_head(self.ln_f(x))
        loss = None if targets is None else F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))
        return logits, loss


def get_lr(it):
    if it < warmup_iters:
        return learning_rate * (it + 1) / warmup_iters
    return learning_rate * 0.5 * (1.0 + math.cos(math.pi * it / max_iters))


def run(model):
    ctx = nullcontext()
    optimizer = torch.optim.AdamW(model.parameters(), lr=learning_rate, betas=(0.9, 0.95))
    scaler = torch.amp.GradScaler("cpu", enabled=(dtype == "float16"))
    log = []
    X, Y = get_batch("train")
    for iter_num in range(max_iters):
        for group in optimizer.param_groups:
            group["lr"] = get_lr(iter_num)
        for micro_step in range(gradient_accumulation_steps):
            with ctx:
                logits, loss = model(X, Y)
            X, Y = get_batch("train")  # prefetch next micro-batch
            scaler.scale(loss).backward()  # bug: GG606
        scaler.unscale_(optimizer)
        grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), grad_clip)
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad(set_to_none=True)
        log.append({"iter": iter_num, "loss": loss.item(), "grad_norm": grad_norm.item()})
        print(f"iter {iter_num}: loss {loss.item():.4f}, grad_norm {grad_norm.item():.4f}")
    return log


def reference_grad_norm(model, gen_seed=1337):
    """Gradient norm of one big batch holding the same samples as the first accumulation window."""
    gen = torch.Generator().manual_seed(gen_seed)
    batches = [get_batch("train", gen) for _ in range(gradient_accumulation_steps)]
    X = torch.cat([b[0] for b in batches])
    Y = torch.cat([b[1] for b in batches])
    _, loss = model(X, Y)
    grads = torch.autograd.grad(loss, list(model.parameters()))
    return torch.norm(torch.stack([g.norm() for g in grads])).item()


def check_training():
    torch.manual_seed(0)
    model = TinyGPT()
    ref = reference_grad_norm(model)
    log = run(model)
    ratio = log[0]["grad_norm"] / ref
    assert abs(ratio - 1.0) < 1e-3, (
        f"accumulated gradient is {ratio:.2f}x the gradient of the equivalent big batch "
        f"(gradient_accumulation_steps={gradient_accumulation_steps})"
    )


if __name__ == "__main__":
    try:
        check_training()
    except AssertionError as err:
        print(f"BUGGY: {err}")
    else:
        raise SystemExit("NO BUG")
