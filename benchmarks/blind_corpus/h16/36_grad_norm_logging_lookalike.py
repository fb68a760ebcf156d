"""GG407 look-alike: .grad read in several places, always after backward() or None-guarded.

The Trainer computes per-layer gradient norms for logging right after loss.backward(),
adds gradient noise between backward() and step(), and its resume-check helper (run
before any backward) reads p.grad only behind an `is None` guard. Correct code.

Modelled on: https://github.com/TheMody/No-learning-rates-needed-Introducing-SALSA-Stable-Armijo-Line-Search-Adaptation/issues/1
(gradients read inside an optimizer step, here after backward)
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class Regressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(6, 24), nn.Tanh(), nn.Linear(24, 1))

    def forward(self, x):
        return self.body(x).squeeze(-1)


class Trainer:
    def __init__(self, model, lr=1e-2, noise_std=1e-3):
        self.model = model
        self.optimizer = torch.optim.Adam(model.parameters(), lr=lr)
        self.noise_std = noise_std
        self.grad_log = []

    def grads_are_clean(self):
        return all(p.grad is None or torch.isfinite(p.grad).all() for p in self.model.parameters())

    def log_grad_norms(self):
        norms = {n: p.grad.detach().norm().item() for n, p in self.model.named_parameters()
                 if p.grad is not None}
        self.grad_log.append(norms)
        return norms

    def add_grad_noise(self):
        for p in self.model.parameters():
            p.grad.add_(torch.randn_like(p.grad) * self.noise_std)

    def train_step(self, x, y):
        self.optimizer.zero_grad()
        loss = nn.functional.mse_loss(self.model(x), y)
        loss.backward()
        self.log_grad_norms()
        self.add_grad_noise()
        nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
        self.optimizer.step()
        return loss.item()


def main():
    torch.manual_seed(0)
    x = torch.randn(40, 6)
    y = x.sum(1)
    loader = DataLoader(TensorDataset(x, y), batch_size=10, shuffle=True)
    trainer = Trainer(Regressor())
    assert trainer.grads_are_clean()
    for epoch in range(2):
        losses = [trainer.train_step(xb, yb) for xb, yb in loader]
        print(f"epoch {epoch}: loss {sum(losses) / len(losses):.4f}, "
              f"last grad norm {trainer.grad_log[-1]['body.0.weight']:.4f}")


if __name__ == "__main__":
    main()
    print("OK")
