"""GG605 - zero_grad() is called between backward() and step().

Mistake: `Trainer.train_step` back-propagates, measures the gradient norm for
the logs, and then "tidies up" with `self.optimizer.zero_grad()` *before*
`self.optimizer.step()`.  With the default `set_to_none=True` every `.grad` is
None when the step runs, so Adam skips every parameter.
Silent effect (no exception): the loss is computed and logged, the scheduler
advances, but no parameter ever changes.

Modelled on: https://github.com/patrickloeber/pytorchTutorial/issues/19
"""
import math
import os
import tempfile

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset, random_split


class Config:
    n_features = 12
    hidden = [64, 32]
    lr = 3e-3
    epochs = 3
    batch_size = 32
    warmup_steps = 4
    out_dir = tempfile.mkdtemp(prefix="reg_")


def build_mlp(n_in, hidden):
    layers, prev = [], n_in
    for h in hidden:
        layers += [nn.Linear(prev, h), nn.BatchNorm1d(h), nn.ReLU(), nn.Dropout(0.1)]
        prev = h
    layers.append(nn.Linear(prev, 1))
    return nn.Sequential(*layers)


class Trainer:
    def __init__(self, model, cfg, steps_per_epoch):
        self.model = model
        self.cfg = cfg
        self.optimizer = torch.optim.Adam(model.parameters(), lr=cfg.lr)
        total = cfg.epochs * steps_per_epoch
        warm = cfg.warmup_steps
        self.scheduler = torch.optim.lr_scheduler.LambdaLR(
            self.optimizer, lambda s: min(1.0, (s + 1) / warm) * 0.5 * (1 + math.cos(math.pi * s / total))
        )
        self.criterion = nn.SmoothL1Loss()
        self.log = []

    def _grad_norm(self):
        norms = [p.grad.norm() for p in self.model.parameters() if p.grad is not None]
        return torch.norm(torch.stack(norms)).item() if norms else 0.0

    def train_step(self, x, y):
        pred = self.model(x).squeeze(-1)
        loss = self.criterion(pred, y)
        loss.backward()
        self.log.append({"loss": loss.item(), "grad_norm": self._grad_norm(),
                         "lr": self.scheduler.get_last_lr()[0]})
        self.optimizer.zero_grad()  # bug: GG605
        self.optimizer.step()
        self.scheduler.step()
        return loss.item()

    @torch.no_grad()
    def evaluate(self, loader):
        self.model.eval()
        errs = [self.criterion(self.model(x).squeeze(-1), y).item() for x, y in loader]
        self.model.train()
        return sum(errs) / len(errs)

    def fit(self, train_loader, val_loader):
        self.model.train()
        for epoch in range(self.cfg.epochs):
            for x, y in train_loader:
                self.train_step(x, y)
            val = self.evaluate(val_loader)
            print(f"epoch {epoch}: train {self.log[-1]['loss']:.4f} val {val:.4f} "
                  f"|g| {self.log[-1]['grad_norm']:.3f}")
        torch.save(self.model.state_dict(), os.path.join(self.cfg.out_dir, "mlp.pt"))


def main():
    cfg = Config()
    x = torch.randn(160, cfg.n_features)
    w = torch.randn(cfg.n_features)
    y = x @ w + 0.1 * torch.randn(160)
    train_set, val_set = random_split(TensorDataset(x, y), [128, 32])
    train_loader = DataLoader(train_set, batch_size=cfg.batch_size, shuffle=True, drop_last=True)
    val_loader = DataLoader(val_set, batch_size=cfg.batch_size)
    model = build_mlp(cfg.n_features, cfg.hidden)
    initial = {k: v.detach().clone() for k, v in model.named_parameters()}
    Trainer(model, cfg, len(train_loader)).fit(train_loader, val_loader)
    return model, initial


def check_training():
    torch.manual_seed(0)
    model, initial = main()
    unchanged = [k for k, v in model.named_parameters() if torch.equal(v.detach(), initial[k])]
    assert not unchanged, f"{len(unchanged)} of {len(initial)} parameters never changed, e.g. {unchanged[:3]}"


if __name__ == "__main__":
    try:
        check_training()
    except AssertionError as err:
        print(f"BUGGY: {err}")
    else:
        raise SystemExit("NO BUG")
