"""A policy worker keeps its `DataLoader` as `self.data` and draws micro-batches from it with
`iter()` and `next()`, gathering a few before each update. The update clears the gradients,
backpropagates the mean loss of every gathered micro-batch and steps once: nothing divides
by the number of micro-batches, so each update is that many times the gradient of the
global batch. Neither the loader nor its iterator has "loader" in its name: the gathered
items are known to be batches because `self.data` is a `DataLoader`.

Modelled on NVIDIA-NeMo/RL#84: `HfPolicyWorker.train` accumulated gradients over the
micro-batches of a global batch by summing them, so the gradient scale grew with
`gbs / mbs` instead of staying that of the global batch.
https://github.com/NVIDIA-NeMo/RL/issues/84
"""

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


class PolicyWorker:
    def __init__(self, model, dataset, micro_batch_size, lr=0.1):
        self.model = model
        self.optimizer = torch.optim.SGD(model.parameters(), lr=lr)
        self.data = DataLoader(dataset, batch_size=micro_batch_size)
        self.updates = []

    def learn(self, micro_batches):
        self.optimizer.zero_grad()
        for obs, target in micro_batches:
            loss = F.mse_loss(self.model(obs), target)
            loss.backward()  # expect: GG606
        self.updates.append(self.model.weight.grad.clone())
        self.optimizer.step()

    def run(self, micro_batches_per_update):
        stream = iter(self.data)
        gathered = []
        for _ in range(len(self.data)):
            gathered.append(next(stream))
            if len(gathered) == micro_batches_per_update:
                self.learn(gathered)
                gathered = []


if __name__ == "__main__":
    torch.manual_seed(0)
    obs, target = torch.randn(16, 4), torch.randn(16, 1)
    torch.manual_seed(1)
    model = nn.Linear(4, 1)
    torch.manual_seed(1)
    reference = nn.Linear(4, 1)
    F.mse_loss(reference(obs), target).backward()
    full = reference.weight.grad.clone()

    worker = PolicyWorker(model, TensorDataset(obs, target), micro_batch_size=4)
    worker.run(micro_batches_per_update=4)
    ratio = float(worker.updates[0].norm() / full.norm())
    assert abs(ratio - 1.0) < 1e-4, f"update is {ratio:.1f}x the global-batch gradient"
