"""Look-alike: bf16 precision plugin whose GradScaler is disabled; clipping is direct.

Modelled on: https://github.com/Lightning-AI/pytorch-lightning/issues/9694 (counterpart)

Same trainer and plugin shape, but the scaler is created with
``enabled=(precision == "16-mixed")`` and this run uses ``"bf16-mixed"``
(bfloat16 does not need loss scaling).  A disabled GradScaler's ``scale()``
returns the loss unchanged and ``step()`` just calls ``optimizer.step()``, so
clipping right after backward sees the true gradients.
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


class TinyGPT(nn.Module):
    def __init__(self, vocab, dim, block):
        super().__init__()
        self.tok = nn.Embedding(vocab, dim)
        self.pos = nn.Parameter(torch.zeros(block, dim))
        self.attn = nn.MultiheadAttention(dim, 2, batch_first=True)
        self.mlp = nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))
        self.head = nn.Linear(dim, vocab)

    def forward(self, idx):
        t = idx.size(1)
        x = self.tok(idx) + self.pos[:t]
        mask = torch.triu(torch.ones(t, t, dtype=torch.bool), 1)
        x = x + self.attn(x, x, x, attn_mask=mask, need_weights=False)[0]
        x = x + self.mlp(x)
        return self.head(x)


class NativeMixedPrecisionPlugin:
    def __init__(self, precision):
        self.scaler = torch.amp.GradScaler("cpu", enabled=precision == "16-mixed")

    def autocast(self):
        return torch.autocast(device_type="cpu", dtype=torch.bfloat16)

    def backward(self, loss):
        self.scaler.scale(loss).backward()

    def optimizer_step(self, optimizer):
        self.scaler.step(optimizer)
        self.scaler.update()


class Trainer:
    def __init__(self, model, args):
        self.model = model
        self.optimizer = torch.optim.SGD(model.parameters(), lr=args.lr)
        self.precision = NativeMixedPrecisionPlugin(args.precision)
        self.gradient_clip_val = args.gradient_clip_val
        self.grad_norms = []

    def clip_gradients(self):
        norm = torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.gradient_clip_val)
        self.grad_norms.append(norm.item())

    def training_step(self, batch):
        idx, targets = batch
        with self.precision.autocast():
            logits = self.model(idx)
        return F.cross_entropy(logits.float().flatten(0, 1), targets.flatten())

    def fit(self, loader):
        self.model.train()
        for batch in loader:
            self.optimizer.zero_grad()
            loss = self.training_step(batch)
            self.precision.backward(loss)
            if self.gradient_clip_val:
                self.clip_gradients()
            self.precision.optimizer_step(self.optimizer)


def make_loader(args, n=2):
    g = torch.Generator().manual_seed(0)
    data = []
    for _ in range(n):
        seq = torch.randint(0, args.vocab, (args.batch_size, args.block + 1), generator=g)
        data.append((seq[:, :-1], seq[:, 1:]))
    return data


def get_args(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--vocab", type=int, default=50)
    p.add_argument("--dim", type=int, default=16)
    p.add_argument("--block", type=int, default=8)
    p.add_argument("--batch-size", type=int, default=4)
    p.add_argument("--lr", type=float, default=0.1)
    p.add_argument("--gradient-clip-val", type=float, default=1.0)
    p.add_argument("--precision", default="bf16-mixed", choices=["16-mixed", "bf16-mixed", "32"])
    return p.parse_args(argv)


if __name__ == "__main__":
    torch.manual_seed(0)
    args = get_args([])
    model = TinyGPT(args.vocab, args.dim, args.block)
    trainer = Trainer(model, args)
    before = torch.cat([p.detach().flatten().clone() for p in model.parameters()])
    trainer.fit(make_loader(args, n=1))
    step = (torch.cat([p.detach().flatten() for p in model.parameters()]) - before).norm().item()
    expected = args.lr * min(args.gradient_clip_val, trainer.grad_norms[0])
    assert abs(step - expected) < 0.05 * expected, (step, expected)
    print("OK")
