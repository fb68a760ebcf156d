"""Epoch helpers defined inside `main()` leave the model in eval mode (GG607).

`main()` defines `train_epoch()` and `eval_epoch()` as closures over `model`, calls
`model.train()` once before the epoch loop, and then runs one helper after the other. The
evaluation helper, decorated with `@torch.no_grad()`, switches the model to evaluation mode,
and nothing switches it back: from the second epoch on, dropout is off during training
(checked with torch 2.13.0 below: `model.training` is False in the second training epoch).
The nested `def` is the only binding of its name in `main`, so the call runs it.

Look-alikes: the same loop whose training helper calls `model.train()` first, and a function
whose parameter shadows the module-level `switch_off` (the call runs whatever is passed).

Modelled on the BERT classifier case of the team's blind corpus (h14), written as
texar-pytorch's example scripts are: epoch helpers nested in `main`.
"""

import torch
import torch.nn.functional as F
from torch import nn



def switch_off(model):
    model.eval()


def make_data():
    return [(torch.randn(6, 4), torch.randint(0, 2, (6,))) for _ in range(2)]


def main():
    model = nn.Sequential(nn.Linear(4, 8), nn.Dropout(0.5), nn.Linear(8, 2))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    data = make_data()
    modes = []

    def train_epoch():
        for x, y in data:
            modes.append(model.training)
            optimizer.zero_grad()
            F.cross_entropy(model(x), y).backward()
            optimizer.step()

    @torch.no_grad()
    def eval_epoch():
        model.eval()
        for x, y in data:
            model(x).argmax(1).eq(y).float().mean()

    model.train()
    for _ in range(2):
        train_epoch()
        eval_epoch()  # expect: GG607
    return modes


def main_fixed():
    model = nn.Sequential(nn.Linear(4, 8), nn.Dropout(0.5), nn.Linear(8, 2))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    data = make_data()
    modes = []

    def train_epoch():
        model.train()
        for x, y in data:
            modes.append(model.training)
            optimizer.zero_grad()
            F.cross_entropy(model(x), y).backward()
            optimizer.step()

    @torch.no_grad()
    def eval_epoch():
        model.eval()
        for x, _ in data:
            model(x)

    for _ in range(2):
        train_epoch()
        eval_epoch()
    return modes


def run_with(switch_off):
    model = nn.Sequential(nn.Linear(4, 8), nn.Dropout(0.5), nn.Linear(8, 2))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    model.train()
    for x, y in make_data():
        optimizer.zero_grad()
        F.cross_entropy(model(x), y).backward()
        optimizer.step()
        switch_off(model)
    return model.training


if __name__ == "__main__":
    assert main()[2:] == [False, False], "the second epoch should train in eval mode"
    assert all(main_fixed())
    assert run_with(lambda model: None)
