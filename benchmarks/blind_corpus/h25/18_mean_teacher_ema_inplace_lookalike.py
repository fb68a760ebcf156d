"""GG301 look-alike - in-place updates of parameters, done under torch.no_grad().

Mean-teacher semi-supervised training: the teacher's parameters are updated
in place with `mul_` / `add_` from the student's parameters, and the student's
residual block uses `out += identity` on an activation.  Both look like "in-place
operation on a leaf that requires grad", but the EMA update runs inside
`torch.no_grad()` (allowed), and `out` is a non-leaf intermediate whose value is
not needed by any backward function.

Modelled on: https://github.com/NVlabs/VILA/pull/199 (correct counterpart)
"""
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F

HP = dict(dim=16, classes=4, batch=8, steps=4, lr=1e-2, ema_decay=0.99, consistency=1.0)


class ResidualMLP(nn.Module):
    def __init__(self, dim, classes):
        super().__init__()
        self.inp = nn.Linear(dim, dim)
        self.fc1, self.fc2 = nn.Linear(dim, dim), nn.Linear(dim, dim)
        self.out = nn.Linear(dim, classes)

    def forward(self, x):
        identity = F.relu(self.inp(x))
        out = self.fc2(F.relu(self.fc1(identity)))
        out += identity
        return self.out(F.relu(out))


@torch.no_grad()
def update_ema(teacher, student, decay):
    for t_p, s_p in zip(teacher.parameters(), student.parameters()):
        t_p.mul_(decay).add_(s_p, alpha=1 - decay)


def train(student, teacher, hp):
    opt = torch.optim.SGD(student.parameters(), lr=hp["lr"], momentum=0.9)
    for step in range(hp["steps"]):
        x_l = torch.randn(hp["batch"], hp["dim"])
        y_l = torch.randint(0, hp["classes"], (hp["batch"],))
        x_u = torch.randn(hp["batch"], hp["dim"])
        sup = F.cross_entropy(student(x_l), y_l)
        with torch.no_grad():
            t_prob = F.softmax(teacher(x_u + 0.1 * torch.randn_like(x_u)), dim=1)
        cons = F.mse_loss(F.softmax(student(x_u), dim=1), t_prob)
        loss = sup + hp["consistency"] * cons
        opt.zero_grad()
        loss.backward()
        opt.step()
        update_ema(teacher, student, hp["ema_decay"])
        print(f"step {step}: sup={sup.item():.4f} cons={cons.item():.5f}")


def main():
    torch.manual_seed(0)
    student = ResidualMLP(HP["dim"], HP["classes"])
    teacher = copy.deepcopy(student)
    train(student, teacher, HP)
    assert all(p.requires_grad for p in teacher.parameters())


if __name__ == "__main__":
    main()
    print("OK")
