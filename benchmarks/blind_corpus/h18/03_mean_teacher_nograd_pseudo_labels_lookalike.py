"""GG101 look-alike - mean-teacher training with a @torch.no_grad() teacher helper.

The teacher's soft targets come from a method decorated with @torch.no_grad(),
and the consistency loss is backpropagated.  That is correct: the no-grad value
is only the target; the loss is a function of the student's outputs, which do
have a graph, so backward() reaches the student.  Prints OK.

Modelled on: none found
"""
import copy
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


@dataclass
class Config:
    in_dim: int = 12
    n_classes: int = 4
    batch_size: int = 16
    lr: float = 5e-3
    ema_decay: float = 0.95
    consistency_weight: float = 0.5
    epochs: int = 2


class MLP(nn.Module):
    def __init__(self, in_dim, n_classes):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(in_dim, 32), nn.ReLU(), nn.Dropout(0.1), nn.Linear(32, n_classes))

    def forward(self, x):
        return self.body(x)


class MeanTeacherTrainer:
    def __init__(self, cfg, student):
        self.cfg = cfg
        self.student = student
        self.teacher = copy.deepcopy(student)
        for p in self.teacher.parameters():
            p.requires_grad_(False)
        self.optimizer = torch.optim.Adam(self.student.parameters(), lr=cfg.lr)
        self.history = []

    @torch.no_grad()
    def teacher_targets(self, x):
        self.teacher.eval()
        return F.softmax(self.teacher(x + 0.05 * torch.randn_like(x)), dim=-1)

    @torch.no_grad()
    def update_teacher(self):
        for t, s in zip(self.teacher.parameters(), self.student.parameters()):
            t.mul_(self.cfg.ema_decay).add_(s, alpha=1 - self.cfg.ema_decay)

    def compute_loss(self, x, y):
        logits = self.student(x)
        sup = F.cross_entropy(logits, y)
        targets = self.teacher_targets(x)
        cons = F.mse_loss(F.softmax(logits, dim=-1), targets)
        return {"sup": sup, "cons": cons, "total": sup + self.cfg.consistency_weight * cons}

    def train_step(self, x, y):
        self.student.train()
        self.optimizer.zero_grad()
        losses = self.compute_loss(x, y)
        losses["total"].backward()
        self.optimizer.step()
        self.update_teacher()
        return {k: v.item() for k, v in losses.items()}

    def train_epoch(self, loader):
        for x, y in loader:
            self.history.append(self.train_step(x, y))


def main():
    torch.manual_seed(0)
    cfg = Config()
    x = torch.randn(64, cfg.in_dim)
    y = torch.randint(0, cfg.n_classes, (64,))
    loader = DataLoader(TensorDataset(x, y), batch_size=cfg.batch_size, shuffle=True)
    trainer = MeanTeacherTrainer(cfg, MLP(cfg.in_dim, cfg.n_classes))
    w0 = trainer.student.body[0].weight.detach().clone()
    for epoch in range(cfg.epochs):
        trainer.train_epoch(loader)
        print(f"epoch {epoch}: {trainer.history[-1]}")
    assert not torch.equal(w0, trainer.student.body[0].weight)


if __name__ == "__main__":
    main()
    print("OK")
