"""GG401 - requires_grad set on a tensor computed from tensors that require grad.

Mistake: the user wants the gradient of the attention map for a
"gradient x attention" relevance plot.  Inside the attention block's forward
they flag the softmax output with ``attn.requires_grad = True`` so that
``.grad`` would be filled in.  The attention map is computed from the query/key
projections (parameters require grad), so it is a non-leaf and its flag cannot
be changed; ``retain_grad()`` is what they needed.

torch raises: RuntimeError: you can only change requires_grad flags of leaf
variables.

Modelled on: https://github.com/pytorch/pytorch/issues/3890
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

HPARAMS = dict(d_model=16, heads=2, seq_len=6, vocab=30, classes=3,
               epochs=2, lr=2e-3, explain_every=2, device="cpu")


class SelfAttention(nn.Module):
    def __init__(self, d_model, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.proj = nn.Linear(d_model, d_model)
        self.keep_attn_grad = False
        self.last_attn = None

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        q, k, v = (z.view(b, t, self.heads, d // self.heads).transpose(1, 2) for z in (q, k, v))
        attn = F.softmax(q @ k.transpose(-2, -1) / math.sqrt(d // self.heads), dim=-1)
        if self.keep_attn_grad:
            attn.requires_grad = True  # bug: GG401
            self.last_attn = attn
        out = (attn @ v).transpose(1, 2).reshape(b, t, d)
        return self.proj(out)


class TextClassifier(nn.Module):
    def __init__(self, hp):
        super().__init__()
        self.embed = nn.Embedding(hp["vocab"], hp["d_model"])
        self.attn = SelfAttention(hp["d_model"], hp["heads"])
        self.norm = nn.LayerNorm(hp["d_model"])
        self.head = nn.Linear(hp["d_model"], hp["classes"])

    def forward(self, tokens):
        h = self.embed(tokens)
        h = self.norm(h + self.attn(h))
        return self.head(h.mean(dim=1))


class Trainer:
    def __init__(self, model, loader, hp):
        self.model = model.to(hp["device"])
        self.loader = loader
        self.hp = hp
        self.opt = torch.optim.AdamW(model.parameters(), lr=hp["lr"])
        self.relevance = []

    def train_step(self, tokens, labels, explain):
        self.model.attn.keep_attn_grad = explain
        self.opt.zero_grad()
        loss = F.cross_entropy(self.model(tokens), labels)
        loss.backward()
        if explain:
            attn = self.model.attn.last_attn
            self.relevance.append((attn * attn.grad).clamp(min=0).mean(dim=1).detach())
        self.opt.step()
        return loss.item()

    def train_epoch(self, epoch):
        losses = []
        for i, (tokens, labels) in enumerate(self.loader):
            explain = (i % self.hp["explain_every"]) == 0
            losses.append(self.train_step(tokens, labels, explain))
        print(f"epoch {epoch}: mean loss {sum(losses) / len(losses):.4f}")


def main():
    torch.manual_seed(0)
    hp = HPARAMS
    tokens = torch.randint(0, hp["vocab"], (16, hp["seq_len"]))
    labels = torch.randint(0, hp["classes"], (16,))
    loader = DataLoader(TensorDataset(tokens, labels), batch_size=4, shuffle=True)
    trainer = Trainer(TextClassifier(hp), loader, hp)
    for epoch in range(hp["epochs"]):
        trainer.train_epoch(epoch)
    print(f"collected {len(trainer.relevance)} relevance maps")


if __name__ == "__main__":
    try:
        main()
    except RuntimeError as err:
        print(f"BUGGY: {str(err).splitlines()[0]}")
        raise SystemExit(0)
    raise SystemExit("NO BUG")
