"""The backpropagated loss is computed with gradient recording switched off (GG101)."""

import torch
import torch as T
import torch.nn.functional as F
from torch import inference_mode, nn, no_grad

model = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 2))
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)


def plain():
    x = torch.randn(16, 10)
    y = torch.randint(0, 2, (16,))
    with torch.no_grad():  # expect: GG101
        logits = model(x)
        loss = criterion(logits, y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()


def aliased_module():
    x = T.randn(16, 10)
    y = T.randint(0, 2, (16,))
    with T.no_grad():  # expect: GG101
        loss = F.cross_entropy(model(x), y)
    loss.backward()


def imported_name():
    x = torch.randn(16, 10)
    y = torch.randint(0, 2, (16,))
    optimizer.zero_grad()
    with no_grad():  # expect: GG101
        loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()


def inference_mode_block():
    x = torch.randn(16, 10)
    y = torch.randint(0, 2, (16,))
    with torch.inference_mode():  # expect: GG101
        loss = criterion(model(x), y)
    loss.backward()


def inference_mode_imported():
    x = torch.randn(16, 10)
    y = torch.randint(0, 2, (16,))
    with inference_mode():  # expect: GG101
        per_sample = F.cross_entropy(model(x), y, reduction="none")
    loss = per_sample.mean()
    loss.backward()


def several_context_managers(log_path):
    x = torch.randn(16, 10)
    y = torch.randint(0, 2, (16,))
    with torch.no_grad(), open(log_path, "a") as log:  # expect: GG101
        loss = criterion(model(x), y)
        log.write(f"{loss.item():.4f}\n")
    loss.backward()


def set_grad_enabled_block():
    x = torch.randn(16, 10)
    y = torch.randint(0, 2, (16,))
    with torch.set_grad_enabled(False):  # expect: GG101
        loss = criterion(model(x), y)
    loss.backward()


def set_grad_enabled_statement():
    x = torch.randn(16, 10)
    y = torch.randint(0, 2, (16,))
    torch.set_grad_enabled(False)  # expect: GG101
    loss = criterion(model(x), y)
    torch.set_grad_enabled(True)
    loss.backward()


def set_grad_enabled_local_flag():
    training = False
    x = torch.randn(16, 10)
    y = torch.randint(0, 2, (16,))
    with torch.set_grad_enabled(training):  # expect: GG101
        loss = criterion(model(x), y)
    loss.backward()


@torch.no_grad()  # expect: GG101
def compute_loss(x, y):
    logits = model(x)
    return criterion(logits, y)


def decorated_loss(steps):
    for _ in range(steps):
        x = torch.randn(16, 10)
        y = torch.randint(0, 2, (16,))
        loss = compute_loss(x, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


@T.inference_mode()  # expect: GG101
def activation_penalty():
    probe = torch.randn(4, 10)
    return F.mse_loss(model(probe), torch.zeros(4, 2))


def decorated_penalty():
    penalty = activation_penalty()
    penalty.backward()


def autograd_backward_function():
    x = torch.randn(16, 10)
    y = torch.randint(0, 2, (16,))
    with torch.no_grad():  # expect: GG101
        loss = criterion(model(x), y)
    torch.autograd.backward(loss)


def autograd_grad_function():
    x = torch.randn(16, 10)
    y = torch.randint(0, 2, (16,))
    with torch.no_grad():  # expect: GG101
        loss = criterion(model(x), y)
    grads = torch.autograd.grad(loss, list(model.parameters()))
    return grads


for epoch in range(3):
    inputs = torch.randn(32, 10)
    labels = torch.randint(0, 2, (32,))
    with torch.no_grad():  # expect: GG101
        loss = criterion(model(inputs), labels)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
