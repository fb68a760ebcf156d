"""GG203: running-average meters kept by a trainer and fed the loss tensors themselves.

Modelled on lyq133/LIC-HPCM#4 (an image-compression trainer whose AverageMeter, built once
before the epoch's loop, is given the rate-distortion loss tensor on every step; the run
leaks memory until it crashes deep into the epoch) and visionml/pytracking#313 (a trainer's
`_update_stats` hands tensors with their graph to AverageMeter objects the trainer keeps
for the whole epoch). The meter's `update` adds what it is given to its own sums, so the
sums become tensors whose graph links every step's graph: nothing can be freed.

Here the trainer keeps two meters on `self`: a scalar AverageMeter and a multi-term meter
keeping one sum per loss term in a list (`self.sums[i] += v`). Both get the loss tensors.

Look-alikes that stay silent (each its own class, so each has its own line): a meter given
`.item()` numbers, a meter whose `update` detaches what it is given, a meter built anew on
every iteration, a meter reset on every iteration before its update, and a meter whose
`update` rebinds its sum afresh.
"""

import torch
from torch import nn


class AverageMeter:
    def __init__(self):
        self.reset()

    def reset(self):
        self.val = 0
        self.sum = 0
        self.count = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n  # expect: GG203
        self.count += n


class TermMeter:
    def __init__(self, names):
        self.names = names
        self.sums = [0] * len(names)

    def add(self, values):
        for i, v in enumerate(values):
            self.sums[i] += v  # expect: GG203


class FreshMeter:
    def __init__(self):
        self.sum = 0

    def record(self, val):
        self.sum += val


class ResetMeter:
    def __init__(self):
        self.sum = 0

    def reset(self):
        self.sum = 0

    def push(self, val):
        self.sum += val


class NumberMeter:
    def __init__(self):
        self.sum = 0

    def add_value(self, val, n=1):
        self.sum += val * n


class DetachingMeter:
    def __init__(self):
        self.sum = 0

    def accumulate(self, val):
        self.sum += val.detach()


class LastValueMeter:
    def __init__(self):
        self.sum = 0

    def put(self, val):
        self.sum += val
        self.sum = 0


class Codec(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Linear(8, 4)
        self.dec = nn.Linear(4, 8)

    def forward(self, x):
        y = self.enc(x)
        return self.dec(y), y


class Trainer:
    def __init__(self):
        self.model = Codec()
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=1e-3)
        self.loss_meter = AverageMeter()
        self.terms = TermMeter(["mse", "rate"])

    def step(self, x):
        x_hat, y = self.model(x)
        mse = nn.functional.mse_loss(x_hat, x)
        rate = y.abs().mean()
        loss = mse + 0.01 * rate
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss, mse, rate

    def train_epoch(self, loader):
        self.loss_meter.reset()
        for x in loader:
            loss, mse, rate = self.step(x)
            self.loss_meter.update(loss, x.size(0))
            self.terms.add([mse, rate])
        return self.loss_meter, self.terms


class CleanTrainer(Trainer):
    """The look-alikes, each a meter that cannot chain the steps' graphs."""

    def __init__(self):
        super().__init__()
        self.numbers = NumberMeter()
        self.detaching = DetachingMeter()
        self.last = LastValueMeter()
        self.resetting = ResetMeter()

    def train_epoch(self, loader):
        fresh = None
        for x in loader:
            loss, mse, rate = self.step(x)
            self.numbers.add_value(loss.item(), x.size(0))  # a number
            self.detaching.accumulate(loss)  # detached inside accumulate
            self.last.put(loss)  # the sum is rebound afresh before put returns
            fresh = FreshMeter()  # built anew on every iteration
            fresh.record(loss)
            self.resetting.reset()  # reset on every iteration, before the update
            self.resetting.push(loss)
        return self.numbers, self.detaching, self.last, self.resetting, fresh


def steps_reached(total):
    """How many steps' losses the graph of `total` reaches (one MseLossBackward0 each)."""
    seen, todo, found = [], [total.grad_fn], 0
    while todo:
        node = todo.pop()
        if node is None or node in seen:
            continue
        seen.append(node)
        found += node.name() == "MseLossBackward0"
        todo.extend(next_node for next_node, _ in node.next_functions)
    return found


def batches():
    return [torch.randn(4, 8) for _ in range(3)]


if __name__ == "__main__":
    torch.manual_seed(0)
    meter, terms = Trainer().train_epoch(batches())
    # The buggy meters' sums hold a graph reaching back through every one of the 3 steps.
    assert steps_reached(meter.sum) == 3, "the meter's sum chains every step's graph"
    assert steps_reached(terms.sums[0]) == 3
    numbers, detaching, last, resetting, fresh = CleanTrainer().train_epoch(batches())
    assert isinstance(numbers.sum, float)
    assert detaching.sum.grad_fn is None
    assert last.sum == 0
    # Reset or built anew: only the last step's graph.
    assert steps_reached(resetting.sum) == 1
    assert steps_reached(fresh.sum) == 1
    print("buggy meters hold graphs; look-alikes hold none")
