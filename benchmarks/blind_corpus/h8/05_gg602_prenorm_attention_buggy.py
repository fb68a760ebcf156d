"""GG602 - a LayerNorm is called in forward() but its output is discarded.

Mistake: the pre-norm transformer block calls `self.norm1(x)` on a line of its
own, as if LayerNorm normalised `x` in place, then feeds the *unnormalised* `x`
to self-attention.  The normalised tensor is thrown away.
Silent effect (no exception): `norm1` is never part of the graph; after
`loss.backward()` its weight and bias still have `.grad is None` and the block
runs attention on raw, un-normalised activations.

Modelled on: https://github.com/DengPingFan/Inf-Net/issues/43
"""
import os
import tempfile

import torch
import torch.nn as nn

VOCAB = 100
MAX_LEN = 12
D_MODEL = 32
N_HEADS = 4
N_LAYERS = 2
N_CLASSES = 3
CKPT_DIR = tempfile.mkdtemp(prefix="prenorm_")


class PreNormBlock(nn.Module):
    def __init__(self, d_model, n_heads, dropout=0.1):
        super().__init__()
        self.norm1 = nn.LayerNorm(d_model)
        self.attn = nn.MultiheadAttention(d_model, n_heads, dropout=dropout, batch_first=True)
        self.norm2 = nn.LayerNorm(d_model)
        self.ff = nn.Sequential(nn.Linear(d_model, 4 * d_model), nn.GELU(), nn.Linear(4 * d_model, d_model))
        self.drop = nn.Dropout(dropout)

    def forward(self, x, pad_mask=None):
        residual = x
        self.norm1(x)  # bug: GG602
        attn_out, _ = self.attn(x, x, x, key_padding_mask=pad_mask, need_weights=False)
        x = residual + self.drop(attn_out)
        x = x + self.drop(self.ff(self.norm2(x)))
        return x


class TextClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(VOCAB, D_MODEL, padding_idx=0)
        self.pos = nn.Parameter(torch.zeros(1, MAX_LEN, D_MODEL))
        self.layers = nn.ModuleList([PreNormBlock(D_MODEL, N_HEADS) for _ in range(N_LAYERS)])
        self.final_norm = nn.LayerNorm(D_MODEL)
        self.cls = nn.Linear(D_MODEL, N_CLASSES)

    def forward(self, ids):
        pad_mask = ids.eq(0)
        x = self.tok(ids) + self.pos[:, : ids.size(1)]
        for layer in self.layers:
            x = layer(x, pad_mask)
        x = self.final_norm(x)
        keep = (~pad_mask).unsqueeze(-1).float()
        pooled = (x * keep).sum(1) / keep.sum(1).clamp(min=1.0)
        return self.cls(pooled)


class Trainer:
    def __init__(self, model, lr=1e-3):
        self.model = model
        self.optimizer = torch.optim.Adam(model.parameters(), lr=lr)
        self.criterion = nn.CrossEntropyLoss(label_smoothing=0.05)
        self.best = float("inf")

    def train_step(self, ids, labels):
        self.model.train()
        self.optimizer.zero_grad()
        logits = self.model(ids)
        loss = self.criterion(logits, labels)
        loss.backward()
        nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
        self.optimizer.step()
        return loss.item()

    def maybe_checkpoint(self, loss):
        if loss < self.best:
            self.best = loss
            torch.save(self.model.state_dict(), os.path.join(CKPT_DIR, "best.pt"))


def random_batch(bs=16):
    lengths = torch.randint(4, MAX_LEN + 1, (bs,))
    ids = torch.randint(1, VOCAB, (bs, MAX_LEN))
    ids[torch.arange(MAX_LEN).unsqueeze(0) >= lengths.unsqueeze(1)] = 0
    labels = torch.randint(0, N_CLASSES, (bs,))
    return ids, labels


def main(steps=5):
    model = TextClassifier()
    trainer = Trainer(model)
    for step in range(steps):
        ids, labels = random_batch()
        loss = trainer.train_step(ids, labels)
        trainer.maybe_checkpoint(loss)
        print(f"step {step} loss {loss:.4f}")
    return model


def check_training():
    torch.manual_seed(0)
    model = main()
    missing = [name for name, p in model.named_parameters() if p.grad is None]
    assert not missing, f"parameters never reached by backward: {missing}"


if __name__ == "__main__":
    try:
        check_training()
    except AssertionError as err:
        print(f"BUGGY: {err}")
    else:
        raise SystemExit("NO BUG")
