"""A generator of parameters looped over for a printout, then handed to clip_grad_norm_.

Modelled on https://github.com/pytorch/pytorch/issues/148259 (written anew): the loop
reads `model.parameters()` to its end, so the clipping call receives an exhausted
generator, clips nothing and returns 0 while training goes on unclipped.
"""

import torch
import torch.nn as nn


class Regressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(10, 1)

    def forward(self, x):
        return self.fc(x)


model = Regressor()
criterion = nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)

inputs = torch.randn(16, 10)
targets = torch.randn(16, 1)
loss = criterion(model(inputs), targets)
optimizer.zero_grad()
loss.backward()

to_clip = model.parameters()
for p in to_clip:
    print("clipping", tuple(p.shape))
norm = nn.utils.clip_grad_norm_(to_clip, 1.0, 2.0)  # expect: GG610
print("norm before clipping:", float(norm))
optimizer.step()
