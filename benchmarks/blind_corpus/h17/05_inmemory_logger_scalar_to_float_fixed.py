"""GG502 (fixed) - the logger detaches tensors before converting them with .numpy().

The training loop passes the loss tensor straight to an in-memory logger.
Its scalar_to_float() helper turns tensors into Python floats through
value.cpu().numpy(), but the loss still requires grad, so torch raised (the fix detaches inside scalar_to_float):
    RuntimeError: Can't call numpy() on Tensor that requires grad.
    Use tensor.detach().numpy() instead.

Modelled on: https://github.com/meta-pytorch/tnt/pull/551
"""
import os
import tempfile
from collections import defaultdict

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

CONFIG = {
    "in_features": 20,
    "num_classes": 3,
    "batch_size": 8,
    "lr": 1e-2,
    "max_epochs": 2,
    "log_every_n_steps": 1,
}


def scalar_to_float(scalar):
    """Accept python numbers, numpy scalars or 0-dim tensors."""
    if isinstance(scalar, float):
        return scalar
    if isinstance(scalar, torch.Tensor):
        if scalar.numel() != 1:
            raise ValueError(f"expected a scalar tensor, got shape {tuple(scalar.shape)}")
        scalar = scalar.detach().cpu().numpy()  # fixed: GG502
    if isinstance(scalar, np.ndarray):
        return float(scalar.item())
    return float(scalar)


class InMemoryLogger:
    def __init__(self, path=None):
        self.path = path
        self.log_buffer = defaultdict(list)

    def log(self, name, data, step):
        self.log_buffer[name].append((step, scalar_to_float(data)))

    def log_dict(self, payload, step):
        for k, v in payload.items():
            self.log(k, v, step)

    def flush(self):
        if self.path is None:
            return
        with open(self.path, "w") as f:
            for name, rows in self.log_buffer.items():
                for step, value in rows:
                    f.write(f"{name},{step},{value:.6f}\n")


class MLP(nn.Module):
    def __init__(self, d_in, n_cls):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d_in, 32), nn.ReLU(), nn.Dropout(0.1),
                                 nn.Linear(32, n_cls))

    def forward(self, x):
        return self.net(x)


class TrainUnit:
    def __init__(self, module, optimizer, logger, log_every):
        self.module = module
        self.optimizer = optimizer
        self.logger = logger
        self.log_every = log_every
        self.step = 0
        self.loss_fn = nn.CrossEntropyLoss()

    def train_step(self, batch):
        x, y = batch
        logits = self.module(x)
        loss = self.loss_fn(logits, y)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        self.step += 1
        if self.step % self.log_every == 0:
            acc = (logits.argmax(1) == y).float().mean()
            self.logger.log_dict({"train_loss": loss, "train_acc": acc}, self.step)
        return loss


def main():
    torch.manual_seed(0)
    x = torch.randn(32, CONFIG["in_features"])
    y = torch.randint(0, CONFIG["num_classes"], (32,))
    loader = DataLoader(TensorDataset(x, y), batch_size=CONFIG["batch_size"], shuffle=True)
    model = MLP(CONFIG["in_features"], CONFIG["num_classes"])
    opt = torch.optim.Adam(model.parameters(), lr=CONFIG["lr"])
    with tempfile.TemporaryDirectory() as tmp:
        logger = InMemoryLogger(os.path.join(tmp, "metrics.csv"))
        unit = TrainUnit(model, opt, logger, CONFIG["log_every_n_steps"])
        for epoch in range(CONFIG["max_epochs"]):
            for batch in loader:
                unit.train_step(batch)
        logger.flush()
        print(f"logged {len(logger.log_buffer['train_loss'])} loss values")


if __name__ == "__main__":
    main()
    print("FIXED: ok")
