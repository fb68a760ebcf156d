"""GG601 look-alike - gradients are cleared, just not where one expects.

A ``Trainer`` class for a small sequence classifier has a ``train_step`` that
starts with forward/backward/step and never calls ``optimizer.zero_grad()``.
It looks like the missing-zero_grad bug, but the step ends with
``self.model.zero_grad(set_to_none=True)`` and the trainer also clears grads
once before the first step, so every backward starts from empty gradients.
Runs cleanly; each step's gradient is exactly that batch's gradient.

Modelled on: https://github.com/yastrebksv/TennisCourtDetector/issues/7 (correct variant)
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class GRUClassifier(nn.Module):
    def __init__(self, n_feat=6, hidden=16, n_cls=3):
        super().__init__()
        self.gru = nn.GRU(n_feat, hidden, batch_first=True)
        self.fc = nn.Linear(hidden, n_cls)

    def forward(self, x):
        _, h = self.gru(x)
        return self.fc(h[-1])


class Trainer:
    def __init__(self, model, lr=1e-2, clip=1.0):
        self.model = model
        self.optimizer = torch.optim.RMSprop(model.parameters(), lr=lr)
        self.criterion = nn.CrossEntropyLoss()
        self.clip = clip
        self.global_step = 0
        self.grad_ok = []
        self.model.zero_grad(set_to_none=True)

    def _check(self, loss):
        expected = torch.autograd.grad(loss, list(self.model.parameters()), retain_graph=True)
        return expected

    def train_step(self, x, y):
        self.model.train()
        loss = self.criterion(self.model(x), y)
        expected = self._check(loss)
        loss.backward()
        self.grad_ok.append(all(torch.allclose(p.grad, e, atol=1e-6)
                                for p, e in zip(self.model.parameters(), expected)))
        nn.utils.clip_grad_norm_(self.model.parameters(), self.clip)
        self.optimizer.step()
        self.model.zero_grad(set_to_none=True)
        self.global_step += 1
        return loss.item()

    def train_epoch(self, loader, epoch):
        total = 0.0
        for i, (x, y) in enumerate(loader):
            total += self.train_step(x, y)
        print(f"epoch {epoch}: mean loss {total / (i + 1):.4f}")


def main():
    torch.manual_seed(0)
    x = torch.randn(24, 10, 6)
    y = torch.randint(0, 3, (24,))
    loader = DataLoader(TensorDataset(x, y), batch_size=6)
    trainer = Trainer(GRUClassifier())
    for epoch in range(2):
        trainer.train_epoch(loader, epoch)
    assert all(trainer.grad_ok)


if __name__ == "__main__":
    main()
    print("OK")
