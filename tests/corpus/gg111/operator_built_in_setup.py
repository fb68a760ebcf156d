"""A training operator builds its model and loss in `setup()`, then feeds logits to BCELoss.

The model is a bare nn.Linear, so it outputs logits, and `nn.BCELoss` expects
probabilities: with logits outside [0, 1] it raises "all elements of input should be between
0 and 1" (checked with torch 2.13.0 below). Both are built in `setup()`, not `__init__`: a
method reading them runs after `setup()` (or raises AttributeError), and nothing else stores
those attributes, so they hold what `setup()` built. The look-alike operator applies
`torch.sigmoid` first.

Modelled on a Ray-style TrainingOperator of the team's second blind corpus.
"""

import torch
from torch import nn


class Operator:
    def setup(self, config):
        self.model = nn.Linear(config["features"], 1)
        self.criterion = nn.BCELoss()
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=config["lr"])

    def train_batch(self, features, target):
        output = self.model(features)
        loss = self.criterion(output, target)  # expect: GG111
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()


class SigmoidOperator:
    def setup(self, config):
        self.net = nn.Linear(config["features"], 1)
        self.bce = nn.BCELoss()

    def train_batch(self, features, target):
        probability = torch.sigmoid(self.net(features))
        self.bce(probability, target).backward()


if __name__ == "__main__":
    config = {"features": 3, "lr": 0.1}
    features, target = 10 * torch.randn(8, 3), torch.ones(8, 1)
    operator = Operator()
    operator.setup(config)
    try:
        operator.train_batch(features, target)
    except RuntimeError as error:
        assert "between 0 and 1" in str(error)
    else:
        raise AssertionError("expected BCELoss to refuse logits")
    kept = SigmoidOperator()
    kept.setup(config)
    kept.train_batch(features, target)
