"""Look-alike: @torch.no_grad() on the validation step, plain training step.

Modelled on: https://github.com/rasbt/faster-pytorch-blog/issues/8 (counterpart)

The decorator is on evaluate()/validation_step(), whose loss is only logged
(.item()), never backpropagated; the training step builds a normal graph.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class SmallClassifier(nn.Module):
    def __init__(self, in_dim=10, hidden=32, n_classes=3):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(in_dim, hidden), nn.ReLU())
        self.head = nn.Linear(hidden, n_classes)

    def forward(self, x):
        return self.head(self.body(x))


class LitTrainer:
    def __init__(self, model, lr=0.05):
        self.model = model
        self.optimizer = torch.optim.SGD(model.parameters(), lr=lr)
        self.val_history = []

    def training_step(self, batch):
        x, y = batch
        return F.cross_entropy(self.model(x), y)

    @torch.no_grad()
    def validation_step(self, batch):
        x, y = batch
        loss = F.cross_entropy(self.model(x), y)
        acc = (self.model(x).argmax(1) == y).float().mean()
        return loss, acc

    def fit(self, train_loader, val_loader, epochs=2):
        for _ in range(epochs):
            self.model.train()
            for batch in train_loader:
                self.optimizer.zero_grad()
                loss = self.training_step(batch)
                loss.backward()
                self.optimizer.step()
            self.model.eval()
            for batch in val_loader:
                vloss, acc = self.validation_step(batch)
                self.val_history.append((vloss.item(), acc.item()))


def make_loader(seed, n=48, bs=16):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, 10, generator=g)
    y = torch.randint(0, 3, (n,), generator=g)
    return [(x[i:i + bs], y[i:i + bs]) for i in range(0, n, bs)]


if __name__ == "__main__":
    t = LitTrainer(SmallClassifier())
    t.fit(make_loader(0), make_loader(1))
    assert len(t.val_history) == 6
    print("OK")
