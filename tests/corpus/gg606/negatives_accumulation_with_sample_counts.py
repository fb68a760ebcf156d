"""Accumulation whose learning rate is divided through a count of samples: not reported.

The trainer backpropagates each batch's mean loss undivided and steps every `accum`
batches, but the learning rate is `base_lr * micro / total` with `total = micro * accum`:
the count that sizes the data also scales the step, which is then the step of the averaged
gradient (checked with torch 2.13.0 below). A product of `accum` read as anything but a
size may scale: the file is not reported. Modelled on the fine-tuning loop of
fredzzhang/atlas whose review discussed where to divide.
https://github.com/fredzzhang/atlas/pull/26
"""

import copy

import torch
import torch.nn.functional as F
from torch import nn

micro, accum, base_lr = 4, 3, 0.3


def train(model, x, y, total):
    optimizer = torch.optim.SGD(model.parameters(), lr=base_lr * micro / total)
    for i, (xb, yb) in enumerate(zip(x.split(micro), y.split(micro))):
        loss = F.cross_entropy(model(xb), yb)
        loss.backward()
        if (i + 1) % accum == 0:
            optimizer.step()
            optimizer.zero_grad()
            break


if __name__ == "__main__":
    torch.manual_seed(0)
    total = micro * accum
    x, y = torch.randn(total, 5), torch.randint(0, 3, (total,))
    net = nn.Linear(5, 3)
    reference = copy.deepcopy(net)
    F.cross_entropy(reference(x), y).backward()
    with torch.no_grad():
        reference.weight -= base_lr * reference.weight.grad
    train(net, x, y, total)
    assert torch.allclose(net.weight, reference.weight, atol=1e-5)
