"""Accumulation every `accum` batches, the script sizing its data by `micro * accum` (GG606).

A classifier trainer steps once every `accum` batches but backpropagates each batch's mean
loss undivided, so the step applies `accum` times the gradient of the large batch (checked
with torch 2.13.0 below against the same samples taken as one batch). The script multiplies
by `accum` only to count samples: how many rows to draw (`torch.randn(n, 5)`) and how many
make one large batch (`x[:big]`). Such counts scale no loss, no learning rate and no
gradient. Modelled on the gradient accumulation added to a fine-tuning loop in
fredzzhang/atlas, whose review asked for the division by the accumulation steps.
https://github.com/fredzzhang/atlas/pull/26
"""

import copy

import torch
import torch.nn.functional as F
from torch import nn

micro, accum = 4, 3


def train(model, optimizer, x, y, norms):
    for i, (xb, yb) in enumerate(zip(x.split(micro), y.split(micro))):
        loss = F.cross_entropy(model(xb), yb)
        loss.backward()  # expect: GG606
        if (i + 1) % accum == 0:
            norms.append(model.weight.grad.norm().item())
            optimizer.step()
            optimizer.zero_grad()


if __name__ == "__main__":
    torch.manual_seed(0)
    n = micro * accum * 2
    x, y = torch.randn(n, 5), torch.randint(0, 3, (n,))
    net = nn.Linear(5, 3)
    big = micro * accum
    reference = copy.deepcopy(net)
    F.cross_entropy(reference(x[:big]), y[:big]).backward()
    norms = []
    train(net, torch.optim.SGD(net.parameters(), lr=0.1), x, y, norms)
    ratio = norms[0] / reference.weight.grad.norm().item()
    assert abs(ratio - 1.0) < 1e-4, f"the step applies {ratio:.1f}x the large-batch gradient"
