"""The helper clears and backpropagates; this loop steps and sums plain numbers. The second
loop sums loss tensors of a helper that backpropagates only sometimes: no training loop is
certain there, so nothing is said about it."""
import torch
from torch import nn

from backward_helpers import backward_pass, maybe_backward

model = nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(32, 4), torch.randn(32, 1)
total = 0.0
for epoch in range(3):
    total += backward_pass(model, optimizer, x, y)
    optimizer.step()
checked = 0.0
for epoch in range(3):
    checked += maybe_backward(model, x, y, epoch == 0)
print(total, checked.item())
