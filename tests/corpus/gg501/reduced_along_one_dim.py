"""Losses reduced along one dimension only, then backpropagated (GG501).

Summing or averaging over the feature dimension (`.sum(dim=1)`) leaves one value per sample:
backward() then raises "grad can be implicitly created only for scalar outputs". The bug is
the one of the reduction='none' reports, e.g. http://hbase.cn/archives/1390.html (a
per-sample CrossEntropyLoss backpropagated directly); written here in our own words. The
look-alikes reduce the rest of the way, keep a single element, or reduce a dimension whose
size is not known.
"""

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)


def reconstruction_per_row():
    decoder = nn.Linear(4, 20)
    codes, rows = torch.randn(32, 4), torch.randn(32, 20)
    error = F.mse_loss(decoder(codes), rows, reduction="none").sum(dim=1)
    error.backward()  # expect: GG501


def mean_over_last_dim():
    head = nn.Linear(8, 3)
    features, targets = torch.randn(10, 8), torch.randn(10, 3)
    per_sample = torch.mean((head(features) - targets) ** 2, -1)
    per_sample.backward()  # expect: GG501


def reduced_the_rest_of_the_way():
    decoder = nn.Linear(4, 20)
    codes, rows = torch.randn(32, 4), torch.randn(32, 20)
    error = F.mse_loss(decoder(codes), rows, reduction="none").sum(dim=1).mean()
    error.backward()


def one_sample_kept_dims():
    head = nn.Linear(5, 6)
    score = head(torch.randn(1, 5)).sum(1, keepdim=True)
    score.backward()


def one_sample_summed_over_features():
    head = nn.Linear(5, 6)
    score = head(torch.randn(1, 5)).sum(dim=-1)
    score.backward()


def every_dim_at_once():
    weights = torch.randn(3, 4, requires_grad=True)
    total = (weights * 2).sum(dim=(0, 1))
    total.backward()


def first_dim_of_unknown_rank(model, batch):
    head = nn.Linear(16, 1)
    out = head(model(batch)).sum(dim=0)
    out.backward()


if __name__ == "__main__":
    model = nn.Linear(16, 16)
    for case in (reduced_the_rest_of_the_way, one_sample_kept_dims, one_sample_summed_over_features, every_dim_at_once):
        case()
    first_dim_of_unknown_rank(model, torch.randn(1, 16))
    for case in (reconstruction_per_row, mean_over_last_dim):
        try:
            case()
        except RuntimeError as error:
            assert "only for scalar outputs" in str(error), error
        else:
            raise AssertionError(case.__name__)
    print("as marked")
