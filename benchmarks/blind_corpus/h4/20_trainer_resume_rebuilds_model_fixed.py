"""GG604 - optimizer built before the model's parameters were replaced (fixed).

resume() loads the checkpoint into the existing model instance (load_state_dict copies in
place), so the optimizer keeps pointing at the live parameters.
"""
import os
import tempfile

import torch
import torch.nn as nn


def build_model():
    return nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 1))


class Trainer:
    def __init__(self, lr=1e-2, ckpt_dir="."):
        self.model = build_model()
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=lr)
        self.ckpt_path = os.path.join(ckpt_dir, "last.pt")
        self.epoch = 0

    def save(self):
        torch.save({"model": self.model.state_dict(), "optim": self.optimizer.state_dict(), "epoch": self.epoch},
                   self.ckpt_path)

    def resume(self):
        state = torch.load(self.ckpt_path)
        self.model.load_state_dict(state["model"])  # fixed: GG604
        self.optimizer.load_state_dict(state["optim"])
        self.epoch = state["epoch"]

    def train_step(self, x, y):
        pred = self.model(x).squeeze(-1)
        loss = nn.functional.mse_loss(pred, y)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item()

    def train_epoch(self, x, y, bs=16):
        losses = [self.train_step(x[i:i + bs], y[i:i + bs]) for i in range(0, len(x), bs)]
        self.epoch += 1
        return sum(losses) / len(losses)


def main():
    torch.manual_seed(0)
    x = torch.randn(64, 4)
    y = torch.sin(x[:, 0]) + x[:, 1]
    with tempfile.TemporaryDirectory() as tmp:
        trainer = Trainer(ckpt_dir=tmp)
        for _ in range(2):
            trainer.train_epoch(x, y)
        trainer.save()
        trainer.resume()
        snapshot = [p.detach().clone() for p in trainer.model.parameters()]
        losses = [trainer.train_epoch(x, y) for _ in range(3)]
        print(f"epochs after resume: {losses}")
    frozen = all(torch.equal(a, b) for a, b in zip(snapshot, trainer.model.parameters()))
    return frozen


if __name__ == "__main__":
    frozen = main()
    assert not frozen
    print("FIXED: ok")
