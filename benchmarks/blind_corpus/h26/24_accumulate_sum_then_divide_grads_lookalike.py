"""GG606 look-alike - accumulation where backward() gets the raw loss, normalised later.

The training loop accumulates gradients over several micro-batches and calls
loss.backward() on each un-divided loss, but the loss uses reduction='sum' and,
before the optimizer step, the helper normalize_grads() divides every .grad by
the number of samples seen in the window.  The final gradient equals the
full-batch mean gradient exactly.  A checker that insists on "loss / accum_steps"
before backward() would flag this correct code.

Modelled on: https://github.com/facebookresearch/fairseq/issues/5256 (correct counterpart)
"""
import copy

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

ACCUM_STEPS = 3
MICRO_BATCH = 5
LR = 0.05
EPOCHS = 1


def build_model():
    return nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 16), nn.ReLU(), nn.Linear(16, 1))


def normalize_grads(model, num_samples):
    for p in model.parameters():
        if p.grad is not None:
            p.grad.div_(num_samples)


def train(model, loader, optimizer, criterion, accum_steps, on_update=None):
    model.train()
    optimizer.zero_grad()
    seen = 0
    for i, (x, y) in enumerate(loader):
        loss = criterion(model(x).squeeze(-1), y)   # summed over the micro-batch
        loss.backward()
        seen += x.size(0)
        if (i + 1) % accum_steps == 0:
            normalize_grads(model, seen)
            if on_update is not None:
                on_update(model)
            optimizer.step()
            optimizer.zero_grad()
            seen = 0


def main():
    torch.manual_seed(6)
    x = torch.randn(45, 10)
    y = x[:, :3].sum(1) + 0.1 * torch.randn(45)
    loader = DataLoader(TensorDataset(x, y), batch_size=MICRO_BATCH, shuffle=False)
    model = build_model()
    reference = copy.deepcopy(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=LR)
    captured = []

    def grab(m):
        if not captured:
            captured.append([p.grad.clone() for p in m.parameters()])

    for epoch in range(EPOCHS):
        train(model, loader, optimizer, nn.MSELoss(reduction="sum"), ACCUM_STEPS, on_update=grab)

    n = ACCUM_STEPS * MICRO_BATCH
    nn.MSELoss()(reference(x[:n]).squeeze(-1), y[:n]).backward()
    ref = [p.grad for p in reference.parameters()]
    return captured[0], ref


if __name__ == "__main__":
    got, ref = main()
    assert all(torch.allclose(a, b, atol=1e-5) for a, b in zip(got, ref))
    print("OK")
