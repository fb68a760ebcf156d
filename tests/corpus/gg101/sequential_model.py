"""An nn.Sequential built from nn layers returns a tensor with history, like its layers (GG101).

No criterion module is involved: the loss comes straight from the Sequential's output.
"""

import torch
from torch import nn

model = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 2))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

for step in range(10):
    x = torch.randn(16, 10)
    with torch.no_grad():  # expect: GG101
        loss = model(x).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
