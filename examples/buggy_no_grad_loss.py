"""A regression loop that computes its loss under torch.no_grad() -- BUGGY (GG101).

Bug: the forward pass and the loss are wrapped in `with torch.no_grad():` (to "save
memory"), so `loss` carries no autograd history (GG101 backward-under-no-grad) and
`loss.backward()` raises:

    RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn

Setting `requires_grad=True` on the parameters does not help: no_grad() switches
recording off for every operation inside it. Fix: compute the training loss
outside no_grad(); keep no_grad() for evaluation.

Run: python examples/buggy_no_grad_loss.py
"""

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)


class Regressor(nn.Module):
    """Two-layer perceptron predicting one value."""

    def __init__(self, features: int) -> None:
        super().__init__()
        self.hidden = nn.Linear(features, 32)
        self.out = nn.Linear(32, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.out(F.relu(self.hidden(x)))


model = Regressor(8)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
criterion = nn.MSELoss()
true_weights = torch.randn(8, 1)

for param in model.parameters():  # the popular non-fix: parameters already require grad
    param.requires_grad = True

for step in range(50):
    x = torch.randn(64, 8)
    y = x @ true_weights + 0.1 * torch.randn(64, 1)
    with torch.no_grad():  # expect: GG101
        prediction = model(x)
        loss = criterion(prediction, y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if step % 10 == 0:
        print(f"step {step}: loss {loss.item():.4f}")

with torch.no_grad():
    x_val = torch.randn(256, 8)
    val_loss = criterion(model(x_val), x_val @ true_weights)
print(f"validation loss {val_loss.item():.4f}")
