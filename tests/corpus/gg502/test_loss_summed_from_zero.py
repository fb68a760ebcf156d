"""A test loss summed from `0` over the batches, then turned into numpy (GG502).

Each federated client evaluates its model by summing the loss of every test batch into a
total that starts as the Python number `0`, without `torch.no_grad()`. From the first batch
on the total is a tensor that requires grad, and the server's `loss.numpy()` raises "Can't
call numpy() on Tensor that requires grad" (checked with torch 2.13.0 below). Had the loader
been empty the total would still be `0`, and `.numpy()` would raise AttributeError instead.

Look-alikes: the same total of `.item()` numbers, a total of detached losses, and the sum
taken under `torch.no_grad()`.

Modelled on the FedAvg server evaluation case of the team's blind corpus (h14), whose
report is FedGen's issue about `test()` losses handed to numpy.
"""

import torch
import torch.nn.functional as F
from torch import nn


class Client:
    def __init__(self):
        self.model = nn.Linear(4, 2)
        self.batches = [(torch.randn(3, 4), torch.randint(0, 2, (3,))) for _ in range(2)]

    def test(self):
        loss = 0
        for x, y in self.batches:
            loss += F.cross_entropy(self.model(x), y)
        return loss

    def test_numbers(self):
        loss = 0.0
        for x, y in self.batches:
            loss += F.cross_entropy(self.model(x), y).item()
        return loss

    def test_detached(self):
        loss = 0
        for x, y in self.batches:
            loss += F.cross_entropy(self.model(x), y).detach()
        return loss

    @torch.no_grad()
    def test_no_grad(self):
        loss = 0
        for x, y in self.batches:
            loss += F.cross_entropy(self.model(x), y)
        return loss


def evaluate():
    client = Client()
    loss = client.test()
    return loss.numpy()  # expect: GG502


def evaluate_fixed():
    client = Client()
    return (
        torch.tensor(client.test_numbers()).numpy(),
        client.test_detached().numpy(),
        client.test_no_grad().numpy(),
    )


if __name__ == "__main__":
    evaluate_fixed()
    try:
        evaluate()
    except RuntimeError as error:
        assert "requires grad" in str(error)
    else:
        raise AssertionError("expected numpy() to refuse the total")
