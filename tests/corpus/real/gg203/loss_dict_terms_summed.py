"""A model returning a dict of loss terms; the loop backpropagates their sum and logs each
term by adding the tensors into a dict of running totals (`epoch_losses[key] +=
losses[key]`). Each running total holds the graph of every batch of the epoch; the
maintainers agreed the totals should take `losses[key].item()`.

Source (rewritten in our own words, structure kept):
https://github.com/jokester-zzz/SSA-SC/issues/2 and
https://github.com/samuelyu2002/ImVisible/issues/2 (`running_loss_MSE += MSE`).
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


def train(model, loader, optimizer, epochs=1):
    for epoch in range(epochs):
        epoch_losses = {"ce": 0.0, "mse": 0.0}
        for x, labels, targets in loader:
            losses = model.compute_losses(x, labels, targets)
            optimizer.zero_grad()
            sum(losses.values()).backward()
            optimizer.step()
            for key in losses:
                epoch_losses[key] += losses[key]  # expect: GG203
    return epoch_losses


def train_fixed(model, loader, optimizer, epochs=1):
    for epoch in range(epochs):
        epoch_losses = {"ce": 0.0, "mse": 0.0}
        for x, labels, targets in loader:
            losses = model.compute_losses(x, labels, targets)
            optimizer.zero_grad()
            sum(losses.values()).backward()
            optimizer.step()
            for key in losses:
                epoch_losses[key] += losses[key].item()
    return epoch_losses


if __name__ == "__main__":
    net = TwoHeadNet()
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    data = [(torch.randn(2, 4), torch.tensor([0, 2]), torch.randn(2, 1)) for _ in range(2)]
    assert train(net, data, opt)["ce"].requires_grad
    assert isinstance(train_fixed(net, data, opt)["ce"], float)
