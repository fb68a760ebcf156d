"""Look-alike: micro-batches gathered from a loader, each loss a mean backpropagated
undivided in a loop, but the gradients are divided by the number of micro-batches after the
loop, before the step: dividing the gradients or the loss is the same average.

NVIDIA/DeepLearningExamples#1112 asks why BERT pretraining does not divide its loss by the
accumulation steps; the answer: the summed gradients are divided by that number instead,
the same thing in theory.
https://github.com/NVIDIA/DeepLearningExamples/issues/1112
"""

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


def train_step(model, optimizer, samples):
    optimizer.zero_grad()
    for x, y in samples:
        loss = F.cross_entropy(model(x), y)
        loss.backward()
    for p in model.parameters():
        p.grad.div_(len(samples))
    grad = model.weight.grad.clone()
    optimizer.step()
    return grad


def train_epoch(model, optimizer, train_loader, update_freq):
    grads, pending = [], []
    for batch in train_loader:
        pending.append(batch)
        if len(pending) == update_freq:
            grads.append(train_step(model, optimizer, pending))
            pending = []
    return grads


if __name__ == "__main__":
    torch.manual_seed(0)
    xs, ys = torch.randn(16, 4), torch.randint(0, 3, (16,))
    model = nn.Linear(4, 3)
    F.cross_entropy(model(xs), ys).backward()
    full = model.weight.grad.clone()
    loader = DataLoader(TensorDataset(xs, ys), batch_size=4)
    grads = train_epoch(model, torch.optim.SGD(model.parameters(), lr=0.1), loader, 4)
    assert torch.allclose(grads[0], full, atol=1e-6)
    print("ok")
