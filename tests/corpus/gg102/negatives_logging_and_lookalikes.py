"""`.item()`, `float()` and `.tolist()` used for logging, metrics or unrelated values: no GG102."""

import argparse

import torch
from torch import nn

model = nn.Linear(10, 3)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)


def log_after_backward(steps):
    history = []
    total = 0.0
    for step in range(steps):
        x, y = torch.randn(8, 10), torch.randint(0, 3, (8,))
        loss = criterion(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += loss.item()
        history.append(loss.item())
        print(f"step {step}: loss {loss.item():.4f} mean {total / (step + 1):.4f}")
    return history


def logged_under_another_name():
    x, y = torch.randn(8, 10), torch.randint(0, 3, (8,))
    loss = criterion(model(x), y)
    loss_val = loss.item()
    as_float = float(loss)
    print(f"{loss_val:.3f} {as_float:.3f}")
    loss.backward()
    return loss_val


def metrics_from_predictions():
    x, y = torch.randn(8, 10), torch.randint(0, 3, (8,))
    logits = model(x)
    predictions = logits.argmax(dim=1).tolist()
    accuracy = (logits.argmax(dim=1) == y).float().mean().item()
    loss = criterion(logits, y)
    loss.backward()
    return predictions, accuracy


def returned_as_number_after_backward():
    x, y = torch.randn(8, 10), torch.randint(0, 3, (8,))
    loss = criterion(model(x), y)
    loss.backward()
    loss = loss.item()
    return loss


def name_reused_for_a_fresh_loss():
    x, y = torch.randn(8, 10), torch.randint(0, 3, (8,))
    with torch.no_grad():
        loss = criterion(model(x), y).item()
    print("before:", loss)
    loss = criterion(model(x), y)
    loss.backward()
    print("after:", loss.item())


def unknown_criterion(criterion, inputs, targets):
    """`criterion` is a parameter: its result's `.item()` may be anything."""
    loss = criterion(model(inputs), targets).item()
    loss.backward()


class Scalar:
    """A tiny autodiff scalar with its own `item` and `backward`."""

    def __init__(self, value, grad_fn=None):
        self.value = value
        self.grad_fn = grad_fn

    def item(self):
        return self

    def tolist(self):
        return self

    def backward(self):
        if self.grad_fn is not None:
            self.grad_fn()


def user_class_with_item_and_backward():
    s = Scalar(3.0, grad_fn=lambda: print("backward"))
    value = s.item()
    value.backward()
    listed = s.tolist()
    listed.backward()


def unrelated_floats(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", default="0.1")
    args = parser.parse_args(argv)
    lr = float(args.lr)
    weight = torch.tensor(float(lr))
    x, y = torch.randn(8, 10), torch.randint(0, 3, (8,))
    loss = criterion(model(x), y) * weight
    loss.backward()


log_after_backward(3)
