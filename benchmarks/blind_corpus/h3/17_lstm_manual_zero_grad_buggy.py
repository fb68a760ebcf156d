"""GG407 - .grad used before any backward ran (it is None).

A char-level LSTM is trained with a hand-written SGD loop.  A helper
`reset_grads(model)` zeroes each parameter's .grad in place at the *top* of
every iteration, i.e. before the first backward() has created any
gradient.  On the very first step p.grad is still None:
AttributeError: 'NoneType' object has no attribute 'zero_'
"""
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F


class CharLSTM(nn.Module):
    def __init__(self, vocab=20, emb=8, hidden=32):
        super().__init__()
        self.emb = nn.Embedding(vocab, emb)
        self.lstm = nn.LSTM(emb, hidden, batch_first=True)
        self.out = nn.Linear(hidden, vocab)

    def forward(self, x):
        h, _ = self.lstm(self.emb(x))
        return self.out(h)


def reset_grads(model):
    for p in model.parameters():
        p.grad.zero_()  # bug: GG407


@torch.no_grad()
def sgd_step(model, lr, max_norm=1.0):
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    for p in model.parameters():
        p.add_(p.grad, alpha=-lr)


def batches(text_ids, seq_len=12, bs=4):
    n = (len(text_ids) - 1) // seq_len
    for i in range(0, n - bs + 1, bs):
        xs = [text_ids[(i + j) * seq_len:(i + j + 1) * seq_len] for j in range(bs)]
        ys = [text_ids[(i + j) * seq_len + 1:(i + j + 1) * seq_len + 1] for j in range(bs)]
        yield torch.stack(xs), torch.stack(ys)


def train(model, text_ids, epochs=2, lr=0.5):
    model.train()
    for epoch in range(epochs):
        total, count = 0.0, 0
        for x, y in batches(text_ids):
            reset_grads(model)
            logits = model(x)
            loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), y.reshape(-1))
            loss.backward()
            sgd_step(model, lr)
            total += loss.item()
            count += 1
        print(f"epoch {epoch}: ppl {torch.exp(torch.tensor(total / count)):.2f}")


def main():
    torch.manual_seed(0)
    text_ids = torch.randint(0, 20, (400,))
    model = CharLSTM()
    train(model, text_ids)


if __name__ == "__main__":
    try:
        main()
    except AttributeError as e:
        print(f"BUGGY: {str(e).splitlines()[0]}")
        sys.exit(0)
    raise SystemExit("NO BUG")
