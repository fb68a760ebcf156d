"""GG101 look-alike - no_grad teacher targets, but backward on a student loss.

Mean-teacher semi-supervised training: the teacher's soft targets are produced
by a @torch.no_grad() helper and the EMA update runs under torch.no_grad().
The loss that is backpropagated is computed from the *student* outputs outside
any no-grad region, so backward() is valid; the no-grad values only act as
constants. Nothing is wrong here.

Modelled on: none found (common mean-teacher layout).
"""
import copy
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

HPARAMS = dict(in_dim=20, hidden=64, num_classes=4, ema_decay=0.99,
               consistency_weight=2.0, lr=1e-2, epochs=2, batch_size=16)


class MLPClassifier(nn.Module):
    def __init__(self, in_dim, hidden, num_classes):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(in_dim, hidden), nn.ReLU(), nn.Dropout(0.1),
                                  nn.Linear(hidden, hidden), nn.ReLU())
        self.fc = nn.Linear(hidden, num_classes)

    def forward(self, x):
        return self.fc(self.body(x))


@torch.no_grad()
def teacher_targets(teacher, x, temperature=1.0):
    return F.softmax(teacher(x) / temperature, dim=1)


@torch.no_grad()
def ema_update(student, teacher, decay):
    for p_s, p_t in zip(student.parameters(), teacher.parameters()):
        p_t.mul_(decay).add_(p_s, alpha=1 - decay)


def compute_loss(student_logits, labels, soft_targets, weight):
    sup = F.cross_entropy(student_logits, labels)
    cons = F.mse_loss(F.softmax(student_logits, dim=1), soft_targets)
    return sup + weight * cons, {"sup": sup.item(), "cons": cons.item()}


def train_epoch(student, teacher, loader, optimizer, hp):
    student.train()
    teacher.train()
    logs = []
    for step, (x, y) in enumerate(loader):
        noisy = x + 0.05 * torch.randn_like(x)
        targets = teacher_targets(teacher, noisy)
        logits = student(x)
        loss, parts = compute_loss(logits, y, targets, hp["consistency_weight"])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        ema_update(student, teacher, hp["ema_decay"])
        logs.append(parts)
    return logs


def main():
    torch.manual_seed(1)
    x = torch.randn(64, HPARAMS["in_dim"])
    y = torch.randint(0, HPARAMS["num_classes"], (64,))
    loader = DataLoader(TensorDataset(x, y), batch_size=HPARAMS["batch_size"], shuffle=True)
    student = MLPClassifier(HPARAMS["in_dim"], HPARAMS["hidden"], HPARAMS["num_classes"])
    teacher = copy.deepcopy(student)
    for p in teacher.parameters():
        p.requires_grad_(False)
    optimizer = torch.optim.SGD(student.parameters(), lr=HPARAMS["lr"], momentum=0.9)
    before = student.fc.weight.detach().clone()
    for epoch in range(HPARAMS["epochs"]):
        logs = train_epoch(student, teacher, loader, optimizer, HPARAMS)
        print(f"epoch {epoch}: sup={logs[-1]['sup']:.3f} cons={logs[-1]['cons']:.4f}")
    assert not torch.equal(before, student.fc.weight)


if __name__ == "__main__":
    main()
    print("OK")
