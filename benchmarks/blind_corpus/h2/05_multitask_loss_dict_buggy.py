"""GG202: multi-task trainer calls backward() once per task loss over a shared encoder.

Category GG202. A shared CNN encoder feeds a classification head and a regression head.
``compute_losses`` returns a dict of per-task losses and ``train_step`` back-propagates
each entry in turn. The first backward() frees the encoder's part of the graph, which is
shared by every task, so the second task's backward() needs buffers that are gone.
Torch raises: RuntimeError: Trying to backward through the graph a second time (or directly
access saved tensors after they have already been freed). ...
"""
import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class MultiTaskNet(nn.Module):
    def __init__(self, n_classes=4):
        super().__init__()
        self.encoder = nn.Sequential(
            nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
        )
        self.cls_head = nn.Linear(16, n_classes)
        self.reg_head = nn.Linear(16, 1)

    def forward(self, x):
        feats = self.encoder(x)
        return {"logits": self.cls_head(feats), "angle": self.reg_head(feats).squeeze(-1)}


class MultiTaskTrainer:
    def __init__(self, model, weights=None, lr=1e-3, ckpt_dir=None):
        self.model = model
        self.weights = weights or {"cls": 1.0, "reg": 0.5}
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
        self.ckpt_dir = ckpt_dir or tempfile.mkdtemp()
        self.global_step = 0

    def compute_losses(self, outputs, labels, angles):
        return {
            "cls": self.weights["cls"] * F.cross_entropy(outputs["logits"], labels),
            "reg": self.weights["reg"] * F.smooth_l1_loss(outputs["angle"], angles),
        }

    def train_step(self, images, labels, angles):
        self.optimizer.zero_grad(set_to_none=True)
        losses = self.compute_losses(self.model(images), labels, angles)
        for name, loss in losses.items():
            loss.backward()  # bug: GG202
        self.optimizer.step()
        self.global_step += 1
        return {k: v.item() for k, v in losses.items()}

    def train_epoch(self, loader, epoch):
        self.model.train()
        for images, labels, angles in loader:
            logs = self.train_step(images, labels, angles)
            if self.global_step % 4 == 0:
                print(f"[{epoch}:{self.global_step}] " + " ".join(f"{k}={v:.3f}" for k, v in logs.items()))
        path = os.path.join(self.ckpt_dir, f"epoch{epoch}.pt")
        torch.save({"model": self.model.state_dict(), "step": self.global_step}, path)
        return path


def main():
    torch.manual_seed(3)
    images = torch.randn(48, 1, 12, 12)
    labels = torch.randint(0, 4, (48,))
    angles = torch.rand(48) * 3.14
    loader = DataLoader(TensorDataset(images, labels, angles), batch_size=8, shuffle=True)
    with tempfile.TemporaryDirectory() as ckpt_dir:
        trainer = MultiTaskTrainer(MultiTaskNet(), ckpt_dir=ckpt_dir)
        for epoch in range(2):
            print("saved", trainer.train_epoch(loader, epoch))


if __name__ == "__main__":
    try:
        main()
    except RuntimeError as err:
        print(f"BUGGY: {str(err).splitlines()[0]}")
        raise SystemExit(0)
    raise SystemExit("NO BUG")
