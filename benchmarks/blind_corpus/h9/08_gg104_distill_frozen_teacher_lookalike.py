"""GG104 look-alike - a fully frozen model inside the loss, but the student trains.

Knowledge distillation: the teacher is put in eval mode and
teacher.requires_grad_(False) freezes every one of its parameters. Its logits are
used as soft targets in the KL term. The backward() still has a graph through the
student, whose parameters require grad, so this is correct.

Modelled on: none found (standard distillation recipe)
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

CONFIG = dict(in_dim=12, n_cls=4, T=2.0, alpha=0.7, lr=5e-3, epochs=3, bs=16)


def mlp(in_dim, hidden, out_dim, depth):
    layers, d = [], in_dim
    for _ in range(depth):
        layers += [nn.Linear(d, hidden), nn.ReLU()]
        d = hidden
    layers.append(nn.Linear(d, out_dim))
    return nn.Sequential(*layers)


class DistillLoss(nn.Module):
    def __init__(self, T, alpha):
        super().__init__()
        self.T, self.alpha = T, alpha

    def forward(self, student_logits, teacher_logits, labels):
        soft = F.kl_div(
            F.log_softmax(student_logits / self.T, dim=1),
            F.softmax(teacher_logits / self.T, dim=1),
            reduction="batchmean",
        ) * self.T ** 2
        hard = F.cross_entropy(student_logits, labels)
        return self.alpha * soft + (1 - self.alpha) * hard


def train(student, teacher, loader, optimizer, criterion, epochs):
    teacher.eval()
    history = []
    for epoch in range(epochs):
        student.train()
        total = 0.0
        for x, y in loader:
            t_logits = teacher(x)
            loss = criterion(student(x), t_logits, y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss.item()
        history.append(total / len(loader))
        print(f"epoch {epoch} distill loss {history[-1]:.4f}")
    return history


def main():
    torch.manual_seed(0)
    c = CONFIG
    teacher = mlp(c["in_dim"], 64, c["n_cls"], depth=3)
    teacher.requires_grad_(False)
    student = mlp(c["in_dim"], 16, c["n_cls"], depth=1)
    x = torch.randn(64, c["in_dim"])
    y = teacher(x).argmax(1)
    loader = DataLoader(TensorDataset(x, y), batch_size=c["bs"], shuffle=True)
    opt = torch.optim.Adam(student.parameters(), lr=c["lr"])
    hist = train(student, teacher, loader, opt, DistillLoss(c["T"], c["alpha"]), c["epochs"])
    assert hist[-1] < hist[0]
    assert all(p.grad is None for p in teacher.parameters())


if __name__ == "__main__":
    main()
    print("OK")
