"""GG301 look-alike: in-place updates of model parameters outside torch.no_grad().

A mean-teacher semi-supervised setup.  The teacher is a deep copy of the
student, and after every student step its parameters are updated in place with
``t.mul_(decay).add_(s.detach(), alpha=1 - decay)``, with grad mode on.  The weights are
also initialised in place via ``.data.normal_()`` and ``nn.init.zeros_``.  None
of it is an in-place op on a leaf that requires grad: the teacher's parameters
were switched to ``requires_grad_(False)`` right after the copy, the student
parameter is only a detached argument, ``.data`` is not tracked and ``nn.init``
functions work under no_grad internally.
Modelled on: none (counter-example to https://github.com/pytorch/examples/pull/779)
"""
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

CONFIG = {"ema_decay": 0.99, "consistency": 1.0, "lr": 0.05, "epochs": 2, "batch_size": 16, "noise": 0.1}


class Net(nn.Module):
    def __init__(self, in_dim=8, hidden=32, classes=3):
        super().__init__()
        self.fc1 = nn.Linear(in_dim, hidden)
        self.fc2 = nn.Linear(hidden, classes)
        self.apply(self._init_weights)

    @staticmethod
    def _init_weights(m):
        if isinstance(m, nn.Linear):
            m.weight.data.normal_(0.0, 0.02)
            nn.init.zeros_(m.bias)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


def make_teacher(student):
    teacher = copy.deepcopy(student)
    for p in teacher.parameters():
        p.requires_grad_(False)
    return teacher


def update_teacher(student, teacher, decay):
    for t, s in zip(teacher.parameters(), student.parameters()):
        t.mul_(decay).add_(s.detach(), alpha=1 - decay)


def train(student, teacher, labeled, unlabeled, optimizer, cfg):
    for epoch in range(cfg["epochs"]):
        for (x_l, y_l), (x_u,) in zip(labeled, unlabeled):
            sup = F.cross_entropy(student(x_l), y_l)
            noisy = x_u + cfg["noise"] * torch.randn_like(x_u)
            cons = F.mse_loss(F.softmax(student(noisy), 1), F.softmax(teacher(x_u), 1))
            loss = sup + cfg["consistency"] * cons
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            update_teacher(student, teacher, cfg["ema_decay"])
        print(f"epoch {epoch}: sup {sup.item():.3f} cons {cons.item():.4f}")


def main():
    torch.manual_seed(0)
    cfg = CONFIG
    labeled = DataLoader(TensorDataset(torch.randn(48, 8), torch.randint(0, 3, (48,))),
                         batch_size=cfg["batch_size"], shuffle=True)
    unlabeled = DataLoader(TensorDataset(torch.randn(48, 8)), batch_size=cfg["batch_size"], shuffle=True)
    student = Net()
    teacher = make_teacher(student)
    optimizer = torch.optim.SGD(student.parameters(), lr=cfg["lr"], momentum=0.9)
    before = teacher.fc1.weight.clone()
    train(student, teacher, labeled, unlabeled, optimizer, cfg)
    assert not torch.equal(before, teacher.fc1.weight)


if __name__ == "__main__":
    main()
    print("OK")
