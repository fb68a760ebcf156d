"""GG103 look-alike - .detach() on the teacher side of a distillation loss.

A mean-teacher setup: the EMA teacher's predictions are detached (and computed
under no_grad) and used as targets, while the student's predictions keep their
graph, so the consistency loss backpropagates into the student as intended.

Modelled on: https://github.com/haowang1992/DSN/issues/2 (detach used where it belongs)
"""
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

CFG = {"num_classes": 5, "epochs": 2, "lr": 0.05, "ema": 0.99, "w_cons": 1.0}


def make_student(num_classes):
    return nn.Sequential(
        nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
        nn.Flatten(), nn.Linear(16, num_classes),
    )


@torch.no_grad()
def ema_update(teacher, student, decay):
    for t, s in zip(teacher.parameters(), student.parameters()):
        t.mul_(decay).add_(s.detach(), alpha=1 - decay)


def consistency_loss(student_logits, teacher_logits):
    target = F.softmax(teacher_logits.detach(), dim=1)
    return F.kl_div(F.log_softmax(student_logits, dim=1), target, reduction="batchmean")


def train(student, teacher, loader, opt, cfg):
    losses = []
    for epoch in range(cfg["epochs"]):
        for x, y in loader:
            noisy = x + 0.1 * torch.randn_like(x)
            s_logits = student(x)
            with torch.no_grad():
                t_logits = teacher(noisy)
            loss = F.cross_entropy(s_logits, y) + cfg["w_cons"] * consistency_loss(s_logits, t_logits)
            opt.zero_grad()
            loss.backward()
            opt.step()
            ema_update(teacher, student, cfg["ema"])
            losses.append(loss.detach())
        print(f"epoch {epoch}: loss {torch.stack(losses[-4:]).mean():.3f}")
    return losses


def main():
    torch.manual_seed(0)
    x = torch.randn(40, 1, 16, 16)
    y = torch.randint(0, CFG["num_classes"], (40,))
    loader = DataLoader(TensorDataset(x, y), batch_size=10, shuffle=True)
    student = make_student(CFG["num_classes"])
    teacher = copy.deepcopy(student)
    for p in teacher.parameters():
        p.requires_grad_(False)
    opt = torch.optim.SGD(student.parameters(), lr=CFG["lr"])
    w0 = student[0].weight.detach().clone()
    train(student, teacher, loader, opt, CFG)
    assert student[0].weight.grad is not None
    assert not torch.equal(w0, student[0].weight)


if __name__ == "__main__":
    main()
    print("OK")
