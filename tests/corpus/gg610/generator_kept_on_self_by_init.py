"""`__init__` keeps a generator of parameters on `self`, uses it up, and another method reads
it again (GG610).

`ClippedTrainer.__init__` stores `self.trainable = filter(...)` over the model's parameters
and builds its Adam optimizer from it on the next line: the optimizer walked the filter to
its end before `__init__` returned. `step()` then clips `self.trainable` after each
backward, and `clip_grad_norm_` sees no parameter at all: it returns a norm of 0 and leaves
the gradients as they are. `HeadTuner.__init__` counts the elements of
`self.head_params` (a `parameters()` generator) for a log line; `make_optimizer()` later
hands the same, now empty, generator to SGD, which raises "optimizer got an empty
parameter list".

Look-alikes that run: a trainer keeping a list; one whose `__init__` never walks the
generator (the one method reading it is its only reader); one that walks it in `__init__`
only when asked and is not asked; one whose `__init__` may return before walking it (and
does); one that re-binds the attribute in a method before reading it again.

Modelled on PixArt-alpha/PixArt-alpha#160, where a `filter(...)` of trainable parameters
built once fed the optimizer and was then handed to the gradient clipping of every step,
which clipped nothing (https://github.com/PixArt-alpha/PixArt-alpha/pull/160).
"""

import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(6, 6)
        self.head = nn.Linear(6, 2)

    def forward(self, x):
        return self.head(torch.relu(self.body(x)))


class ClippedTrainer:
    def __init__(self, model, lr, max_norm):
        self.model = model
        self.max_norm = max_norm
        self.trainable = filter(lambda p: p.requires_grad, self.model.parameters())
        self.optimizer = torch.optim.Adam(self.trainable, lr=lr)

    def step(self, x, y):
        self.optimizer.zero_grad()
        loss = nn.functional.mse_loss(self.model(x), y) * 1e4
        loss.backward()
        norm = nn.utils.clip_grad_norm_(self.trainable, self.max_norm)  # expect: GG610
        self.optimizer.step()
        return float(norm)


class HeadTuner:
    def __init__(self, model):
        self.tuned = model
        self.head_params = self.tuned.parameters()
        print("head elements:", sum(p.numel() for p in self.head_params))

    def make_optimizer(self, lr):
        return torch.optim.SGD(self.head_params, lr=lr)  # expect: GG610


class ListedTrainer:
    def __init__(self, model):
        self.listed_net = model
        self.trainable = list(self.listed_net.parameters())
        self.optimizer = torch.optim.Adam(self.trainable, lr=1e-3)

    def clip(self):
        return float(nn.utils.clip_grad_norm_(self.trainable, 1.0))


class LazyTrainer:
    def __init__(self, model):
        self.lazy_net = model
        self.pending = self.lazy_net.parameters()

    def make_optimizer(self):
        return torch.optim.Adam(self.pending, lr=1e-3)


class OptionalCount:
    def __init__(self, model, verbose):
        self.counted_net = model
        self.counted = self.counted_net.parameters()
        if verbose:
            print(sum(p.numel() for p in self.counted))

    def make_optimizer(self):
        return torch.optim.Adam(self.counted, lr=1e-3)


class EarlyExit:
    def __init__(self, model, deferred):
        self.deferred_net = model
        self.deferred_params = self.deferred_net.parameters()
        if deferred:
            return
        self.optimizer = torch.optim.Adam(self.deferred_params, lr=1e-3)

    def make_optimizer(self):
        return torch.optim.Adam(self.deferred_params, lr=1e-3)


class Rebuilt:
    def __init__(self, model):
        self.rebuilt_net = model
        self.fresh = self.rebuilt_net.parameters()
        self.optimizer = torch.optim.Adam(self.fresh, lr=1e-3)

    def clip(self):
        self.fresh = self.rebuilt_net.parameters()
        return float(nn.utils.clip_grad_norm_(self.fresh, 1.0))


def main():
    torch.manual_seed(0)
    x, y = torch.randn(8, 6), torch.randn(8, 2)
    norm = ClippedTrainer(Net(), 1e-3, 0.5).step(x, y)
    assert norm == 0.0, norm  # the clipping saw no parameter

    try:
        HeadTuner(Net()).make_optimizer(0.1)
    except ValueError as error:
        assert "empty parameter list" in str(error), error
    else:
        raise AssertionError("the optimizer was built from an exhausted generator")

    model = Net()
    model(x).pow(2).sum().backward()
    assert ListedTrainer(model).clip() > 0
    assert len(LazyTrainer(Net()).make_optimizer().param_groups[0]["params"]) == 4
    assert len(OptionalCount(Net(), False).make_optimizer().param_groups[0]["params"]) == 4
    assert len(EarlyExit(Net(), True).make_optimizer().param_groups[0]["params"]) == 4
    assert Rebuilt(model).clip() > 0
    print("ok: the kept generators were exhausted; the look-alikes see every parameter")


if __name__ == "__main__":
    main()
