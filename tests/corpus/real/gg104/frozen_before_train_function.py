"""A lane detector fine-tuned from a checkpoint: the script freezes every parameter of the
network it then hands to its `train()` function, so the first backward raises "element 0
of tensors does not require grad and does not have a grad_fn" (GG104). The maintainer's
answer: freeze only the backbone, or build the optimizer from the parameters that still
require grad.

Source (rewritten in our own words, structure kept): https://github.com/cfzd/Ultra-Fast-Lane-Detection/issues/282
- `train.py`: `net.load_state_dict(...)` from the fine-tuning checkpoint, then
  `for param in net.parameters(): param.requires_grad = False`, then the epoch loop calls
  `train(net, train_loader, loss_fn, optimizer, ...)`, which runs forward, loss, backward
  and step on the network it was given.
"""

import torch
from torch import nn


class LaneNet(nn.Module):
    def __init__(self, griding: int = 8, rows: int = 4) -> None:
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU())
        self.pool = nn.AdaptiveAvgPool2d(2)
        self.cls = nn.Linear(16, griding * rows)

    def forward(self, x):
        return self.cls(self.pool(self.backbone(x)).flatten(1))


def train(net, data_loader, loss_fn, optimizer, epoch):
    net.train()
    for step, (images, labels) in enumerate(data_loader):
        out = net(images)
        loss = loss_fn(out, labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"epoch {epoch} step {step}: {loss.item():.4f}")


def train_backbone_frozen(net, data_loader, loss_fn, epochs):
    """The fix: only the backbone is frozen, the optimizer gets what still trains."""
    for param in net.backbone.parameters():
        param.requires_grad = False
    optimizer = torch.optim.SGD([p for p in net.parameters() if p.requires_grad], lr=0.1)
    for epoch in range(epochs):
        for images, labels in data_loader:
            loss = loss_fn(net(images), labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()


batches = [
    (torch.randn(2, 3, 8, 8), torch.randint(0, 32, (2,))),
    (torch.randn(2, 3, 8, 8), torch.randint(0, 32, (2,))),
]
net = LaneNet()
optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
for param in net.parameters():  # expect: GG104
    param.requires_grad = False
try:
    for epoch in range(2):
        train(net, batches, nn.CrossEntropyLoss(), optimizer, epoch)
except RuntimeError as error:
    assert "does not require grad" in str(error)
train_backbone_frozen(LaneNet(), batches, nn.CrossEntropyLoss(), 1)
