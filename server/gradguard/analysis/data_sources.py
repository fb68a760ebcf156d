"""What `torch.utils.data` hands out when the tensors behind it are known.

`TensorDataset(x, y)` indexes every tensor it holds along the first dimension: item `i` is
the tuple `(x[i], y[i])`. `DataLoader(dataset)` with the default collate function stacks
the items of a batch field by field: each batch is a list `[xb, yb]` of new tensors made
from those rows (checked against torch 2.13.0). A row of a tensor without history has
none, and a stack of rows without history has none either, so the batches of a loader over
data the file made (`torch.randn`, `torch.tensor(array)`) certainly do not require grad.

Shapes follow when the data's are known exactly: a row of an `(N, 3)` tensor is `(3,)`, and
a field of a batch is `(B, 3)` where `B` is the batch size when every batch has that size
(`N` a multiple of `batch_size`, or `drop_last=True`; a single batch of `N` rows when
`N <= batch_size`). A dataset keeps its number of rows `N` as its shape `(N,)`, the size
`len()` gives. A sampler, a batch sampler, a batch size or `drop_last` the analysis does
not know leave the batch dimension unknown.

Only that case is known: a dataset of tensors with history (their rows keep it, and a
stack of them requires grad), any other dataset, a loader with its own `collate_fn`, or
arguments unpacked with `*`/`**` stay unknown (their batches are then at most the
`Autograd.batch` data of `gradguard.analysis.batches`).
"""

from __future__ import annotations

import ast

from gradguard.analysis.call_sites import keyword_argument
from gradguard.analysis.shapes import UNKNOWN_SHAPE, Dim, Shape
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
    for value in args:
        if value.kind is not Kind.TENSOR or value.grad is not Grad.UNTRACKED:
            return None
    length = _rows(args)
    rows = tuple(
        evolve(
            value,
            leaf=False,
            elements=None,
            shape=_row_shape(value.shape) if length is not None else UNKNOWN_SHAPE,
        )
        for value in args
    )
    item = Value(kind=Kind.SEQUENCE, elements=rows)
    if length is None:
        return Value(kind=Kind.SEQUENCE, items=item)
    return Value(kind=Kind.SEQUENCE, items=item, shape=Shape((length,), exact=True))


def _rows(tensors: list[Value]) -> int | None:
    """The number of rows `N` of a TensorDataset of these tensors: TensorDataset asserts that
    every tensor has the same first dimension, so one known exactly tells it (two different
    ones raise). None when none is known."""
    firsts = {t.shape.dims[0] for t in tensors if t.shape.exact and t.shape.dims}
    firsts.discard(None)
    return firsts.pop() if len(firsts) == 1 else None


def _row_shape(shape: Shape) -> Shape:
    """The shape of one row of a tensor of `shape`: its dimensions after the first when it is
    known exactly, unknown otherwise."""
    return Shape(shape.dims[1:], exact=True) if shape.exact and shape.dims else UNKNOWN_SHAPE


def data_loader(call: ast.Call, args: list[Value]) -> Value:
    """`DataLoader(...)`: a sequence whose every item is a batch (`Value.batch`). With the
    default collate over a dataset whose items are tuples of rows without history, each
    batch is the list of stacked fields, each a tensor without history (`_stacked_batches`);
    otherwise nothing more is known of a batch than that it is one."""
    stacked = _stacked_batches(call, args)
    return stacked if stacked is not None else Value(kind=Kind.SEQUENCE, items=BATCH)


# What a batch of a loader is, when nothing more is known: data drawn from a loader.
BATCH = Value(batch=True)


def _stacked_batches(call: ast.Call, args: list[Value]) -> Value | None:
    """`DataLoader(dataset, ...)` with the default collate over a dataset whose items are
    tuples of rows without history: a sequence whose every item is the list of stacked
    fields, each a tensor without history. None for anything else."""
    if any(isinstance(a, ast.Starred) for a in call.args):
        return None
    if any(kw.arg is None or kw.arg == "collate_fn" for kw in call.keywords):
        return None
    dataset = keyword_argument(call, args, "dataset")
    if dataset is None and call.args and args:
        dataset = args[0]
    if dataset is None or dataset.kind is not Kind.SEQUENCE or dataset.items is None:
        return None
    item = dataset.items
    if item.kind is not Kind.SEQUENCE or item.elements is None or item.fields is not None:
        return None
    fields: list[Value] = []
    batch = _batch_dimension(call, args, dataset.shape)
    for row in item.elements:
        if row.kind is not Kind.TENSOR or row.grad is not Grad.UNTRACKED:
            return None
        shape = UNKNOWN_SHAPE
        if row.shape.exact and batch is not None:
            shape = Shape((*batch, *row.shape.dims), exact=True)
        # Stacking rows keeps their dtype.
        fields.append(
            Value(
                grad=Grad.UNTRACKED,
                kind=Kind.TENSOR,
                loss=row.loss,
                shape=shape,
                integer_dtype=row.integer_dtype,
                index_dtype=row.index_dtype,
                batch=True,
            )
        )
    batch_value = Value(kind=Kind.SEQUENCE, elements=tuple(fields), batch=True)
    return Value(kind=Kind.SEQUENCE, items=batch_value)


# DataLoader's parameters in order, up to those that decide the batches' sizes.
_LOADER_PARAMETERS = ("dataset", "batch_size", "shuffle", "sampler", "batch_sampler")


def _batch_dimension(call: ast.Call, args: list[Value], dataset: Shape) -> tuple[Dim] | None:
    """The dimension `DataLoader(dataset, ...)` stacks rows along: `(B,)` when every batch
    has `B` rows (the batch size when the dataset's `N` rows split into full batches or
    `drop_last=True` drops the rest, `N` when one batch holds them all), `(None,)` when the
    sizes vary or a sampler decides them. None when batches may not be stacked rows at all
    (a `batch_size` that may be None) or the call is not understood."""
    if len(call.args) > 3:
        return None
    given: dict[str, Value] = dict(zip(_LOADER_PARAMETERS, args[: len(call.args)], strict=False))
    for index, kw in enumerate(call.keywords):
        if kw.arg is not None:
            given[kw.arg] = args[len(call.args) + index]
    size = given["batch_size"].const if "batch_size" in given else 1
    if type(size) is not int or size < 1:
        return None
    drop = given["drop_last"].const if "drop_last" in given else False
    varies: tuple[Dim] = (None,)
    if "sampler" in given or "batch_sampler" in given or type(drop) is not bool:
        return varies
    if not dataset.exact or len(dataset.dims) != 1 or dataset.dims[0] is None:
        return varies
    rows = dataset.dims[0]
    if rows <= size:
        return (rows,) if rows == size or not drop else varies
    return (size,) if rows % size == 0 or drop else varies
