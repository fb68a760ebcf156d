"""A deep-metric-learning trainer that unpacks the criterion's result as
`loss, inter_, dist_ap, dist_an = criterion(embed_feat, labels)` while the loss module
returns its statistics first (`mean_pos_sim, mean_neg_sim, prec, loss`), the statistics
taken out with `.item()`: `loss` is a float and `loss.backward()` raises "AttributeError:
'float' object has no attribute 'backward'". The maintainers' answer: unpack in the order
the loss returns.

Source (rewritten in our own words, structure kept): https://github.com/bnu-wangxun/Deep_Metric/issues/26
- `losses/Weight.py` (a loss `nn.Module` returning a 4-tuple) and `trainer.py`
(`train(epoch, model, criterion, optimizer, train_loader, args)`).
"""

import torch
from torch import nn


class WeightLoss(nn.Module):
    def __init__(self, margin: float = 0.5) -> None:
        super().__init__()
        self.margin = margin

    def forward(self, inputs, targets):
        sim = inputs @ inputs.t()
        same = targets.unsqueeze(0) == targets.unsqueeze(1)
        pos = sim[same].mean()
        neg = sim[~same].mean()
        loss = torch.relu(neg - pos + self.margin)
        prec = float((pos > neg).item())
        return pos.item(), neg.item(), prec, loss  # expect: GG102


def train(epoch, model, criterion, optimizer, train_loader):
    for inputs, labels in train_loader:
        embed_feat = model(inputs)
        loss, inter_, dist_ap, dist_an = criterion(embed_feat, labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def train_fixed(epoch, model, criterion, optimizer, train_loader):
    for inputs, labels in train_loader:
        embed_feat = model(inputs)
        dist_ap, dist_an, inter_, loss = criterion(embed_feat, labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def train_logged(model, optimizer, train_loader):
    """The direct form of the same mistake: the number is taken out before backward."""
    for inputs, labels in train_loader:
        feats = model(inputs)
        loss = torch.relu(1.0 - (feats @ feats.t()).mean()).item()  # expect: GG102
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def train_logged_after(model, optimizer, train_loader):
    for inputs, labels in train_loader:
        feats = model(inputs)
        loss = torch.relu(1.0 - (feats @ feats.t()).mean())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(loss.item())


net = nn.Linear(5, 3)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
data = [(torch.randn(6, 5), torch.tensor([0, 0, 1, 1, 2, 2]))]
try:
    train(0, net, WeightLoss(), opt, data)
except AttributeError as error:
    assert "'float' object has no attribute 'backward'" in str(error)
train_fixed(0, net, WeightLoss(), opt, data)
try:
    train_logged(net, opt, data)
except AttributeError as error:
    assert "'float' object has no attribute 'backward'" in str(error)
train_logged_after(net, opt, data)
