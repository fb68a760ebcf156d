"""GG301 (buggy): manual SGD that updates model parameters in place with autograd on.

Mistake: a character-level GRU model trained without torch.optim: after clipping,
Trainer.sgd_update() walks model.parameters() and does p.add_(p.grad, alpha=-lr).
Parameters are leaf tensors with requires_grad=True, and the in-place add runs while
gradient recording is enabled, so autograd rejects it.
Error raised by torch: RuntimeError: a leaf Variable that requires grad is being used
in an in-place operation.
Modelled on: https://github.com/pytorch/examples/pull/779
"""
import sys
import string

import torch
import torch.nn as nn
import torch.nn.functional as F

TEXT = "the quick brown fox jumps over the lazy dog " * 8
VOCAB = sorted(set(TEXT))
STOI = {c: i for i, c in enumerate(VOCAB)}


class CharGRU(nn.Module):
    def __init__(self, vocab, emb=16, hidden=32):
        super().__init__()
        self.emb = nn.Embedding(vocab, emb)
        self.gru = nn.GRU(emb, hidden, batch_first=True)
        self.proj = nn.Linear(hidden, vocab)

    def forward(self, idx):
        out, _ = self.gru(self.emb(idx))
        return self.proj(out)


class Trainer:
    def __init__(self, model, lr=1.0, clip=0.25, seq_len=16, batch=4):
        self.model = model
        self.lr = lr
        self.clip = clip
        self.seq_len = seq_len
        self.batch = batch
        self.data = torch.tensor([STOI[c] for c in TEXT])
        self.step_count = 0

    def get_batch(self):
        starts = torch.randint(0, len(self.data) - self.seq_len - 1, (self.batch,))
        x = torch.stack([self.data[s:s + self.seq_len] for s in starts])
        y = torch.stack([self.data[s + 1:s + 1 + self.seq_len] for s in starts])
        return x, y

    def sgd_update(self):
        for p in self.model.parameters():
            if p.grad is not None:
                p.add_(p.grad, alpha=-self.lr)  # bug: GG301

    def train_step(self):
        self.model.train()
        x, y = self.get_batch()
        self.model.zero_grad()
        logits = self.model(x)
        loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), y.reshape(-1))
        loss.backward()
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.clip)
        self.sgd_update()
        self.step_count += 1
        return loss.item()

    def sample(self, start="t", n=10):
        self.model.eval()
        idx = torch.tensor([[STOI[start]]])
        with torch.no_grad():
            for _ in range(n):
                nxt = self.model(idx)[:, -1].argmax(-1, keepdim=True)
                idx = torch.cat([idx, nxt], 1)
        return "".join(VOCAB[i] for i in idx[0].tolist())


def main():
    torch.manual_seed(0)
    assert set(TEXT) <= set(string.ascii_lowercase + " ")
    trainer = Trainer(CharGRU(len(VOCAB)))
    for step in range(5):
        loss = trainer.train_step()
        print(f"step {step}: loss {loss:.3f}")
    print("sample:", trainer.sample())


if __name__ == "__main__":
    try:
        main()
    except RuntimeError as err:
        print(f"BUGGY: {str(err).splitlines()[0]}")
        sys.exit(0)
    raise SystemExit("NO BUG")
