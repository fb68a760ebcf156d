"""The optimizer is built for one model, the loop trains a second one built afterwards.

A restart copy-pasted from a notebook: `net` and its optimizer come from the first cell,
`net2 = MLP()` from the next one, and the loop was edited to use `net2` but not the
optimizer. Reports of this shape ("loss is printed, weights never change") are the
optimizer-holds-the-wrong-parameters case discussed in
https://github.com/pytorch/pytorch/issues/29015 (a model re-created by deepcopy after
`torch.optim.SGD(net.parameters())`: the optimizer keeps the first model's parameters).
"""

import torch
from torch import nn


class MLP(nn.Module):
    def __init__(self, hidden=64):
        super().__init__()
        self.layers = nn.Sequential(nn.Linear(20, hidden), nn.ReLU(), nn.Linear(hidden, 4))

    def forward(self, x):
        return self.layers(x)


device = "cpu"
net = MLP().to(device)
optimizer = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)  # expect: GG608
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.5)
criterion = nn.CrossEntropyLoss()

net2 = MLP(hidden=128).to(device)
net2.train()
for epoch in range(4):
    for _ in range(5):
        inputs = torch.randn(32, 20, device=device)
        labels = torch.randint(0, 4, (32,), device=device)
        outputs = net2(inputs)
        loss = criterion(outputs, labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    scheduler.step()
    print(epoch, loss.item())
