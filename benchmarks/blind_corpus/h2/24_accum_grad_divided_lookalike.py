"""GG606 look-alike: accumulation where the gradients, not the losses, are averaged.

Category GG606 (look-alike, no bug). The loop back-propagates each micro-batch's mean loss
without dividing it, which looks like the classic accumulation mistake. But before each
optimizer step, ``average_accumulated_grads`` divides every accumulated ``.grad`` by the
number of micro-batches, which gives exactly the gradient of the mean over the whole
effective batch. We assert that against a single large batch.
"""
import copy

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def average_accumulated_grads(model, n_micro):
    for p in model.parameters():
        if p.grad is not None:
            p.grad.div_(n_micro)


def train(model, loader, optimizer, criterion, accum_steps, on_update=None):
    model.train()
    optimizer.zero_grad()
    for step, (x, y) in enumerate(loader, start=1):
        loss = criterion(model(x), y)
        loss.backward()
        if step % accum_steps == 0:
            average_accumulated_grads(model, accum_steps)
            if on_update is not None:
                on_update(model)
            optimizer.step()
            optimizer.zero_grad()


def main():
    torch.manual_seed(22)
    x = torch.randn(48, 5)
    y = torch.randint(0, 2, (48,)).float()
    dataset = TensorDataset(x, y.unsqueeze(-1))
    model = nn.Sequential(nn.Linear(5, 12), nn.Tanh(), nn.Linear(12, 1))
    criterion = nn.BCEWithLogitsLoss()

    ref_model = copy.deepcopy(model)
    criterion(ref_model(x[:24]), y[:24].unsqueeze(-1)).backward()
    reference = [p.grad.clone() for p in ref_model.parameters()]

    seen = []
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    loader = DataLoader(dataset, batch_size=6, shuffle=False)
    train(model, loader, optimizer, criterion, accum_steps=4,
          on_update=lambda m: seen.append([p.grad.clone() for p in m.parameters()]))
    assert all(torch.allclose(a, b, atol=1e-6) for a, b in zip(seen[0], reference))
    print(f"{len(seen)} updates, first update matches the 24-sample batch gradient")


if __name__ == "__main__":
    main()
    print("OK")
