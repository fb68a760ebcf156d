"""Look-alike: micro-batches gathered from a loader, each loss a sum (`reduction="sum"`)
backpropagated in a loop, the summed gradients then normalised by the number of samples
before the step: summing over micro-batches is the convention of a summed loss, and the
normalisation happens once, on the gradients.

fairseq#2310 asks why its criteria reduce by sum; the answer: the trainer later divides
the gradients by the sample size (the number of masked tokens).
https://github.com/facebookresearch/fairseq/issues/2310
"""

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


def train_step(model, optimizer, samples):
    optimizer.zero_grad()
    sample_size = 0
    for x, y in samples:
        loss = F.cross_entropy(model(x), y, reduction="sum")
        loss.backward()
        sample_size += len(y)
    for p in model.parameters():
        p.grad.mul_(1.0 / sample_size)
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
