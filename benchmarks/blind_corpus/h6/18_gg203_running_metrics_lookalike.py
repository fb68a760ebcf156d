"""GG203 look-alike (correct code): loss sums and loss lists that hold no graph.

A CNN classifier trainer keeps several running statistics that look like the leak:
`running_loss += loss.item()` (a float), `self.batch_losses.append(loss.detach())`
(no history), a validation total `val_loss += criterion(...)` computed inside
torch.no_grad() (no graph to keep), and an in-step sum of per-head losses that is
backpropagated right away within the same iteration. Nothing survives with a graph.
Modelled on: none found (correct counterpart of the reports behind 16/17)
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class SmallCNN(nn.Module):
    def __init__(self, n_classes=4):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                                      nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1))
        self.main_head = nn.Linear(16, n_classes)
        self.aux_head = nn.Linear(16, n_classes)

    def forward(self, x):
        f = self.features(x).flatten(1)
        return self.main_head(f), self.aux_head(f)


class Trainer:
    def __init__(self, model, lr=1e-2):
        self.model = model
        self.criterion = nn.CrossEntropyLoss()
        self.optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
        self.batch_losses = []
        self.history = {"train": [], "val": []}

    def train_epoch(self, loader):
        self.model.train()
        running_loss = 0.0
        for step, (x, y) in enumerate(loader):
            self.optimizer.zero_grad()
            main_out, aux_out = self.model(x)
            loss = 0
            for out, w in ((main_out, 1.0), (aux_out, 0.4)):
                loss += w * self.criterion(out, y)
            loss.backward()
            self.optimizer.step()
            running_loss += loss.item()
            self.batch_losses.append(loss.detach())
        self.history["train"].append(running_loss / (step + 1))

    def validate(self, loader):
        self.model.eval()
        val_loss = 0
        with torch.no_grad():
            for x, y in loader:
                val_loss += self.criterion(self.model(x)[0], y)
        self.history["val"].append(val_loss / len(loader))


def main():
    torch.manual_seed(0)
    x = torch.randn(40, 1, 8, 8)
    y = torch.randint(0, 4, (40,))
    train_loader = DataLoader(TensorDataset(x[:32], y[:32]), batch_size=8, shuffle=True)
    val_loader = DataLoader(TensorDataset(x[32:], y[32:]), batch_size=8)
    trainer = Trainer(SmallCNN())
    for epoch in range(2):
        trainer.train_epoch(train_loader)
        trainer.validate(val_loader)
        print(f"epoch {epoch}: train {trainer.history['train'][-1]:.4f} val {trainer.history['val'][-1]:.4f}")
    assert all(t.grad_fn is None for t in trainer.batch_losses)
    assert trainer.history["val"][-1].grad_fn is None


if __name__ == "__main__":
    main()
    print("OK")
