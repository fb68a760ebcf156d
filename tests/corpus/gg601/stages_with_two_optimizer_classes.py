"""A training engine called with two optimizer classes never clears gradients (GG601).

Modelled on https://github.com/IDEA-Research/DN-DETR/issues/19: a detector's
`train_one_epoch(model, criterion, loader, optimizer, ...)` engine function lost its
`optimizer.zero_grad()`, so every step applied the sum of all gradients so far. Here the
engine is run for a warm-up stage with SGD and then with AdamW: inside the engine the
optimizer is one of two classes, an optimizer whichever it is. The parameter is named
`solver`, so that only what the callers pass (not the name) says it is an optimizer.
"""

import torch
from torch import nn


def train_one_epoch(model, criterion, loader, solver, max_norm=0.1):
    model.train()
    for samples, targets in loader:  # expect: GG601
        loss = criterion(model(samples), targets)
        loss.backward()
        if max_norm > 0:
            nn.utils.clip_grad_norm_(model.parameters(), max_norm)
        solver.step()


def train_one_epoch_cleared(model, criterion, loader, solver):
    # The same engine with the line the fix restores: silent.
    model.train()
    for samples, targets in loader:
        solver.zero_grad()
        criterion(model(samples), targets).backward()
        solver.step()


def summed_gradients_remain():
    """The silent effect, shown with a learning rate of 0 (the weights stay put): after the
    uncleared epoch, the gradients are the sum over all batches, not the last batch's."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 2))
    criterion = nn.MSELoss()
    loader = [(torch.randn(4, 6), torch.randn(4, 2)) for _ in range(3)]
    train_one_epoch(model, criterion, loader, torch.optim.SGD(model.parameters(), lr=0.0), 0)
    summed = [p.grad.clone() for p in model.parameters()]
    model.zero_grad()
    criterion(model(loader[-1][0]), loader[-1][1]).backward()
    assert not all(torch.allclose(s, p.grad) for s, p in zip(summed, model.parameters()))


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 2))
    criterion = nn.MSELoss()
    loader = [(torch.randn(4, 6), torch.randn(4, 2)) for _ in range(3)]
    warmup = torch.optim.SGD(model.parameters(), lr=0.01)
    train_one_epoch(model, criterion, loader, warmup)
    train_one_epoch_cleared(model, criterion, loader, warmup)
    solver = torch.optim.AdamW(model.parameters(), lr=1e-3)
    train_one_epoch(model, criterion, loader, solver)
    train_one_epoch_cleared(model, criterion, loader, solver)


if __name__ == "__main__":
    main()
    summed_gradients_remain()
    print("ran: the uncleared engine summed its gradients")
