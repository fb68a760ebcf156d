"""GG607 look-alike: eval() calls inside the training loop that do not affect training mode.

Category GG607 (look-alike, no bug). In this knowledge-distillation loop ``teacher.eval()``
is called at the top of every epoch, inside the loop: that is the frozen teacher, not the
student being trained. The student is evaluated every epoch through the ``evaluating``
context manager, which calls ``model.eval()`` and restores the previous mode on exit, so
the student's training batches always run in training mode (asserted with BatchNorm's
``num_batches_tracked``).
"""
from contextlib import contextmanager

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


def mlp(d_in, width, n_classes):
    return nn.Sequential(nn.Linear(d_in, width), nn.BatchNorm1d(width), nn.ReLU(), nn.Dropout(0.1),
                         nn.Linear(width, n_classes))


@contextmanager
def evaluating(model):
    was_training = model.training
    model.eval()
    try:
        yield model
    finally:
        model.train(was_training)


def distill_loss(student_logits, teacher_logits, labels, T=2.0, alpha=0.7):
    soft = F.kl_div(F.log_softmax(student_logits / T, -1), F.softmax(teacher_logits / T, -1),
                    reduction="batchmean") * T * T
    return alpha * soft + (1 - alpha) * F.cross_entropy(student_logits, labels)


def distill(student, teacher, train_loader, val_loader, optimizer, epochs=3):
    student.train()
    steps = 0
    for epoch in range(epochs):
        teacher.eval()
        for x, y in train_loader:
            with torch.no_grad():
                t_logits = teacher(x)
            loss = distill_loss(student(x), t_logits, y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            steps += 1
        with evaluating(student), torch.no_grad():
            acc = sum((student(x).argmax(1) == y).sum().item() for x, y in val_loader) / len(val_loader.dataset)
        print(f"epoch {epoch}: loss {loss.item():.3f} student val acc {acc:.2%}")
    return steps


def main():
    torch.manual_seed(25)
    x = torch.randn(100, 8)
    y = (x[:, 0] + x[:, 1] > 0).long()
    train_loader = DataLoader(TensorDataset(x[:80], y[:80]), batch_size=16, shuffle=True)
    val_loader = DataLoader(TensorDataset(x[80:], y[80:]), batch_size=20)
    teacher, student = mlp(8, 64, 2), mlp(8, 16, 2)
    optimizer = torch.optim.Adam(student.parameters(), lr=3e-3)
    steps = distill(student, teacher, train_loader, val_loader, optimizer)
    assert student[1].num_batches_tracked.item() == steps
    assert teacher[1].num_batches_tracked.item() == 0


if __name__ == "__main__":
    main()
    print("OK")
