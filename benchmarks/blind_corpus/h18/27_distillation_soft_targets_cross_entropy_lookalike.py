"""GG110 look-alike - knowledge distillation passes softmax output as the *target*.

The student is trained with F.cross_entropy(student_logits / T, soft_targets)
where soft_targets = softmax(teacher_logits / T).  Softmax probabilities are
given to cross_entropy, but as the target argument (probability targets are
supported); the input is still raw logits.  Softmax is also used for accuracy.
Correct code.  Prints OK.

Modelled on: none found
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

T = 4.0
ALPHA = 0.7


def make_cnn(width):
    return nn.Sequential(
        nn.Conv2d(1, width, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(width, width, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
        nn.Flatten(), nn.Linear(width, 10),
    )


def distillation_loss(student_logits, teacher_logits, labels):
    soft_targets = F.softmax(teacher_logits / T, dim=-1)
    kd = F.cross_entropy(student_logits / T, soft_targets) * (T * T)
    ce = F.cross_entropy(student_logits, labels)
    return ALPHA * kd + (1 - ALPHA) * ce


def accuracy(logits, labels):
    probs = F.softmax(logits, dim=-1)
    return (probs.argmax(-1) == labels).float().mean().item()


def train_student(student, teacher, loader, optimizer, epochs=2):
    teacher.eval()
    for epoch in range(epochs):
        student.train()
        for images, labels in loader:
            with torch.no_grad():
                teacher_logits = teacher(images)
            student_logits = student(images)
            loss = distillation_loss(student_logits, teacher_logits, labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch}: loss {loss.item():.4f} acc {accuracy(student_logits.detach(), labels):.2f}")


def main():
    torch.manual_seed(0)
    teacher, student = make_cnn(16), make_cnn(4)
    data = TensorDataset(torch.randn(32, 1, 12, 12), torch.randint(0, 10, (32,)))
    loader = DataLoader(data, batch_size=8, shuffle=True)
    optimizer = torch.optim.SGD(student.parameters(), lr=0.05, momentum=0.9)
    w0 = student[-1].weight.detach().clone()
    train_student(student, teacher, loader, optimizer)
    assert not torch.equal(w0, student[-1].weight)


if __name__ == "__main__":
    main()
    print("OK")
