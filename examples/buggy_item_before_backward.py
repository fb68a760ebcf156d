"""A small MLP classifier whose loss is turned into a float too early -- BUGGY (GG102).

Bug: `loss = criterion(logits, labels).item()` converts the loss to a Python float
before `loss.backward()` (GG102 item-before-backward). A float has no autograd
history and no `backward` method:

    AttributeError: 'float' object has no attribute 'backward'

Fix: keep the tensor for backward and call `.item()` only for logging, after
`loss.backward()` (see clean_training_loop.py).

Run: python examples/buggy_item_before_backward.py
"""

import torch
from torch import nn

torch.manual_seed(0)

FEATURES = 20
CLASSES = 3


def make_dataset(n: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Random points labelled by which of three random directions they lean to."""
    x = torch.randn(n, FEATURES)
    directions = torch.randn(FEATURES, CLASSES)
    return x, (x @ directions).argmax(dim=1)


model = nn.Sequential(
    nn.Linear(FEATURES, 64),
    nn.ReLU(),
    nn.Linear(64, CLASSES),
)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)


def train(epochs: int, batch_size: int = 32) -> None:
    """Plain mini-batch training with a running loss printed per epoch."""
    inputs, labels = make_dataset(256)
    for epoch in range(epochs):
        running = 0.0
        for start in range(0, inputs.size(0), batch_size):
            x = inputs[start : start + batch_size]
            y = labels[start : start + batch_size]
            logits = model(x)
            loss = criterion(logits, y).item()  # expect: GG102
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            running += float(loss)
        print(f"epoch {epoch}: loss {running:.3f}")


if __name__ == "__main__":
    train(epochs=2)
