"""GG101 look-alike - torch.no_grad() around a forward pass, but not the loss.

A mean-teacher setup: the EMA teacher's predictions are produced under
torch.no_grad() and cached on self, and they are only used as soft *targets*.
The loss itself is built from the student's forward pass, which has a graph,
so backward() works and the student learns. Nothing is wrong here.

Modelled on: https://github.com/Lightning-AI/pytorch-lightning/issues/19517
"""
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

CFG = dict(in_dim=12, hidden=24, classes=4, batch_size=8, lr=5e-3, ema=0.9, temp=2.0)


def make_net(cfg):
    return nn.Sequential(
        nn.Linear(cfg["in_dim"], cfg["hidden"]),
        nn.ReLU(),
        nn.Dropout(0.1),
        nn.Linear(cfg["hidden"], cfg["classes"]),
    )


class MeanTeacher:
    def __init__(self, student, cfg):
        self.cfg = cfg
        self.student = student
        self.teacher = copy.deepcopy(student)
        for p in self.teacher.parameters():
            p.requires_grad_(False)
        self.optimizer = torch.optim.Adam(student.parameters(), lr=cfg["lr"])
        self.teacher_probs = None

    @torch.no_grad()
    def update_teacher(self):
        for t, s in zip(self.teacher.parameters(), self.student.parameters()):
            t.mul_(self.cfg["ema"]).add_(s, alpha=1 - self.cfg["ema"])

    def soft_targets(self, x):
        with torch.no_grad():
            self.teacher_probs = F.softmax(self.teacher(x) / self.cfg["temp"], dim=-1)
        return self.teacher_probs

    def train_step(self, x, y):
        targets = self.soft_targets(x)
        logits = self.student(x)
        ce = F.cross_entropy(logits, y)
        kd = F.kl_div(F.log_softmax(logits / self.cfg["temp"], dim=-1), targets,
                      reduction="batchmean")
        loss = ce + 0.5 * kd
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        self.update_teacher()
        return loss.item()


def main():
    torch.manual_seed(1)
    x = torch.randn(48, CFG["in_dim"])
    y = torch.randint(0, CFG["classes"], (48,))
    loader = DataLoader(TensorDataset(x, y), batch_size=CFG["batch_size"], shuffle=True)
    student = make_net(CFG)
    before = [p.detach().clone() for p in student.parameters()]
    mt = MeanTeacher(student, CFG)
    for epoch in range(2):
        losses = [mt.train_step(xb, yb) for xb, yb in loader]
        print(f"epoch {epoch}: mean loss {sum(losses) / len(losses):.4f}")
    moved = any(not torch.equal(b, p) for b, p in zip(before, student.parameters()))
    assert moved, "student did not train"
    assert mt.teacher_probs.grad_fn is None


if __name__ == "__main__":
    main()
    print("OK")
