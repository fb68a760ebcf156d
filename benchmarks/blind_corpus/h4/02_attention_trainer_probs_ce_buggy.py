"""GG110 - softmax output given to cross_entropy.

A small self-attention classifier returns a dict with both "logits" and "probs". The
Trainer's compute_loss helper picks out["probs"] and hands it to F.cross_entropy, which
runs log_softmax again. Nothing raises; the loss is a double-softmax loss, bounded below by
log(1 + (C-1)/e), so even perfectly classified samples keep a large loss (silent).
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class AttentionPool(nn.Module):
    def __init__(self, dim, n_heads=2, n_classes=4):
        super().__init__()
        self.attn = nn.MultiheadAttention(dim, n_heads, batch_first=True)
        self.norm = nn.LayerNorm(dim)
        self.query = nn.Parameter(torch.randn(1, 1, dim) * 0.02)
        self.head = nn.Linear(dim, n_classes)

    def forward(self, tokens):
        h = self.norm(tokens)
        q = self.query.expand(tokens.size(0), -1, -1)
        pooled, weights = self.attn(q, h, h)
        logits = self.head(pooled.squeeze(1))
        return {"logits": logits, "probs": F.softmax(logits, dim=-1), "attn": weights}


def compute_loss(out, targets, label_smoothing=0.0):
    scores = out["probs"]
    return F.cross_entropy(scores, targets, label_smoothing=label_smoothing)  # bug: GG110


class Trainer:
    def __init__(self, model, lr=5e-3, device="cpu"):
        self.device = torch.device(device)
        self.model = model.to(self.device)
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=lr, weight_decay=0.0)
        self.scheduler = torch.optim.lr_scheduler.StepLR(self.optimizer, step_size=50, gamma=0.5)
        self.log = {"loss": [], "acc": []}

    def train_step(self, tokens, targets):
        self.model.train()
        tokens, targets = tokens.to(self.device), targets.to(self.device)
        out = self.model(tokens)
        loss = compute_loss(out, targets)
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 5.0)
        self.optimizer.step()
        self.scheduler.step()
        acc = (out["logits"].argmax(-1) == targets).float().mean().item()
        self.log["loss"].append(loss.item())
        self.log["acc"].append(acc)
        return loss.item()

    def fit(self, tokens, targets, steps=150):
        for step in range(steps):
            loss = self.train_step(tokens, targets)
            if step % 50 == 0:
                print(f"step {step:3d} loss={loss:.4f} acc={self.log['acc'][-1]:.2f}")
        return self.log


def main():
    torch.manual_seed(1)
    n, seq, dim, n_classes = 64, 6, 16, 4
    targets = torch.randint(0, n_classes, (n,))
    prototypes = torch.randn(n_classes, dim) * 3
    tokens = torch.randn(n, seq, dim) * 0.5 + prototypes[targets].unsqueeze(1)
    trainer = Trainer(AttentionPool(dim, n_classes=n_classes))
    log = trainer.fit(tokens, targets)
    return log["loss"][-1], log["acc"][-1], n_classes


if __name__ == "__main__":
    final_loss, final_acc, n_classes = main()
    floor = math.log(1 + (n_classes - 1) / math.e)
    if final_acc == 1.0 and final_loss > floor - 1e-3:
        print(f"BUGGY: loss {final_loss:.4f} cannot go below {floor:.4f} although accuracy is 100%")
    else:
        raise SystemExit("NO BUG")
