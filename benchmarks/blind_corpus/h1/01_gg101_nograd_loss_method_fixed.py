"""GG101 (fixed) - the training loss is computed with autograd enabled.

Fix: `_loss` no longer carries @torch.no_grad(); only `validate` disables grad,
so the training loss keeps its graph and backward() works.

Mistake fixed: backward() on a loss produced by a @torch.no_grad() method.
The buggy version fails with RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class MLP(nn.Module):
    def __init__(self, in_dim=16, hidden=32, n_classes=4):
        super().__init__()
        self.body = nn.Sequential(
            nn.Linear(in_dim, hidden), nn.ReLU(), nn.Dropout(0.1),
            nn.Linear(hidden, hidden), nn.ReLU(),
        )
        self.head = nn.Linear(hidden, n_classes)

    def forward(self, x):
        return self.head(self.body(x))


class Trainer:
    def __init__(self, model, optimizer, criterion, device="cpu"):
        self.model = model.to(device)
        self.optimizer = optimizer
        self.criterion = criterion
        self.device = device
        self.history = {"train": [], "val": []}

    def _loss(self, batch):
        x, y = (t.to(self.device) for t in batch)
        logits = self.model(x)
        return self.criterion(logits, y)

    def train_step(self, batch):
        self.model.train()
        self.optimizer.zero_grad()
        loss = self._loss(batch)
        loss.backward()  # fixed: GG101
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
        self.optimizer.step()
        return loss.item()

    @torch.no_grad()
    def validate(self, loader):
        self.model.eval()
        losses = [self._loss(b).item() for b in loader]
        return sum(losses) / max(len(losses), 1)

    def train_epoch(self, loader, val_loader):
        epoch_losses = [self.train_step(batch) for batch in loader]
        self.history["train"].append(sum(epoch_losses) / len(epoch_losses))
        self.history["val"].append(self.validate(val_loader))
        return self.history["train"][-1]


def main():
    torch.manual_seed(0)
    x, y = torch.randn(64, 16), torch.randint(0, 4, (64,))
    train_loader = DataLoader(TensorDataset(x[:48], y[:48]), batch_size=16, shuffle=True)
    val_loader = DataLoader(TensorDataset(x[48:], y[48:]), batch_size=16)
    model = MLP()
    trainer = Trainer(model, torch.optim.AdamW(model.parameters(), lr=1e-3), nn.CrossEntropyLoss())
    for epoch in range(2):
        loss = trainer.train_epoch(train_loader, val_loader)
        print(f"epoch {epoch}: train={loss:.4f} val={trainer.history['val'][-1]:.4f}")


if __name__ == "__main__":
    main()
    print("FIXED: ok")
