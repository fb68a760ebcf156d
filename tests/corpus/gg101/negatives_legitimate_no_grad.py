"""no_grad() used the right way (evaluation, updates, targets, nested enable_grad): no GG101."""

import copy

import torch
import torch.nn.functional as F
from torch import nn

student = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 3))
teacher = copy.deepcopy(student)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(student.parameters(), lr=1e-3)


def evaluate(x, y):
    student.eval()
    with torch.no_grad():
        logits = student(x)
        loss = criterion(logits, y)
        accuracy = (logits.argmax(1) == y).float().mean()
    student.train()
    return loss.item(), accuracy.item()


@torch.no_grad()
def accuracy_of(x, y):
    return (student(x).argmax(1) == y).float().mean()


def train_step():
    x = torch.randn(16, 10)
    y = torch.randint(0, 3, (16,))
    loss = criterion(student(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(accuracy_of(x, y).item())


def manual_sgd(lr=0.1):
    x = torch.randn(16, 10)
    y = torch.randint(0, 3, (16,))
    loss = criterion(student(x), y)
    loss.backward()
    with torch.no_grad():
        for p in student.parameters():
            p -= lr * p.grad
            p.grad.zero_()


def momentum_teacher(m=0.99):
    with torch.no_grad():
        for t, s in zip(teacher.parameters(), student.parameters()):
            t.mul_(m).add_(s, alpha=1 - m)


def distillation_step(temperature=2.0):
    x = torch.randn(16, 10)
    with torch.no_grad():
        soft_targets = F.softmax(teacher(x) / temperature, dim=1)
    log_probs = F.log_softmax(student(x) / temperature, dim=1)
    loss = F.kl_div(log_probs, soft_targets, reduction="batchmean")
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()


def enable_grad_inside_no_grad():
    x = torch.randn(16, 10)
    y = torch.randint(0, 3, (16,))
    with torch.no_grad():
        with torch.enable_grad():
            loss = criterion(student(x), y)
    loss.backward()


@torch.no_grad()
def refine_inside_no_grad(x):
    """A gradient step inside an otherwise gradient-free function."""
    with torch.enable_grad():
        loss = student(x).pow(2).mean()
        loss.backward()
    return loss.item()


def backward_inside_no_grad():
    x = torch.randn(16, 10)
    y = torch.randint(0, 3, (16,))
    loss = criterion(student(x), y)
    with torch.no_grad():
        loss.backward()
        for p in student.parameters():
            p -= 0.01 * p.grad


def grad_mode_from_argument(is_training):
    x = torch.randn(16, 10)
    y = torch.randint(0, 3, (16,))
    with torch.set_grad_enabled(is_training):
        loss = criterion(student(x), y)
    if is_training:
        loss.backward()


def grad_mode_switched_back():
    x = torch.randn(16, 10)
    y = torch.randint(0, 3, (16,))
    torch.set_grad_enabled(False)
    baseline = criterion(student(x), y).item()
    torch.set_grad_enabled(True)
    loss = criterion(student(x), y)
    loss.backward()
    return baseline


def grad_enabled_true():
    x = torch.randn(16, 10)
    y = torch.randint(0, 3, (16,))
    with torch.set_grad_enabled(True):
        loss = criterion(student(x), y)
    loss.backward()


def leaf_created_under_no_grad():
    with torch.no_grad():
        scale = torch.ones((), requires_grad=True)
    scale.backward()
    with torch.no_grad():
        weights = torch.zeros(3, requires_grad=True)
    objective = (weights * 2).sum()
    objective.backward()


def loss_started_outside(x, y):
    loss = criterion(student(x), y)
    with torch.no_grad():
        print("batch loss", loss.item())
    loss.backward()


for step in range(10):
    train_step()
    manual_sgd()
    momentum_teacher()
    distillation_step()
print(evaluate(torch.randn(64, 10), torch.randint(0, 3, (64,))))
