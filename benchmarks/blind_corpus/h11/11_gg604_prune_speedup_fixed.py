"""GG604 - optimizer built before the model's parameters were replaced never updates them.

Fixed version: a new optimizer is built on the sped-up model.

Mistake (in the buggy file): the pruning script builds the optimizer, then "speeds up" the model by
replacing each masked nn.Linear with a smaller new nn.Linear (copying the kept rows).
Fine-tuning continues with the old optimizer, which still holds the discarded
Parameter objects. Silent effect: loss.backward() fills .grad on the new layers but
optimizer.step() never touches them: the fine-tuned weights are exactly the
post-speedup weights.

Modelled on: https://github.com/microsoft/nni/issues/4521
(after speedup_model() replaced the layers, fine-tuning did not update the parameters
because the optimizer was created beforehand).
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--sparsity", type=float, default=0.5)
    p.add_argument("--pretrain_epochs", type=int, default=1)
    p.add_argument("--finetune_epochs", type=int, default=1)
    p.add_argument("--lr", type=float, default=0.05)
    return p.parse_args([])


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(16, 64)
        self.fc2 = nn.Linear(64, 32)
        self.fc3 = nn.Linear(32, 4)

    def forward(self, x):
        return self.fc3(F.relu(self.fc2(F.relu(self.fc1(x)))))


def l1_row_masks(model, sparsity):
    masks = {}
    for name in ("fc1", "fc2"):
        w = getattr(model, name).weight.detach()
        keep = int(w.shape[0] * (1 - sparsity))
        masks[name] = w.abs().sum(1).topk(keep).indices.sort().values
    return masks


def speedup_model(model, masks):
    """Replace pruned layers by physically smaller ones (new Parameter objects)."""
    prev_keep = None
    for name in ("fc1", "fc2", "fc3"):
        old = getattr(model, name)
        rows = masks.get(name, torch.arange(old.out_features))
        cols = prev_keep if prev_keep is not None else torch.arange(old.in_features)
        new = nn.Linear(len(cols), len(rows))
        with torch.no_grad():
            new.weight.copy_(old.weight[rows][:, cols])
            new.bias.copy_(old.bias[rows])
        setattr(model, name, new)
        prev_keep = rows
    return model


def train_epoch(model, loader, optimizer):
    model.train()
    total = 0.0
    for x, y in loader:
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        total += loss.item()
    return total / len(loader)


def main():
    args = parse_args()
    torch.manual_seed(0)
    loader = DataLoader(TensorDataset(torch.randn(96, 16), torch.randint(0, 4, (96,))), batch_size=16, shuffle=True)
    model = MLP()
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    for e in range(args.pretrain_epochs):
        print(f"pretrain {e}: {train_epoch(model, loader, optimizer):.4f}")

    masks = l1_row_masks(model, args.sparsity)
    model = speedup_model(model, masks)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)  # fixed: GG604
    before = {k: v.clone() for k, v in model.state_dict().items()}
    for e in range(args.finetune_epochs):
        print(f"finetune {e}: {train_epoch(model, loader, optimizer):.4f}")
    after = model.state_dict()
    return all(torch.equal(before[k], after[k]) for k in before)


if __name__ == "__main__":
    assert not main(), "pruned model still frozen"
    print("FIXED: ok")
