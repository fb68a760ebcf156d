"""A multi-task trainer object sums its per-head losses by building
`torch.Tensor(task_losses)` (the legacy constructor) from a list filled in a loop: the sum is
a fresh leaf and `backward()` raises "element 0 of tensors does not require grad and does
not have a grad_fn". The fixed twin stacks the losses.

Sources (rewritten in our own words, structure kept):
* https://discuss.pytorch.org/t/gradient-is-lost-when-use-torch-tensor-t1-t2/23261
* https://github.com/laekov/fastmoe/issues/49 - a list of losses turned into one tensor.
"""

import torch
import torch.nn.functional as F
from torch import nn


class MultiHead(nn.Module):
    def __init__(self, dim=6, tasks=3):
        super().__init__()
        self.trunk = nn.Linear(dim, 8)
        self.heads = nn.ModuleList(nn.Linear(8, 1) for _ in range(tasks))

    def forward(self, x):
        h = torch.relu(self.trunk(x))
        return [head(h) for head in self.heads]


class Trainer:
    def __init__(self, model, lr=0.05):
        self.model = model
        self.optimizer = torch.optim.SGD(model.parameters(), lr=lr)

    def train_batch(self, x, targets):
        outputs = self.model(x)
        task_losses = []
        for out, target in zip(outputs, targets):
            task_losses.append(F.mse_loss(out, target))
        total = torch.Tensor(task_losses).sum()  # expect: GG105
        self.optimizer.zero_grad()
        total.backward()
        self.optimizer.step()
        return total.item()

    def train_batch_fixed(self, x, targets):
        outputs = self.model(x)
        task_losses = []
        for out, target in zip(outputs, targets):
            task_losses.append(F.mse_loss(out, target))
        total = torch.stack(task_losses).sum()
        self.optimizer.zero_grad()
        total.backward()
        self.optimizer.step()
        return total.item()


def fit(trainer, batches):
    for x, targets in batches:
        trainer.train_batch(x, targets)


trainer = Trainer(MultiHead())
data = [(torch.randn(4, 6), [torch.randn(4, 1) for _ in range(3)])]
try:
    fit(trainer, data)
    raise AssertionError("expected an error")
except RuntimeError as error:
    assert "does not require grad" in str(error)
trainer.train_batch_fixed(*data[0])
# Look-alike: plain numbers from `.item()` wrapped for logging, never backpropagated.
logged = torch.tensor([trainer.train_batch_fixed(*data[0]) for _ in range(2)])
print(logged.mean())
