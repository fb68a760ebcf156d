"""GG609 look-alike - clipping with a GradScaler, where the unscale_ lives in a helper.

A sequence-regression Trainer uses torch.amp.GradScaler.  train_step() calls
scaler.scale(loss).backward() and then self.clip_gradients(), which FIRST calls
self.scaler.unscale_(self.optimizer) and only then clip_grad_norm_.  The
clipping therefore sees true gradients and scaler.step() does not unscale them
twice.  A checker that only looks inside train_step() for an unscale_ call
before clipping would flag this correct code.

Modelled on: https://github.com/harubaru/waifu-diffusion/issues/64 (correct counterpart)
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

CONFIG = {"feat": 5, "hidden": 32, "seq": 15, "lr": 3e-3, "epochs": 2, "batch": 8, "max_norm": 0.5,
          "use_amp": True}


class GRURegressor(nn.Module):
    def __init__(self, feat, hidden):
        super().__init__()
        self.gru = nn.GRU(feat, hidden, num_layers=2, batch_first=True)
        self.out = nn.Linear(hidden, 1)

    def forward(self, x):
        h, _ = self.gru(x)
        return self.out(h[:, -1]).squeeze(-1)


class Trainer:
    def __init__(self, model, cfg):
        self.model = model
        self.cfg = cfg
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=cfg["lr"], weight_decay=1e-2)
        self.scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(self.optimizer, T_max=10)
        self.scaler = torch.amp.GradScaler("cpu", enabled=cfg["use_amp"])
        self.grad_norms = []

    def clip_gradients(self):
        self.scaler.unscale_(self.optimizer)
        return nn.utils.clip_grad_norm_(self.model.parameters(), self.cfg["max_norm"])

    def train_step(self, x, y):
        self.optimizer.zero_grad(set_to_none=True)
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=self.cfg["use_amp"]):
            pred = self.model(x)
        loss = nn.functional.mse_loss(pred.float(), y)
        self.scaler.scale(loss).backward()
        self.grad_norms.append(self.clip_gradients().item())
        self.scaler.step(self.optimizer)
        self.scaler.update()
        return loss.item()

    def fit(self, loader):
        for epoch in range(self.cfg["epochs"]):
            self.model.train()
            losses = [self.train_step(x, y) for x, y in loader]
            self.scheduler.step()
            print(f"epoch {epoch} loss {sum(losses) / len(losses):.4f} "
                  f"last grad-norm {self.grad_norms[-1]:.3f}")


def main():
    torch.manual_seed(9)
    x = torch.randn(32, CONFIG["seq"], CONFIG["feat"])
    y = x[:, -3:, 0].sum(1)
    loader = DataLoader(TensorDataset(x, y), batch_size=CONFIG["batch"], shuffle=True)
    model = GRURegressor(CONFIG["feat"], CONFIG["hidden"])
    before = model.out.weight.detach().clone()
    trainer = Trainer(model, CONFIG)
    trainer.fit(loader)
    return before, model, trainer


if __name__ == "__main__":
    before, model, trainer = main()
    assert max(trainer.grad_norms) < 1e3          # clipping saw unscaled gradients
    assert (model.out.weight.detach() - before).abs().max() > 1e-3
    print("OK")
