"""A weak-supervision label model whose estimation method sums the loss tensors of every
batch into `running_loss` for the epoch log; each term keeps its graph alive, so memory
grows with the number of batches until the process is killed. The maintainers' fix is
`running_loss += loss.item()`.

Source (rewritten in our own words, structure kept): https://github.com/BatsResearch/labelmodels/issues/4
- `LabelModel(nn.Module)` with an `estimate`-style method looping over epochs and batches of
a data loader, with the optimiser built inside the method.
"""

import torch
from torch import nn


class LabelModel(nn.Module):
    def __init__(self, num_classes: int = 3, num_lfs: int = 4) -> None:
        super().__init__()
        self.accuracy = nn.Parameter(torch.zeros(num_lfs))
        self.class_balance = nn.Parameter(torch.zeros(num_classes))

    def forward(self, votes):
        return (votes * self.accuracy).sum(dim=1, keepdim=True) + self.class_balance

    def _do_estimate(self, batches, epochs, lr=0.01):
        optimizer = torch.optim.SGD(self.parameters(), lr=lr)
        for epoch in range(epochs):
            running_loss = 0.0
            for votes in batches:
                optimizer.zero_grad()
                log_likelihood = torch.logsumexp(self(votes), dim=1)
                loss = -1 * torch.mean(log_likelihood)
                loss.backward()
                optimizer.step()
                running_loss += loss  # expect: GG203
            print(epoch, running_loss)

    def _do_estimate_fixed(self, batches, epochs, lr=0.01):
        optimizer = torch.optim.SGD(self.parameters(), lr=lr)
        for epoch in range(epochs):
            running_loss = 0.0
            for votes in batches:
                optimizer.zero_grad()
                log_likelihood = torch.logsumexp(self(votes), dim=1)
                loss = -1 * torch.mean(log_likelihood)
                loss.backward()
                optimizer.step()
                running_loss += loss.item()
            print(epoch, running_loss)


def estimate(model, batches, epochs):
    """The same loop as a function given the model: the total keeps every graph."""
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    for epoch in range(epochs):
        running_loss = 0.0
        for votes in batches:
            optimizer.zero_grad()
            loss = -torch.logsumexp(model(votes), dim=1).mean()
            loss.backward()
            optimizer.step()
            running_loss += loss  # expect: GG203
    return running_loss


def estimate_detached(model, batches, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    for epoch in range(epochs):
        running_loss = torch.zeros(())
        for votes in batches:
            optimizer.zero_grad()
            loss = -torch.logsumexp(model(votes), dim=1).mean()
            loss.backward()
            optimizer.step()
            running_loss += loss.detach()
    return running_loss


data = [torch.randn(5, 4) for _ in range(3)]
label_model = LabelModel()
label_model._do_estimate(data, 2)
label_model._do_estimate_fixed(data, 2)
assert estimate(LabelModel(), data, 1).requires_grad
assert not estimate_detached(LabelModel(), data, 1).requires_grad
