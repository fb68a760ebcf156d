"""Look-alikes of running totals kept per loss term: the terms are added as numbers
(`.item()`), the dict read with an unknown key holds plain numbers, and a dict that was
updated with unknown values is no longer known.

Sources: https://github.com/jokester-zzz/SSA-SC/issues/2 and
https://github.com/samuelyu2002/ImVisible/issues/2 (the totals take `.item()`).
"""

import torch
from torch import nn


class TwoHeadNet(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.body = nn.Linear(4, 6)
        self.cls = nn.Linear(6, 3)
        self.reg = nn.Linear(6, 1)

    def compute_losses(self, x, labels, targets):
        h = torch.relu(self.body(x))
        return {
            "ce": nn.functional.cross_entropy(self.cls(h), labels),
            "mse": nn.functional.mse_loss(self.reg(h), targets),
        }


def train(model, loader, optimizer, extra_terms):
    epoch_losses = {"ce": 0.0, "mse": 0.0}
    weights = {"ce": 1.0, "mse": 0.5}
    seen = {"ce": 0, "mse": 0}
    for x, labels, targets in loader:
        losses = model.compute_losses(x, labels, targets)
        optimizer.zero_grad()
        sum(weights[k] * v for k, v in losses.items()).backward()
        optimizer.step()
        for key in losses:
            epoch_losses[key] += losses[key].item()
            seen[key] += weights[key]
        logged = dict(losses)
        logged.update(extra_terms)
        for key in extra_terms:
            epoch_losses[key] = epoch_losses.get(key, 0.0) + float(logged[key])
    return epoch_losses, seen


if __name__ == "__main__":
    net = TwoHeadNet()
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    data = [(torch.randn(2, 4), torch.tensor([0, 2]), torch.randn(2, 1)) for _ in range(2)]
    totals, _ = train(net, data, opt, {"reg": 0.0})
    assert isinstance(totals["ce"], float)
