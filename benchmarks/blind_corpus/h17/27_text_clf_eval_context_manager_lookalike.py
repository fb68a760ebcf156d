"""GG607 look-alike - model.eval() inside the training loop, restored by a context manager.

Every few steps the trainer evaluates on held-out data inside the batch loop.
The switch to eval mode happens through a small `evaluating(model)` context
manager which remembers the previous mode and restores it in `finally`, so
training resumes in train mode (dropout active, LayerNorm unaffected) --
checked by counting train-mode forward passes with a forward pre-hook.

Modelled on: none found (eval-mode context manager idiom)
"""
from contextlib import contextmanager

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

ARGS = dict(vocab=100, d_model=32, n_heads=4, n_layers=1, n_classes=3, seq_len=12,
            lr=5e-4, epochs=2, eval_every=2, batch_size=4)


@contextmanager
def evaluating(model):
    was_training = model.training
    try:
        model.eval()
        yield model
    finally:
        model.train(was_training)


class TransformerClassifier(nn.Module):
    def __init__(self, a):
        super().__init__()
        self.embed = nn.Embedding(a["vocab"], a["d_model"])
        layer = nn.TransformerEncoderLayer(a["d_model"], a["n_heads"], 64, dropout=0.2,
                                           batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, a["n_layers"], enable_nested_tensor=False)
        self.dropout = nn.Dropout(0.2)
        self.cls = nn.Linear(a["d_model"], a["n_classes"])

    def forward(self, tokens):
        h = self.encoder(self.embed(tokens))
        return self.cls(self.dropout(h.mean(dim=1)))


def evaluate(model, loader, criterion):
    total, correct, loss_sum = 0, 0, 0.0
    with evaluating(model), torch.no_grad():
        for x, y in loader:
            logits = model(x)
            loss_sum += criterion(logits, y).item() * len(y)
            correct += (logits.argmax(-1) == y).sum().item()
            total += len(y)
    return loss_sum / total, correct / total


def train(model, train_loader, val_loader, optimizer, criterion, a):
    step = 0
    for epoch in range(a["epochs"]):
        model.train()
        for x, y in train_loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
            step += 1
            if step % a["eval_every"] == 0:
                val_loss, val_acc = evaluate(model, val_loader, criterion)
                print(f"step {step}: train {loss.item():.3f} val {val_loss:.3f} acc {val_acc:.2f}")
    return step


def main():
    torch.manual_seed(0)
    x = torch.randint(0, ARGS["vocab"], (28, ARGS["seq_len"]))
    y = torch.randint(0, ARGS["n_classes"], (28,))
    train_loader = DataLoader(TensorDataset(x[:20], y[:20]), batch_size=ARGS["batch_size"], shuffle=True)
    val_loader = DataLoader(TensorDataset(x[20:], y[20:]), batch_size=ARGS["batch_size"])
    model = TransformerClassifier(ARGS)
    modes = []
    model.cls.register_forward_pre_hook(lambda m, inp: modes.append(m.training))
    optimizer = torch.optim.AdamW(model.parameters(), lr=ARGS["lr"])
    steps = train(model, train_loader, val_loader, optimizer, nn.CrossEntropyLoss(), ARGS)
    assert sum(modes) == steps  # every training forward ran in train mode


if __name__ == "__main__":
    main()
    print("OK")
