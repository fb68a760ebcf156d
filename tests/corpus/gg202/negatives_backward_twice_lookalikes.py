"""Code that calls backward more than once, correctly."""

import torch
from torch import nn
from torch.nn import functional as F

model = nn.Linear(8, 2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(16, 8), torch.randint(0, 2, (16,))

# Gradient accumulation: a fresh forward pass for every micro-batch.
optimizer.zero_grad()
for chunk_x, chunk_y in zip(x.chunk(4), y.chunk(4)):
    loss = F.cross_entropy(model(chunk_x), chunk_y) / 4
    loss.backward()
optimizer.step()

# Two losses on one graph, the first keeping it.
out = model(x)
loss_a = F.cross_entropy(out, y)
loss_b = out.pow(2).mean()
loss_a.backward(retain_graph=True)
loss_b.backward()

# The summed loss, backpropagated once.
out = model(x)
(F.cross_entropy(out, y) + 0.1 * out.pow(2).mean()).backward()

# Backward through sum() and + only: nothing is saved, twice works.
w = torch.ones(3, requires_grad=True)
total = (w + 2).sum()
total.backward()
total.backward()

# create_graph=True keeps the graph (needed for higher-order gradients).
z = torch.randn(4, requires_grad=True)
energy = (z.sin() * z).sum()
energy.backward(create_graph=True)
energy.backward()


# One backward per call of a function: each call builds its own graph.
def step(batch_x, batch_y):
    loss = F.cross_entropy(model(batch_x), batch_y)
    loss.backward()
    return loss.item()


for epoch in range(3):
    optimizer.zero_grad()
    step(x, y)
    optimizer.step()
