"""A correct classifier training loop (the fixed twin of the GG101/GG102 examples).

Things that look like the bugs but are right:
* `.item()` is called for logging only, after `loss.backward()`, or under another name;
* `torch.no_grad()` wraps evaluation and a manual weight-averaging update, never the loss
  that is backpropagated.

Run: python examples/clean_training_loop.py
"""

import copy

import torch
from torch import nn

torch.manual_seed(0)

FEATURES = 12
CLASSES = 4


def make_split(n: int, directions: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Random points labelled by the direction they lean to most."""
    x = torch.randn(n, FEATURES)
    return x, (x @ directions).argmax(dim=1)


model = nn.Sequential(nn.Linear(FEATURES, 48), nn.ReLU(), nn.Linear(48, CLASSES))
averaged = copy.deepcopy(model)  # an exponential moving average of the weights
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=5e-3)
directions = torch.randn(FEATURES, CLASSES)
train_x, train_y = make_split(512, directions)
val_x, val_y = make_split(128, directions)


def evaluate(net: nn.Module) -> tuple[float, float]:
    """Validation loss and accuracy, without building a graph."""
    net.eval()
    with torch.no_grad():
        logits = net(val_x)
        loss = criterion(logits, val_y)
        accuracy = (logits.argmax(dim=1) == val_y).float().mean()
    net.train()
    return loss.item(), accuracy.item()


history: list[float] = []
for epoch in range(3):
    total = 0.0
    for start in range(0, train_x.size(0), 64):
        x = train_x[start : start + 64]
        y = train_y[start : start + 64]
        loss = criterion(model(x), y)
        loss_value = loss.item()  # a float for the log; `loss` stays a tensor
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += loss.item()
        history.append(loss_value)
        with torch.no_grad():
            for avg, param in zip(averaged.parameters(), model.parameters()):
                avg.mul_(0.9).add_(param, alpha=0.1)
    val_loss, val_acc = evaluate(model)
    ema_loss, _ = evaluate(averaged)
    print(
        f"epoch {epoch}: train {total / 8:.3f}  val {val_loss:.3f}  "
        f"acc {val_acc:.2f}  ema val {ema_loss:.3f}"
    )

assert all(p.grad is not None for p in model.parameters())
print(f"last logged loss {float(history[-1]):.3f}")
