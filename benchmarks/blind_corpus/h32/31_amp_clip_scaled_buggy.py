"""GPT-style training loop: gradient clipping runs on GradScaler-scaled gradients.

Modelled on: https://github.com/Lightning-AI/pytorch-lightning/issues/9694

With native AMP the loss is multiplied by the GradScaler's scale before
``backward()``, so every ``.grad`` is scaled (65536x at start).  In the report
the trainer clipped gradients right after backward and only unscaled inside
``scaler.step``; clipping to ``max_norm=1.0`` on scaled gradients shrinks the
real gradients by the scale factor and training crawls.  Here a precision
plugin wraps the scaler the same way; the check measures the weight update.
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
    def __init__(self):
        self.scaler = torch.amp.GradScaler("cpu")

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
        self.precision = NativeMixedPrecisionPlugin()
        self.gradient_clip_val = args.gradient_clip_val
        self.grad_norms = []

    def clip_gradients(self):
        norm = torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.gradient_clip_val)  # bug: GG609
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
    return p.parse_args(argv)


if __name__ == "__main__":
    torch.manual_seed(0)
    args = get_args([])
    model = TinyGPT(args.vocab, args.dim, args.block)
    trainer = Trainer(model, args)
    before = torch.cat([p.detach().flatten().clone() for p in model.parameters()])
    trainer.fit(make_loader(args, n=1))
    step = (torch.cat([p.detach().flatten() for p in model.parameters()]) - before).norm().item()
    expected = args.lr * min(args.gradient_clip_val, trainer.grad_norms[0] / 65536.0)
    if step < 1e-2 * expected:
        print(f"BUGGY: clipped while scaled; update norm {step:.2e} vs expected ~{expected:.2e} "
              f"(clip saw norm {trainer.grad_norms[0]:.1f})")
    else:
        print("update has the expected size")
