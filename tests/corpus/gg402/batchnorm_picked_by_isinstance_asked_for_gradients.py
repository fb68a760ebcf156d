"""BatchNorm layers picked out of a model by `isinstance`, every tensor they hold asked to
require gradients, the int64 step counter included.

Test-time adaptation code (TENT-style, as in siliconflow/onediff#360, where a model's
state holding an integer tensor was asked to require gradients and stopped with "Only
Tensors of floating point and complex dtype can require gradients") walks
`model.named_modules()`, keeps the normalisation layers with `isinstance(m,
nn.BatchNorm2d)` and switches on gradients for everything they own. A BatchNorm built with
running statistics (the default) owns `num_batches_tracked`, an int64 buffer:
`requires_grad_()` on it raises "only Tensors of floating point dtype can require
gradients".
"""

import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, 3, padding=1)
        self.norm = nn.BatchNorm2d(cout)
        self.act = nn.ReLU()

    def forward(self, x):
        return self.act(self.norm(self.conv(x)))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = Block(3, 8)
        self.body = nn.Sequential(Block(8, 8), nn.MaxPool2d(2))
        self.head = nn.Linear(8, 4)

    def forward(self, x):
        return self.head(self.body(self.stem(x)).mean((2, 3)))


def unfreeze_norms(model):
    model.requires_grad_(False)
    for name, m in model.named_modules():
        if isinstance(m, nn.BatchNorm2d):
            for t in m.buffers():
                t.requires_grad_(True)  # expect: GG402


if __name__ == "__main__":
    net = Net()
    unfreeze_norms(net)
    print(net(torch.randn(2, 3, 8, 8)).sum())
