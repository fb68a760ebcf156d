"""Distillation where the optimizer was built on the teacher instead of the student.

Both networks come from a small factory function of the file (`make_mlp(width)`), each call
constructing new layers. The teacher is frozen and run under no_grad; the student's loss
is backpropagated, but the optimizer holds the teacher's parameters, so the student keeps
its initial weights. The pattern (an `optimizer` built on the wrong one of two networks made
by the same helper) is the one described in PyTorch forum threads on distillation runs
whose "student accuracy never moves".
"""

import torch
import torch.nn.functional as F
from torch import nn

TEMPERATURE = 3.0


def make_mlp(width, n_classes=10):
    return nn.Sequential(
        nn.Linear(32, width),
        nn.ReLU(),
        nn.Linear(width, n_classes),
    )


def soft_targets(logits):
    return F.softmax(logits / TEMPERATURE, dim=-1)


def distill(steps=50):
    teacher = make_mlp(256)
    student = make_mlp(32)
    teacher.eval()
    optimizer = torch.optim.SGD(teacher.parameters(), lr=0.1)  # expect: GG608
    for step in range(steps):
        x = torch.randn(64, 32)
        with torch.no_grad():
            targets = soft_targets(teacher(x))
        log_probs = F.log_softmax(student(x) / TEMPERATURE, dim=-1)
        loss = F.kl_div(log_probs, targets, reduction="batchmean")
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return student


if __name__ == "__main__":
    distill()
