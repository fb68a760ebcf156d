"""GG102 look-alike - .item(), float() and .tolist() used for logging next to backward().

Correct code. The loop takes `loss.item()` for a divergence check, keeps `float(loss.detach())`
in a history list and `.tolist()`s the predictions for a report, but backward() is
always called on the loss *tensor*, never on the extracted numbers.
"""
import math

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def compute_loss(model, batch, criterion):
    x, y = batch
    logits = model(x)
    return criterion(logits, y), logits


def log_metrics(step, loss_value, preds):
    if step % 2 == 0:
        print(f"step {step}: loss={loss_value:.4f} first preds={preds[:4]}")


def train(model, loader, optimizer, criterion, epochs=2):
    history = []
    step = 0
    for epoch in range(epochs):
        for batch in loader:
            loss, logits = compute_loss(model, batch, criterion)
            loss_value = loss.item()
            if not math.isfinite(loss_value):
                raise RuntimeError(f"non-finite loss {loss_value}")
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            history.append(float(loss.detach()))
            log_metrics(step, loss_value, logits.argmax(-1).tolist())
            step += 1
    return history


def main():
    torch.manual_seed(0)
    x, y = torch.randn(40, 8), torch.randint(0, 3, (40,))
    loader = DataLoader(TensorDataset(x, y), batch_size=10, shuffle=True)
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 3))
    before = model[0].weight.detach().clone()
    history = train(model, loader, torch.optim.Adam(model.parameters(), lr=1e-2), nn.CrossEntropyLoss())
    assert len(history) == 8 and not torch.equal(before, model[0].weight)


if __name__ == "__main__":
    main()
    print("OK")
