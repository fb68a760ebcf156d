"""Per-sample losses of loader batches backpropagated as they are (GG501).

Modelled on a blog report (https://blog.csdn.net/cyj972628089/article/details/122732509):
the author switched `nn.CrossEntropyLoss` to `reduction='none'` and `loss.backward()` then
failed with "grad can be implicitly created only for scalar outputs", because the loss
held one number per sample of the batch. Here the batch size and the data sizes come from
a settings dict and named constants, and the loader reaches the training function as an
argument: every batch of 96 rows split by 24 holds 24 rows, so the loss holds 24 numbers.
"""

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

SETTINGS = {"features": 12, "classes": 5, "batch": 24}
ROWS = 96


def make_loader():
    inputs = torch.randn(ROWS, SETTINGS["features"])
    labels = torch.randint(0, SETTINGS["classes"], (ROWS,))
    return DataLoader(TensorDataset(inputs, labels), batch_size=SETTINGS["batch"], shuffle=True)


def fit(model, loader, optimizer):
    # Rare classes were to be weighted later, so the loss is kept per sample.
    criterion = nn.CrossEntropyLoss(reduction="none")
    for inputs, labels in loader:
        optimizer.zero_grad()
        per_sample = criterion(model(inputs), labels)
        per_sample.backward()  # expect: GG501
        optimizer.step()


def confidence_penalty():
    # 100 rows by 24 leave a last batch of 4, which drop_last drops: every batch has 24.
    data = TensorDataset(torch.randn(100, SETTINGS["features"]))
    head = nn.Linear(SETTINGS["features"], SETTINGS["classes"])
    for (inputs,) in DataLoader(data, batch_size=SETTINGS["batch"], drop_last=True):
        (head(inputs) * 0.1).backward()  # expect: GG501


def main():
    net = nn.Sequential(nn.Linear(SETTINGS["features"], 32), nn.ReLU(), nn.Linear(32, 5))
    fit(net, make_loader(), torch.optim.SGD(net.parameters(), lr=0.1))


if __name__ == "__main__":
    for case in (main, confidence_penalty):
        try:
            case()
        except RuntimeError as error:
            print("raises:", error)
        else:
            raise SystemExit("expected a RuntimeError")
