"""A per-example NLL loss backpropagated unreduced, its batch size a command-line default that
reaches the parser through the callers (GG501).

Modelled on a PyTorch issue (https://github.com/pytorch/pytorch/issues/6166): a
segmentation model used `NLLLoss` with the per-element reduction switched off, and
`loss.backward()` raised "grad can be implicitly created only for scalar outputs". Here the
script's entry point is `main([])`, which hands its empty list to `get_args(argv)`, so
`parse_args(argv)` sees no command line and every setting is its default: the loader built
from those settings gives batches of 6 rows (36 rows split by 6), and the loss one value per
row. Look-alikes: a parser handed the real command line (`main()` leaves `argv` None, so
`sys.argv` decides the batch size) and a loader whose last batch holds one row.
"""

import argparse

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


def get_args(argv=None):
    parser = argparse.ArgumentParser(description="toy tagger")
    parser.add_argument("--features", type=int, default=10)
    parser.add_argument("--batch_size", type=int, default=6)
    parser.add_argument("--rows", type=int, default=36)
    return parser.parse_args(argv)


def cli_args(argv=None):
    parser = argparse.ArgumentParser(description="toy tagger")
    parser.add_argument("--batch_size", type=int, default=6)
    return parser.parse_args(argv)


def build_loader(args):
    inputs = torch.randn(36, args.features)
    labels = torch.randint(0, 4, (36,))
    return DataLoader(TensorDataset(inputs, labels), batch_size=args.batch_size, shuffle=True)


def train(model, loader):
    for inputs, labels in loader:
        loss = F.nll_loss(F.log_softmax(model(inputs), 1), labels, reduction="none")
        loss.backward()  # expect: GG501


def main(argv=None):
    args = get_args(argv)
    model = nn.Linear(args.features, 4)
    train(model, build_loader(args))


def from_command_line(argv=None):
    # Look-alike: called without a list, so the command line may set any batch size
    # (one included).
    args = cli_args(argv)
    data = TensorDataset(torch.randn(36, 10), torch.randint(0, 4, (36,)))
    model = nn.Linear(10, 4)
    for inputs, labels in DataLoader(data, batch_size=args.batch_size):
        F.nll_loss(F.log_softmax(model(inputs), 1), labels, reduction="none").backward()


def last_row_alone():
    # Look-alike: 37 rows by 6 leave a last batch of one row, whose loss backward accepts.
    data = TensorDataset(torch.randn(37, 10), torch.randint(0, 4, (37,)))
    model = nn.Linear(10, 4)
    *_, (inputs, labels) = DataLoader(data, batch_size=6)
    F.nll_loss(F.log_softmax(model(inputs), 1), labels, reduction="none").backward()


if __name__ == "__main__":
    try:
        main([])
    except RuntimeError as error:
        assert "grad can be implicitly created only for scalar outputs" in str(error)
        print("raises:", error)
    else:
        raise SystemExit("expected a RuntimeError")
    from_command_line(["--batch_size", "1"])
    last_row_alone()
    print("look-alikes run")
