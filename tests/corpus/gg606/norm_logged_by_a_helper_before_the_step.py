"""Accumulation whose guarded step logs the gradient norm through a helper (GG606).

Every `accum` batches the trainer steps, after calling `self._grad_norm()` for its log line.
The helper only reads the gradients (a norm of their norms), so nothing divides them: the
losses of `accum` batches are summed undivided and the step is `accum` times too large
(checked with torch 2.13.0 below: the accumulated gradient is the sum, not the mean). The
look-alike logs the same norm but steps on every batch. (A helper that rescales the
gradients in place, `p.grad.div_(k)`, is the other fix: see negatives_averaged.py.)

Modelled on a sequence-tagger trainer of the team's second blind corpus.
"""

import torch
from torch import nn


class Trainer:
    def __init__(self, accum=4):
        self.model = nn.Linear(3, 1)
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.0)
        self.accum = accum
        self.norms = []

    def _grad_norm(self):
        return torch.norm(torch.stack([p.grad.norm() for p in self.model.parameters()])).item()

    def epoch(self, batches):
        for i, (x, y) in enumerate(batches):
            loss = nn.functional.mse_loss(self.model(x), y)
            loss.backward()  # expect: GG606
            if (i + 1) % self.accum == 0:
                self.norms.append(self._grad_norm())
                self.optimizer.step()
                self.optimizer.zero_grad()


class PlainTrainer(Trainer):
    def epoch(self, batches):
        for x, y in batches:
            loss = nn.functional.mse_loss(self.model(x), y)
            loss.backward()
            self.norms.append(self._grad_norm())
            self.optimizer.step()
            self.optimizer.zero_grad()


if __name__ == "__main__":
    torch.manual_seed(0)
    batches = [(torch.randn(2, 3), torch.randn(2, 1)) for _ in range(4)]
    trainer = Trainer()
    trainer.epoch(batches[:3])
    summed = trainer.model.weight.grad.clone()
    single = Trainer()
    single.model.load_state_dict(trainer.model.state_dict())
    for x, y in batches[:3]:
        single.model.zero_grad()
        nn.functional.mse_loss(single.model(x), y).backward()
    assert not torch.allclose(summed, single.model.weight.grad), "gradients were summed"
    PlainTrainer().epoch(batches)
