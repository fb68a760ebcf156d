"""Look-alikes of a training step handed a gathered list: a trainer gathers the *names* of
its data sources, a list called `loader_names`, and hands them to a joint step that
backpropagates one loss per source (their sum is the multi-source objective, not an
accumulation of micro-batches); and a worker that draws micro-batches from a `DataLoader`
called `dl` through `itertools.islice` divides each loss by their number, as the fix of
NVIDIA-NeMo/RL#84 does (the gradient stays that of the global batch).
https://github.com/NVIDIA-NeMo/RL/issues/84
"""

import itertools

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


class MultiSourceTrainer:
    def __init__(self, model, tables, lr=0.1):
        self.model = model
        self.tables = tables
        self.optimizer = torch.optim.SGD(model.parameters(), lr=lr)

    def joint_step(self, names):
        self.optimizer.zero_grad()
        for name in names:
            x, y = self.tables[name]
            loss = F.mse_loss(self.model(x), y)
            loss.backward()
        self.optimizer.step()

    def fit(self):
        loader_names = ["clean", "noisy"]
        picked = []
        for name in loader_names:
            picked.append(name)
            if len(picked) == len(loader_names):
                self.joint_step(picked)
                picked = []


class AveragingWorker:
    def __init__(self, model, dataset, lr=0.1):
        self.model = model
        self.optimizer = torch.optim.SGD(model.parameters(), lr=lr)
        self.dl = DataLoader(dataset, batch_size=4)
        self.updates = []

    def learn(self, micro_batches):
        self.optimizer.zero_grad()
        for obs, target in micro_batches:
            loss = F.mse_loss(self.model(obs), target)
            (loss / len(micro_batches)).backward()
        self.updates.append(self.model.weight.grad.clone())
        self.optimizer.step()

    def run(self, per_update):
        gathered = []
        for batch in itertools.islice(self.dl, 2 * per_update):
            gathered.append(batch)
            if len(gathered) == per_update:
                self.learn(gathered)
                gathered = []


if __name__ == "__main__":
    torch.manual_seed(0)
    tables = {"clean": (torch.randn(8, 4), torch.randn(8, 1)),
              "noisy": (torch.randn(8, 4), torch.randn(8, 1))}
    MultiSourceTrainer(nn.Linear(4, 1), tables).fit()

    obs, target = torch.randn(16, 4), torch.randn(16, 1)
    torch.manual_seed(1)
    worker = AveragingWorker(nn.Linear(4, 1), TensorDataset(obs, target))
    torch.manual_seed(1)
    reference = nn.Linear(4, 1)
    F.mse_loss(reference(obs), target).backward()
    worker.run(per_update=4)
    assert torch.allclose(worker.updates[0], reference.weight.grad, atol=1e-6)
    print("ok")
