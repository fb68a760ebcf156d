"""A trainer's step method that unpacks its batch, every call of it made under no_grad (GG101).

Modelled on the trainer in https://github.com/RangiLyu/nanodet/issues/7, whose traceback
runs `warm_up(train_loader)` -> `run_step(model, batch)` -> `loss.backward()` and fails with
"element 0 of tensors does not require grad". Here the step method takes only the batch
(`images, targets = batch`) and runs the trainer's own model, and the warm-up loop is
wrapped in `torch.no_grad()` (the warm-up "needs no graph"): every call of the step runs without
recording, so its loss has no graph. The step method never calls or hands on its
parameter, it only unpacks it: what every caller passes (and the mode every caller runs it
in) still decides what the step computes. The look-alike trainer also calls its step from
an evaluation loop under no_grad and from a training loop with recording on: the step is
then run, for each call, in that call's mode.
"""

import torch
from torch import nn


class WarmupTrainer:
    def __init__(self, model):
        self.model = model
        self.criterion = nn.CrossEntropyLoss()
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.01)

    def run_step(self, batch):
        images, targets = batch
        loss = self.criterion(self.model(images), targets)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item()

    def warm_up(self, loader):
        with torch.no_grad():  # expect: GG101
            return [self.run_step(batch) for batch in loader]


class Trainer:
    def __init__(self, model):
        self.model = model
        self.criterion = nn.CrossEntropyLoss()
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.01)

    def forward_step(self, batch):
        images, targets = batch
        logits = self.model(images)
        return {"loss": self.criterion(logits, targets), "logits": logits}

    def train_epoch(self, loader):
        for batch in loader:
            out = self.forward_step(batch)
            self.optimizer.zero_grad()
            out["loss"].backward()
            self.optimizer.step()

    def evaluate(self, loader):
        with torch.no_grad():
            return [self.forward_step(batch)["logits"].argmax(1) for batch in loader]


def batches(count=2):
    return [(torch.randn(4, 6), torch.randint(0, 3, (4,))) for _ in range(count)]


if __name__ == "__main__":
    try:
        WarmupTrainer(nn.Linear(6, 3)).warm_up(batches())
        raise SystemExit("the warm-up trained under no_grad")
    except RuntimeError as error:
        assert "does not require grad" in str(error), error
    trainer = Trainer(nn.Linear(6, 3))
    trainer.train_epoch(batches())
    assert len(trainer.evaluate(batches())) == 2
    print("ok")
