"""Gradients cleared, then set by hand before the step: not a discarded gradient (GG605).

Modelled on the task-weighting optimizer of FAMO (https://github.com/Cranial-XIX/FAMO,
discussed in https://github.com/Cranial-XIX/FAMO/issues/4): the weights of the tasks get
their gradient from `torch.autograd.grad` of a quantity of their own, so the update clears
whatever the main loss's backward() left in `.grad`, assigns the gradient it computed, and
steps. `torch.autograd.grad` fills no `.grad` and the assignment refills what `zero_grad()`
cleared, so the step applies exactly the computed gradient. The buggy function clears the
gradients a real backward() just computed and steps on nothing.
"""

import torch
import torch.nn.functional as F


class TaskWeights:
    """Softmax weights of the tasks, updated from the change of the losses."""

    def __init__(self, tasks: int) -> None:
        self.logits = torch.zeros(tasks, requires_grad=True)
        self.optimizer = torch.optim.SGD([self.logits], lr=1.0)

    def weighted(self, losses):
        return (F.softmax(self.logits, -1) * losses).sum()

    def update(self, before, after):
        change = before.log() - after.log()
        with torch.enable_grad():
            grad = torch.autograd.grad(F.softmax(self.logits, -1), self.logits, change)[0]
        self.optimizer.zero_grad()
        self.logits.grad = grad
        self.optimizer.step()

    def update_from_loss(self, losses):
        # After a real backward(), the hand-set gradient still reaches the step.
        self.weighted(losses).backward()
        self.optimizer.zero_grad()
        self.logits.grad = -losses.detach()
        self.optimizer.step()

    def update_cleared(self, losses):
        self.weighted(losses).backward()
        self.optimizer.zero_grad()  # expect: GG605
        self.optimizer.step()


if __name__ == "__main__":
    weights = TaskWeights(2)
    weights.update(torch.tensor([1.0, 1.0]), torch.tensor([0.5, 1.0]))
    assert weights.logits[0] < weights.logits[1], "the computed gradient was applied"

    weights = TaskWeights(2)
    weights.update_from_loss(torch.tensor([2.0, 1.0]))
    assert torch.equal(weights.logits.detach(), torch.tensor([2.0, 1.0]))

    weights = TaskWeights(2)
    weights.update_cleared(torch.tensor([2.0, 1.0]))
    assert torch.equal(weights.logits.detach(), torch.zeros(2)), "the step changed nothing"
    print("ok")
