"""Views of parameters taken under torch.no_grad() still require grad (GG502).

`torch.no_grad()` stops recording new operations, but a *view* of a tensor that requires
grad (basic indexing `w[3]`, `w[:, :8]`, `.t()`, `.unsqueeze()`, `.view()`...) still requires
grad, as a leaf without grad_fn (checked with torch 2.13.0). Plotting filters or an
embedding row read that way raises "Can't call numpy() on Tensor that requires grad".
Modelled on https://github.com/tkalayci71/embedding-inspector/issues/22 (an embedding row
read under no_grad, then `.numpy()`) and https://github.com/open-retina/open-retina/pull/196
(weights copied before plotting); written in our own words.

The look-alikes copy under no_grad (advanced indexing with a list, `.clone()`, arithmetic),
or read a row whose index is not known to be an int (a tensor index copies).
"""

import torch
from torch import nn

torch.manual_seed(0)


def first_filters(model: nn.Module, show):
    conv = nn.Conv2d(3, 16, 5)
    with torch.no_grad():
        kernels = conv.weight[:8]
    show(kernels.numpy())  # expect: GG502


def embedding_row(show):
    table = nn.Embedding(100, 16)
    with torch.no_grad():
        row = table.weight[7].unsqueeze(0)
    show(row.numpy())  # expect: GG502


def head_weights_transposed(show):
    head = nn.Linear(32, 4)
    with torch.no_grad():
        columns = head.weight.t()
    show(columns.numpy())  # expect: GG502


def filters_cloned(show):
    conv = nn.Conv2d(3, 16, 5)
    with torch.no_grad():
        kernels = conv.weight[:8].clone()
    show(kernels.numpy())


def rows_by_list(show):
    table = nn.Embedding(100, 16)
    with torch.no_grad():
        rows = table.weight[[1, 2, 3]]
    show(rows.numpy())


def scaled_filters(show):
    conv = nn.Conv2d(3, 16, 5)
    with torch.no_grad():
        kernels = conv.weight[:8] * 2.0
    show(kernels.numpy())


def row_by_tensor_index(show, token_ids):
    table = nn.Embedding(100, 16)
    with torch.no_grad():
        row = table.weight[token_ids]
    show(row.numpy())


def view_backpropagated_runs(show):
    # The view is a leaf that requires grad: backward() runs (no "does not require grad").
    table = nn.Embedding(10, 4)
    with torch.no_grad():
        row = table.weight[3]
    row.sum().backward()
