"""Look-alike: accumulation with sum-reduced losses, gradients averaged before step.

Modelled on: https://github.com/fastai/fastai/issues/3023 (counterpart)

The learner back-propagates every micro-batch loss unscaled, like the buggy
callback, but the loss uses ``reduction='sum'`` and the accumulation callback
counts samples and divides every ``p.grad`` by that count just before the
optimizer steps (NVIDIA-style gradient averaging).  The gradient reaching
``step()`` equals the mean gradient of the big batch.
"""
import argparse

import torch
import torch.nn as nn


class Callback:
    def before_fit(self, learn): pass
    def after_backward(self, learn): pass


class GradientAccumulation(Callback):
    def __init__(self, n_acc):
        self.n_acc = n_acc

    def before_fit(self, learn):
        self.count = 0
        self.samples = 0

    def after_backward(self, learn):
        self.count += 1
        self.samples += learn.pred.size(0)
        learn.skip_step = self.count % self.n_acc != 0
        if not learn.skip_step:
            for p in learn.model.parameters():
                if p.grad is not None:
                    p.grad.div_(self.samples)
            self.samples = 0


class Learner:
    def __init__(self, model, loss_func, lr, cbs=()):
        self.model = model
        self.loss_func = loss_func
        self.opt = torch.optim.SGD(model.parameters(), lr=lr)
        self.cbs = list(cbs)
        self.skip_step = False

    def _call(self, name):
        for cb in self.cbs:
            getattr(cb, name)(self)

    def one_batch(self, xb, yb):
        self.pred = self.model(xb)
        self.loss = self.loss_func(self.pred, yb)
        self.loss.backward()
        self._call("after_backward")
        if not self.skip_step:
            self.opt.step()
            self.opt.zero_grad()

    def fit(self, epochs, loader):
        self._call("before_fit")
        self.model.train()
        for _ in range(epochs):
            for xb, yb in loader:
                self.one_batch(xb, yb)


def make_loader(args):
    g = torch.Generator().manual_seed(0)
    return [(torch.randn(args.bs, args.n_in, generator=g), torch.randint(0, args.n_out, (args.bs,), generator=g))
            for _ in range(args.n_acc)]


def get_args(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--n-in", type=int, default=10)
    p.add_argument("--n-out", type=int, default=3)
    p.add_argument("--bs", type=int, default=4)
    p.add_argument("--n-acc", type=int, default=4)
    p.add_argument("--lr", type=float, default=0.1)
    return p.parse_args(argv)


if __name__ == "__main__":
    torch.manual_seed(0)
    args = get_args([])
    model = nn.Sequential(nn.Linear(args.n_in, 16), nn.ReLU(), nn.Linear(16, args.n_out))
    loader = make_loader(args)
    # gradient of the equivalent single big batch
    xb = torch.cat([x for x, _ in loader]); yb = torch.cat([y for _, y in loader])
    ref = torch.autograd.grad(nn.functional.cross_entropy(model(xb), yb), model[0].weight)[0]
    learn = Learner(model, nn.CrossEntropyLoss(reduction="sum"), args.lr, cbs=[GradientAccumulation(args.n_acc)])
    seen = []
    learn.opt.register_step_pre_hook(lambda opt, a, k: seen.append(model[0].weight.grad.clone()))
    learn.fit(1, loader)
    ratio = (seen[0].norm() / ref.norm()).item()
    assert abs(ratio - 1.0) < 1e-3, ratio
    print("OK")
