"""Look-alikes of `head_replaced_after_a_warmup_epoch.py`: the new head reaches the optimizer.

After a warm-up epoch run by `run_epoch(...)` (which only zeroes gradients and steps), one
model's new head is added to its optimizer by a helper (`add_param_group`), another's
optimizer is rebuilt after the swap. Both new heads train (checked with torch 2.13.0):
silent.
"""

import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(4, 8)
        self.fc = nn.Linear(8, 2)

    def forward(self, x):
        return self.fc(torch.relu(self.body(x)))


def run_epoch(model, batches, optimizer):
    for x, y in batches:
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()


def extend(optimizer, module):
    optimizer.add_param_group({"params": module.parameters()})


def main():
    two = [(torch.randn(4, 4), torch.randint(0, 2, (4,)))]
    three = [(torch.randn(4, 4), torch.randint(0, 3, (4,)))]

    extended = Net()
    extended_optimizer = torch.optim.SGD(extended.parameters(), lr=0.1)
    run_epoch(extended, two, extended_optimizer)
    extended.fc = nn.Linear(8, 3)
    extend(extended_optimizer, extended.fc)
    before = extended.fc.weight.detach().clone()
    run_epoch(extended, three, extended_optimizer)
    assert not torch.equal(before, extended.fc.weight)

    rebuilt = Net()
    rebuilt_optimizer = torch.optim.SGD(rebuilt.parameters(), lr=0.1)
    run_epoch(rebuilt, two, rebuilt_optimizer)
    rebuilt.fc = nn.Linear(8, 3)
    rebuilt_optimizer = torch.optim.SGD(rebuilt.parameters(), lr=0.1)
    run_epoch(rebuilt, three, rebuilt_optimizer)


if __name__ == "__main__":
    main()
