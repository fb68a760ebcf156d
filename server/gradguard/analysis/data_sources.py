"""What `torch.utils.data` hands out when the tensors behind it are known.

`TensorDataset(x, y)` indexes every tensor it holds along the first dimension: item `i` is
the tuple `(x[i], y[i])`. `DataLoader(dataset)` with the default collate function stacks
the items of a batch field by field: each batch is a list `[xb, yb]` of new tensors made
from those rows (checked against torch 2.13.0). A row of a tensor without history has
none, and a stack of rows without history has none either, so the batches of a loader over
data the file made (`torch.randn`, `torch.tensor(array)`) certainly do not require grad.

Only that case is known: a dataset of tensors with history (their rows keep it, and a
stack of them requires grad), any other dataset, a loader with its own `collate_fn`, or
arguments unpacked with `*`/`**` stay unknown (their batches are then at most the
`Autograd.batch` data of `gradguard.analysis.batches`).
"""

from __future__ import annotations

import ast

from gradguard.analysis.shapes import UNKNOWN_SHAPE
from gradguard.analysis.values import Grad, Kind, Value, evolve

TENSOR_DATASETS = frozenset(
    {"torch.utils.data.TensorDataset", "torch.utils.data.dataset.TensorDataset"}
)
DATA_LOADERS = frozenset({"torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader"})


def tensor_dataset(call: ast.Call, args: list[Value]) -> Value | None:
    """`TensorDataset(x, y)` of tensors without history: a sequence whose every item is the
    tuple of their rows. None for anything else."""
    if call.keywords or not call.args or any(isinstance(a, ast.Starred) for a in call.args):
        return None
    if len(args) != len(call.args):
        return None
    rows: list[Value] = []
    for value in args:
        if value.kind is not Kind.TENSOR or value.grad is not Grad.UNTRACKED:
            return None
        rows.append(evolve(value, leaf=False, elements=None, shape=UNKNOWN_SHAPE))
    return Value(kind=Kind.SEQUENCE, items=Value(kind=Kind.SEQUENCE, elements=tuple(rows)))


def data_loader(call: ast.Call, args: list[Value]) -> Value | None:
    """`DataLoader(dataset, ...)` with the default collate over a dataset whose items are
    tuples of rows without history: a sequence whose every item is the list of stacked
    fields, each a tensor without history. None for anything else."""
    if any(isinstance(a, ast.Starred) for a in call.args):
        return None
    if any(kw.arg is None or kw.arg == "collate_fn" for kw in call.keywords):
        return None
    dataset: Value | None = args[0] if call.args and args else None
    for index, kw in enumerate(call.keywords):
        if kw.arg == "dataset" and len(args) > len(call.args) + index:
            dataset = args[len(call.args) + index]
    if dataset is None or dataset.kind is not Kind.SEQUENCE or dataset.items is None:
        return None
    item = dataset.items
    if item.kind is not Kind.SEQUENCE or item.elements is None or item.fields is not None:
        return None
    fields: list[Value] = []
    for row in item.elements:
        if row.kind is not Kind.TENSOR or row.grad is not Grad.UNTRACKED:
            return None
        fields.append(Value(grad=Grad.UNTRACKED, kind=Kind.TENSOR, loss=row.loss))
    return Value(kind=Kind.SEQUENCE, items=Value(kind=Kind.SEQUENCE, elements=tuple(fields)))
