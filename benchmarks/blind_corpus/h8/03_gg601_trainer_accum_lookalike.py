"""GG601 look-alike - gradients are cleared, just not by a literal `optimizer.zero_grad()`.

This trainer accumulates gradients over two micro-batches (loss divided by the
number of micro-batches) and clears them through its own `_reset_grads()` helper,
which calls `model.zero_grad(set_to_none=True)` right after each optimizer step
and once before the first batch.  The loop body contains `backward()` and
`step()` but no `zero_grad()` call, which a careless checker could flag.
Correct: every optimizer step sees exactly the gradients of its own window.

Modelled on: https://github.com/openpifpaf/openpifpaf/issues/123
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

CONFIG = {
    "num_classes": 4,
    "batch_size": 8,
    "accumulate": 2,
    "epochs": 1,
    "lr": 0.05,
    "momentum": 0.9,
    "max_grad_norm": 100.0,
}


class SmallConvNet(nn.Module):
    def __init__(self, num_classes):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, padding=1)
        self.conv2 = nn.Conv2d(8, 16, 3, padding=1)
        self.pool = nn.MaxPool2d(2)
        self.head = nn.Linear(16 * 4 * 4, num_classes)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        return self.head(torch.flatten(x, 1))


class Trainer:
    def __init__(self, model, loader, cfg):
        self.model = model
        self.loader = loader
        self.cfg = cfg
        self.optimizer = torch.optim.SGD(model.parameters(), lr=cfg["lr"], momentum=cfg["momentum"])
        self.criterion = nn.CrossEntropyLoss()
        self.global_step = 0
        self.history = []

    def _reset_grads(self):
        # set_to_none avoids a memset and makes "no gradient yet" explicit
        self.model.zero_grad(set_to_none=True)

    def _apply_gradients(self):
        nn.utils.clip_grad_norm_(self.model.parameters(), self.cfg["max_grad_norm"])
        self.optimizer.step()
        self.global_step += 1
        self._reset_grads()

    def train_epoch(self):
        self.model.train()
        accumulate = self.cfg["accumulate"]
        self._reset_grads()
        running = 0.0
        for i, (images, labels) in enumerate(self.loader):
            logits = self.model(images)
            loss = self.criterion(logits, labels) / accumulate
            loss.backward()
            running += loss.item()
            if (i + 1) % accumulate == 0:
                self._apply_gradients()
                self.history.append(running)
                running = 0.0
        return self.history

    def fit(self):
        for epoch in range(self.cfg["epochs"]):
            hist = self.train_epoch()
            print(f"epoch {epoch}: {len(hist)} optimizer steps, last loss {hist[-1]:.4f}")


def make_loader(cfg, n=64):
    images = torch.randn(n, 1, 16, 16)
    labels = torch.randint(0, cfg["num_classes"], (n,))
    return DataLoader(TensorDataset(images, labels), batch_size=cfg["batch_size"], shuffle=False)


def check_training():
    torch.manual_seed(0)
    model = SmallConvNet(CONFIG["num_classes"])
    trainer = Trainer(model, make_loader(CONFIG), CONFIG)
    probe = model.head.weight
    fresh, seen = [], []
    probe.register_hook(lambda g: fresh.append(g.detach().clone()))
    trainer.optimizer.register_step_pre_hook(lambda opt, a, kw: seen.append(probe.grad.detach().clone()))
    trainer.fit()
    acc = CONFIG["accumulate"]
    for k, g in enumerate(seen):
        window = sum(fresh[k * acc:(k + 1) * acc])
        assert torch.allclose(g, window, atol=1e-6), f"step {k} saw gradients from another window"


if __name__ == "__main__":
    check_training()
    print("OK")
