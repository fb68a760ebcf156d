"""A loss-compute object returns the loss tensor, and the epoch sums it (GG203).

The structure follows the Annotated Transformer's `SimpleLossCompute`
(https://github.com/harvardnlp/annotated-transformer): `run_epoch` calls a loss-compute
object, whose `__call__` computes the loss, backpropagates and steps. Here `__call__`
returns the loss tensor itself, and `run_epoch` adds it to a running total: the mistake of
the PyTorch FAQ (https://pytorch.org/docs/stable/notes/faq.html, "total_loss += loss"),
which keeps every iteration's graph alive. Calling the instance runs `__call__`, so the
total is known to add a tensor with history. The look-alike returns `loss.item()`.
"""

import torch
from torch import nn


class LossCompute:
    def __init__(self, criterion, optimizer):
        self.criterion = criterion
        self.optimizer = optimizer

    def __call__(self, out, target):
        loss = self.criterion(out, target)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss


class NumberLossCompute(LossCompute):
    def __call__(self, out, target):
        loss = self.criterion(out, target)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item()


def run_epoch(model, batches, compute):
    total = 0
    for x, y in batches:
        total += compute(model(x), y)  # expect: GG203
    return total / len(batches)


def run_epoch_numbers(model, batches, compute):
    total = 0.0
    for x, y in batches:
        total += compute(model(x), y)
    return total / len(batches)


def main():
    torch.manual_seed(0)
    model = nn.Linear(4, 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    batches = [(torch.randn(3, 4), torch.randint(0, 2, (3,))) for _ in range(4)]
    average = run_epoch(model, batches, LossCompute(nn.CrossEntropyLoss(), optimizer))
    numbers = run_epoch_numbers(model, batches, NumberLossCompute(nn.CrossEntropyLoss(), optimizer))
    # The silent effect: the average still holds the graph of every iteration.
    assert average.grad_fn is not None and isinstance(numbers, float)


if __name__ == "__main__":
    main()
    print("the running total kept every iteration's graph")
