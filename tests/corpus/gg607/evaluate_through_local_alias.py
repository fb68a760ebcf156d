"""A trainer whose `evaluate` switches `self.model` to eval mode through a local alias.

Both methods start with `model = self.model`. `fit` switches the model to training mode
once, before its batch loop, and calls `evaluate` every few steps; `evaluate` calls
`model.eval()` on its own alias and returns without switching back. The alias is the same
module object, so after the first evaluation every later step trains with dropout off. In
IBM/pytorch-seq2seq#38 the reviewers chose exactly this split: the evaluator only calls
`model.eval()` and the trainer is expected to switch the model back, so a trainer that
switches it once per run keeps training in eval mode (checked with torch 2.13.0 below).

Look-alikes that stay correct: evaluating a deep copy, a name bound to the model and then
to another module, and a context manager of the file that restores the mode.
"""

import contextlib
import copy

import torch
import torch.nn.functional as F
from torch import nn


def make_model():
    return nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Dropout(0.5), nn.Linear(8, 2))


def make_batches(count=6):
    return [(torch.randn(4, 6), torch.randint(0, 2, (4,))) for _ in range(count)]


class AliasTrainer:
    def __init__(self, batches):
        self.model = make_model()
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.1)
        self.batches = batches
        self.modes = []

    def fit(self):
        model = self.model
        model.train()
        for step, (x, y) in enumerate(self.batches):
            self.modes.append(model.training)
            self.optimizer.zero_grad()
            F.cross_entropy(model(x), y).backward()
            self.optimizer.step()
            if step % 2 == 0:
                self.evaluate()  # expect: GG607

    def evaluate(self):
        model = self.model
        model.eval()
        with torch.no_grad():
            return sum(float(F.cross_entropy(model(x), y)) for x, y in self.batches)


class CopyTrainer:
    """Evaluates a deep copy: the model that trains keeps its mode."""

    def __init__(self, batches):
        self.model = make_model()
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.1)
        self.batches = batches
        self.modes = []

    def fit(self):
        model = self.model
        model.train()
        for step, (x, y) in enumerate(self.batches):
            self.modes.append(model.training)
            self.optimizer.zero_grad()
            F.cross_entropy(model(x), y).backward()
            self.optimizer.step()
            if step % 2 == 0:
                self.evaluate()

    def evaluate(self):
        model = copy.deepcopy(self.model)
        model.eval()
        with torch.no_grad():
            return sum(float(F.cross_entropy(model(x), y)) for x, y in self.batches)


class EmaTrainer:
    """`model` names the trained model first, then the averaged copy that is evaluated."""

    def __init__(self, batches):
        self.model = make_model()
        self.ema = copy.deepcopy(self.model)
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.1)
        self.batches = batches
        self.modes = []

    def fit(self):
        model = self.model
        model.train()
        for step, (x, y) in enumerate(self.batches):
            self.modes.append(model.training)
            self.optimizer.zero_grad()
            F.cross_entropy(model(x), y).backward()
            self.optimizer.step()
            if step % 2 == 0:
                self.evaluate()

    def evaluate(self):
        model = self.model
        if self.ema is not None:
            model = self.ema
        model.eval()
        with torch.no_grad():
            return sum(float(F.cross_entropy(model(x), y)) for x, y in self.batches)


@contextlib.contextmanager
def eval_mode(module):
    was_training = module.training
    module.eval()
    try:
        yield module
    finally:
        module.train(was_training)


class RestoringTrainer:
    """Evaluates under a context manager that puts the mode back."""

    def __init__(self, batches):
        self.model = make_model()
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.1)
        self.batches = batches
        self.modes = []

    def fit(self):
        model = self.model
        model.train()
        for step, (x, y) in enumerate(self.batches):
            self.modes.append(model.training)
            self.optimizer.zero_grad()
            F.cross_entropy(model(x), y).backward()
            self.optimizer.step()
            if step % 2 == 0:
                self.evaluate()

    def evaluate(self):
        model = self.model
        with torch.no_grad(), eval_mode(model):
            return sum(float(F.cross_entropy(model(x), y)) for x, y in self.batches)


if __name__ == "__main__":
    torch.manual_seed(0)
    buggy = AliasTrainer(make_batches())
    buggy.fit()
    try:
        assert all(buggy.modes), f"{buggy.modes.count(False)} steps trained in eval mode"
    except AssertionError as error:
        assert "5 steps trained in eval mode" in str(error), error
    else:
        raise SystemExit("the alias did not switch the trained model")
    for trainer_class in (CopyTrainer, EmaTrainer, RestoringTrainer):
        trainer = trainer_class(make_batches())
        trainer.fit()
        assert all(trainer.modes), trainer_class.__name__
    print("ok")
