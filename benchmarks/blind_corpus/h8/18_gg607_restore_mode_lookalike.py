"""GG607 look-alike - model.eval() inside the training loop, with the mode restored.

The GRU language model is evaluated every few iterations from inside the
training loop by `evaluate()`, which calls `model.eval()`.  There is no literal
`model.train()` after it in the loop, which looks like the bug - but `evaluate`
remembers `model.training` on entry and restores it with
`model.train(was_training)` in a `finally` block before returning.
Correct: every optimizer step runs with the model in train mode (dropout on).

Modelled on: https://github.com/joeynmt/joeynmt/issues/184
"""
import math

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

VOCAB, EMB, HID, SEQ = 50, 16, 32, 12
ITERS_PER_EVAL = 3
EPOCHS = 2


class GRULanguageModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, EMB)
        self.drop = nn.Dropout(0.3)
        self.rnn = nn.GRU(EMB, HID, num_layers=2, dropout=0.3, batch_first=True)
        self.proj = nn.Linear(HID, VOCAB)

    def forward(self, tokens):
        out, _ = self.rnn(self.drop(self.embed(tokens)))
        return self.proj(self.drop(out))


def evaluate(model, loader, criterion):
    was_training = model.training
    model.eval()
    try:
        total, count = 0.0, 0
        with torch.no_grad():
            for inp, tgt in loader:
                logits = model(inp)
                total += criterion(logits.reshape(-1, VOCAB), tgt.reshape(-1)).item() * tgt.numel()
                count += tgt.numel()
        return math.exp(total / count)
    finally:
        model.train(was_training)


def train(model, train_loader, dev_loader, optimizer, criterion):
    model.train()
    step = 0
    for epoch in range(EPOCHS):
        for inp, tgt in train_loader:
            optimizer.zero_grad()
            logits = model(inp)
            loss = criterion(logits.reshape(-1, VOCAB), tgt.reshape(-1))
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 0.25)
            optimizer.step()
            step += 1
            if step % ITERS_PER_EVAL == 0:
                ppl = evaluate(model, dev_loader, criterion)
                print(f"epoch {epoch} step {step}: train loss {loss.item():.3f} dev ppl {ppl:.1f}")


def make_loader(n, shuffle):
    seq = torch.randint(0, VOCAB, (n, SEQ + 1))
    return DataLoader(TensorDataset(seq[:, :-1], seq[:, 1:]), batch_size=8, shuffle=shuffle)


def check_training():
    torch.manual_seed(0)
    model = GRULanguageModel()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    modes = []
    optimizer.register_step_pre_hook(lambda o, a, k: modes.append(model.training))
    train(model, make_loader(64, True), make_loader(16, False), optimizer, nn.CrossEntropyLoss())
    assert all(modes), "some optimizer steps ran in eval mode"


if __name__ == "__main__":
    check_training()
    print("OK")
