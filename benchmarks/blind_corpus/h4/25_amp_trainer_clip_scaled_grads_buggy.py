"""GG609 - gradient clipping on gradients a GradScaler still scales (no unscale_).

The AMP Trainer does scaler.scale(loss).backward() and then clips with
clip_grad_norm_(max_norm=1.0) before scaler.step(). The gradients are still multiplied by
the loss scale (65536), so the measured norm is huge, clipping always fires against the
wrong threshold, and after scaler.step() unscales them the update is ~65536x too small:
the model effectively stops learning. No error is raised (silent).
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class Regressor(nn.Module):
    def __init__(self, d_in=8, hidden=32):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d_in, hidden), nn.GELU(), nn.Linear(hidden, hidden), nn.GELU(),
                                 nn.Linear(hidden, 1))

    def forward(self, x):
        return self.net(x).squeeze(-1)


class AMPTrainer:
    def __init__(self, model, lr=0.1, max_grad_norm=1.0, device="cpu"):
        self.device = torch.device(device)
        self.model = model.to(self.device)
        self.optimizer = torch.optim.SGD(model.parameters(), lr=lr)
        self.scaler = torch.amp.GradScaler(self.device.type)
        self.max_grad_norm = max_grad_norm
        self.grad_norms = []

    def train_step(self, x, y):
        self.optimizer.zero_grad(set_to_none=True)
        with torch.autocast(device_type=self.device.type, dtype=torch.bfloat16):
            pred = self.model(x)
        loss = nn.functional.mse_loss(pred.float(), y)
        self.scaler.scale(loss).backward()
        norm = torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.max_grad_norm)  # bug: GG609
        self.scaler.step(self.optimizer)
        self.scaler.update()
        self.grad_norms.append(norm.item())
        return loss.item()

    def train_epoch(self, loader):
        self.model.train()
        return [self.train_step(x.to(self.device), y.to(self.device)) for x, y in loader]


def reference_grad_norm(model, x, y):
    model.zero_grad()
    nn.functional.mse_loss(model(x), y).backward()
    norm = torch.sqrt(sum(p.grad.pow(2).sum() for p in model.parameters()))
    model.zero_grad()
    return norm.item()


def main():
    torch.manual_seed(0)
    x = torch.randn(128, 8)
    y = 2.0 * x[:, 0] - x[:, 1] ** 2
    loader = DataLoader(TensorDataset(x, y), batch_size=32)
    trainer = AMPTrainer(Regressor())
    ref = reference_grad_norm(trainer.model, x[:32], y[:32])
    before = [p.detach().clone() for p in trainer.model.parameters()]
    losses = trainer.train_epoch(loader)
    moved = max((a - b).abs().max().item() for a, b in zip(before, trainer.model.parameters()))
    print(f"true grad norm {ref:.3f}, clip saw {trainer.grad_norms[0]:.1f}, max param change {moved:.2e}")
    print(f"losses {[round(l, 3) for l in losses]}")
    return ref, trainer.grad_norms[0], moved


if __name__ == "__main__":
    ref, seen, moved = main()
    if seen > 1000 * ref and moved < 1e-4:
        print(f"BUGGY: clip_grad_norm_ measured the scaled norm ({seen:.0f} vs {ref:.2f}); updates vanished")
    else:
        raise SystemExit("NO BUG")
