"""A trainer whose train and validation loops share one forward helper method.

`validate` switches `self.model` to eval mode and then, batch by batch, calls
`self._forward(batch)`, which runs `self.model` and returns a dict of outputs; the loop keeps
`out["emb"]` in a list. No `torch.no_grad()` anywhere: every kept embedding still holds
its batch's graph (`requires_grad` and a `grad_fn`, checked with torch 2.13.0), so memory
grows with the validation set. Found by a blind corpus a helper wrote for the team (an
attention model's validation cache).
"""

import torch
import torch.nn.functional as F
from torch import nn


class Trainer:
    def __init__(self, model, train_batches, val_batches):
        self.model = model
        self.train_batches = train_batches
        self.val_batches = val_batches
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

    def _forward(self, batch):
        x, y = batch
        logits = self.model(x)
        return {"loss": F.cross_entropy(logits, y), "emb": logits}

    def train_epoch(self):
        self.model.train()
        for batch in self.train_batches:
            out = self._forward(batch)
            self.optimizer.zero_grad()
            out["loss"].backward()
            self.optimizer.step()

    def validate(self):
        self.model.eval()
        embeddings = []
        for batch in self.val_batches:  # expect: GG204
            out = self._forward(batch)
            embeddings.append(out["emb"])
        return torch.cat(embeddings)

    @torch.no_grad()
    def validate_without_graphs(self):
        self.model.eval()
        embeddings = []
        for batch in self.val_batches:
            out = self._forward(batch)
            embeddings.append(out["emb"])
        return torch.cat(embeddings)


class TeacherStudent:
    """The helper runs a model the validating method never switched: not evaluation of it,
    as far as the file shows (no finding)."""

    def __init__(self, student, teacher, val_batches):
        self.student = student
        self.teacher = teacher
        self.val_batches = val_batches

    def _teacher_logits(self, x):
        return self.teacher(x)

    def check_student(self):
        self.student.eval()
        kept = []
        for x, _ in self.val_batches:
            kept.append(self._teacher_logits(x))
        return kept


def batches(count=2):
    return [(torch.randn(4, 6), torch.randint(0, 3, (4,))) for _ in range(count)]


if __name__ == "__main__":
    trainer = Trainer(nn.Linear(6, 3), batches(), batches())
    trainer.train_epoch()
    assert trainer.validate().grad_fn is not None
    assert trainer.validate_without_graphs().grad_fn is None
    pair = TeacherStudent(nn.Linear(6, 3), nn.Linear(6, 3), batches())
    assert pair.check_student()[0].requires_grad
