"""GG109 - `loss.requires_grad = True` hides a forward pass run under torch.no_grad().

The forecaster's train_step copied its `with` line from the validation step, so the
forward runs under torch.no_grad() (next to autocast). To get past the backward()
error, the author set `loss.requires_grad = True`. backward() now runs without error,
but the loss is a leaf with no history: the GRU's parameters never get a gradient and
do not change (silent; training does nothing).
"""
import os
import tempfile

import torch
import torch.nn as nn


class GRUForecaster(nn.Module):
    def __init__(self, n_features=3, hidden=16, horizon=2):
        super().__init__()
        self.gru = nn.GRU(n_features, hidden, batch_first=True, num_layers=2, dropout=0.1)
        self.head = nn.Linear(hidden, horizon)

    def forward(self, x):
        out, _ = self.gru(x)
        return self.head(out[:, -1])


class Trainer:
    def __init__(self, model, lr=1e-2, device="cpu"):
        self.model, self.device = model.to(device), device
        self.criterion = nn.HuberLoss()
        self.optimizer = torch.optim.Adam(model.parameters(), lr=lr)
        self.metrics = {"train": [], "val": []}

    def train_step(self, x, y):
        self.model.train()
        with torch.autocast(self.device, dtype=torch.bfloat16), torch.no_grad():
            preds = self.model(x)
            loss = self.criterion(preds.float(), y)
        loss.requires_grad = True  # bug: GG109
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
        self.optimizer.step()
        return loss.item()

    def val_step(self, x, y):
        self.model.eval()
        with torch.autocast(self.device, dtype=torch.bfloat16), torch.no_grad():
            return self.criterion(self.model(x).float(), y).item()

    def fit(self, series, targets, epochs, ckpt_dir, batch=8):
        split = int(0.75 * len(series))
        for epoch in range(epochs):
            losses = [self.train_step(series[i:i + batch], targets[i:i + batch]) for i in range(0, split, batch)]
            self.metrics["train"].append(sum(losses) / len(losses))
            self.metrics["val"].append(self.val_step(series[split:], targets[split:]))
            print(f"epoch {epoch}: train={self.metrics['train'][-1]:.4f} val={self.metrics['val'][-1]:.4f}")
        torch.save(self.model.state_dict(), os.path.join(ckpt_dir, "gru.pt"))


def main():
    torch.manual_seed(0)
    series = torch.randn(32, 10, 3)
    targets = series[:, -2:, 0] * 0.5
    model = GRUForecaster()
    before = [p.detach().clone() for p in model.parameters()]
    with tempfile.TemporaryDirectory() as tmp:
        Trainer(model).fit(series, targets, epochs=2, ckpt_dir=tmp)
    return any(not torch.equal(a, p) for a, p in zip(before, model.parameters()))


if __name__ == "__main__":
    if main():
        raise SystemExit("NO BUG")
    print("BUGGY: GRU weights identical after 2 epochs of optimizer steps (loss had no history)")
