"""A per-sample refinement method whose only caller is a prediction method decorated with
no_grad, in a class built on a base class of the same file (GG101).

Modelled on https://github.com/Lightning-AI/pytorch-lightning/issues/19910: gradient steps
taken while testing fail with "element 0 of tensors does not require grad", because the
testing hook runs with gradient recording off. Here the harness is plain Python, with no
framework: `OffsetRefiner` extends `Harness`, a base class of this file on `object` that
keeps the shared settings, and its `predict` (decorated with `@torch.no_grad()` "since it
only predicts") calls `self.refine(...)`, which fits an input offset with a few SGD steps.
Every call of `refine` runs without recording, so its loss has no graph. Only the file's
own code calls the methods of such a class, as for a class on `object`.

Look-alikes: a refiner on the same base whose `predict` turns recording back on with
`torch.enable_grad()` around the refinement, and one whose gradient steps run in a method
called only from an undecorated `fit`, beside a `predict` under no_grad that takes none.
"""

import torch
from torch import nn


class Harness:
    def __init__(self, steps, lr):
        self.steps = steps
        self.lr = lr

    def settings(self):
        return {"steps": self.steps, "lr": self.lr}


class OffsetRefiner(Harness):
    def __init__(self, width):
        super().__init__(steps=3, lr=0.1)
        self.model = nn.Sequential(nn.Linear(width, 8), nn.Tanh(), nn.Linear(8, 2))

    def refine(self, x):
        offset = torch.zeros_like(x, requires_grad=True)
        opt = torch.optim.SGD([offset], lr=self.lr)
        for _ in range(self.steps):
            opt.zero_grad()
            loss = self.model(x + offset).pow(2).mean()
            loss.backward()
            opt.step()
        return (x + offset).detach()

    @torch.no_grad()  # expect: GG101
    def predict(self, x):
        return self.model(self.refine(x))


class EnabledRefiner(Harness):
    def __init__(self, width):
        super().__init__(steps=3, lr=0.1)
        self.model = nn.Sequential(nn.Linear(width, 8), nn.Tanh(), nn.Linear(8, 2))

    def refine(self, x):
        offset = torch.zeros_like(x, requires_grad=True)
        opt = torch.optim.SGD([offset], lr=self.lr)
        for _ in range(self.steps):
            opt.zero_grad()
            loss = self.model(x + offset).pow(2).mean()
            loss.backward()
            opt.step()
        return (x + offset).detach()

    @torch.no_grad()
    def predict(self, x):
        with torch.enable_grad():
            refined = self.refine(x)
        return self.model(refined)


class FittingRefiner(Harness):
    def __init__(self, width):
        super().__init__(steps=2, lr=0.1)
        self.model = nn.Linear(width, 2)

    def sensitivity(self, x):
        delta = torch.zeros_like(x, requires_grad=True)
        loss = self.model(x + delta).pow(2).mean()
        loss.backward()
        return delta.grad

    def fit(self, x):
        return self.sensitivity(x)

    @torch.no_grad()
    def predict(self, x):
        return self.model(x)


if __name__ == "__main__":
    x = torch.randn(4, 5)
    try:
        OffsetRefiner(5).predict(x)
        raise SystemExit("the refinement trained under no_grad")
    except RuntimeError as error:
        assert "does not require grad" in str(error), error
    assert EnabledRefiner(5).predict(x).shape == (4, 2)
    fitting = FittingRefiner(5)
    assert fitting.fit(x).shape == (4, 5)
    assert fitting.predict(x).shape == (4, 2)
    print("ok", fitting.settings())
