"""GG606 - gradient accumulation without dividing the loss by the number of steps.

Mistake: the nanoGPT-style loop runs `gradient_accumulation_steps` micro-batches and
calls backward() on each micro-batch's mean loss as is. The accumulated gradient is
the *sum* of the micro-batch gradients, i.e. gradient_accumulation_steps times the
gradient of the large batch it is meant to emulate (the effective learning rate and
the clipping threshold are silently off by that factor).
Silent effect: accumulated .grad == 4 x the gradient of the same 4 micro-batches
taken as one batch.

Modelled on: https://github.com/karpathy/nanoGPT/issues/168
(train.py did not divide the loss by gradient_accumulation_steps before backward).
"""
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F

# -----------------------------------------------------------------------------
# default config values
batch_size = 4
block_size = 16
gradient_accumulation_steps = 4
n_embd = 32
n_head = 2
vocab_size = 50
learning_rate = 6e-4
max_iters = 3
grad_clip = 0.0  # disabled
dropout = 0.0
# -----------------------------------------------------------------------------


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln1 = nn.LayerNorm(n_embd)
        self.attn = nn.MultiheadAttention(n_embd, n_head, dropout=dropout, batch_first=True)
        self.ln2 = nn.LayerNorm(n_embd)
        self.mlp = nn.Sequential(nn.Linear(n_embd, 4 * n_embd), nn.GELU(), nn.Linear(4 * n_embd, n_embd))

    def forward(self, x):
        T = x.size(1)
        mask = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
        h = self.ln1(x)
        x = x + self.attn(h, h, h, attn_mask=mask, need_weights=False)[0]
        return x + self.mlp(self.ln2(x))


class GPT(nn.Module):
    def __init__(self):
        super().__init__()
        self.wte = nn.Embedding(vocab_size, n_embd)
        self.wpe = nn.Embedding(block_size, n_embd)
        self.blocks = nn.Sequential(Block(), Block())
        self.lm_head = nn.Linear(n_embd, vocab_size, bias=False)

    def forward(self, idx, targets=None):
        pos = torch.arange(idx.size(1))
        x = self.blocks(self.wte(idx) + self.wpe(pos))
        logits = self.lm_head(x)
        loss = None
        if targets is not None:
            loss = F.cross_entropy(logits.view(-1, vocab_size), targets.view(-1))
        return logits, loss


data = torch.randint(0, vocab_size, (2000,), generator=torch.Generator().manual_seed(0))


def get_batch(gen):
    ix = torch.randint(len(data) - block_size - 1, (batch_size,), generator=gen)
    x = torch.stack([data[i:i + block_size] for i in ix])
    y = torch.stack([data[i + 1:i + 1 + block_size] for i in ix])
    return x, y


def accumulate(model, batches):
    for micro_step, (X, Y) in enumerate(batches):
        logits, loss = model(X, Y)
        loss.backward()  # bug: GG606
    return loss


def train(model, optimizer, gen):
    for it in range(max_iters):
        batches = [get_batch(gen) for _ in range(gradient_accumulation_steps)]
        loss = accumulate(model, batches)
        if grad_clip != 0.0:
            torch.nn.utils.clip_grad_norm_(model.parameters(), grad_clip)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        print(f"iter {it}: loss {loss.item():.4f}")


def check_accumulation(model, gen):
    """Accumulated gradient vs. the gradient of the equivalent big batch."""
    batches = [get_batch(gen) for _ in range(gradient_accumulation_steps)]
    ref = copy.deepcopy(model)
    X = torch.cat([b[0] for b in batches])
    Y = torch.cat([b[1] for b in batches])
    _, big_loss = ref(X, Y)
    big_loss.backward()
    accumulate(model, batches)
    acc, big = model.lm_head.weight.grad, ref.lm_head.weight.grad
    model.zero_grad(set_to_none=True)
    return torch.allclose(acc, gradient_accumulation_steps * big, rtol=1e-4, atol=1e-6), torch.allclose(acc, big, rtol=1e-4, atol=1e-6)


def main():
    torch.manual_seed(1337)
    gen = torch.Generator().manual_seed(1)
    model = GPT()
    optimizer = torch.optim.AdamW(model.parameters(), lr=learning_rate, weight_decay=0.1)
    scaled_up, matches = check_accumulation(model, gen)
    train(model, optimizer, gen)
    return scaled_up, matches


if __name__ == "__main__":
    scaled_up, matches = main()
    if scaled_up:
        print(f"BUGGY: accumulated gradient is {gradient_accumulation_steps}x the big-batch gradient")
        raise SystemExit(0)
    raise SystemExit("NO BUG")
