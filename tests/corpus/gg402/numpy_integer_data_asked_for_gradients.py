"""GG402 on tensors made from numpy arrays whose dtype comes from their data.

numpy picks an integer dtype for an array of Python ints (`np.array([3, 1, 2])` is int64;
int32 on Windows with numpy 1), for `np.arange` of ints and for `np.full` with an int fill,
and `torch.from_numpy` / `torch.tensor` keep it. Asking such a tensor for gradients raises
"only Tensors of floating point dtype can require gradients" (tried with torch 2.13.0),
whether in place with `requires_grad_()` or through `requires_grad=True`.

Look-alikes that stay silent: a float in the data, a cast to float first, an explicit
floating `dtype=`, and an integer array that is only used as indices.
"""

import numpy as np
import torch


def saliency_inputs(token_ids):
    ids = torch.from_numpy(np.array([101, 2023, 102]))
    ids.requires_grad_()  # expect: GG402
    return ids, token_ids


def position_table(length):
    positions = torch.tensor(np.arange(8), requires_grad=True)  # expect: GG402
    return positions[:length]


def constant_offsets():
    offsets = torch.from_numpy(np.full((4,), 2))
    return offsets.requires_grad_(True)  # expect: GG402


def float_data():
    weights = torch.from_numpy(np.array([0.5, 1, 2]))
    weights.requires_grad_()
    return weights


def cast_first():
    positions = torch.from_numpy(np.arange(8)).float()
    positions.requires_grad_()
    return positions


def float_dtype():
    offsets = torch.tensor(np.full((4,), 2, dtype=np.float32), requires_grad=True)
    return offsets


def indices_only(table):
    index = torch.from_numpy(np.array([0, 2]))
    rows = table[index]
    rows.requires_grad_()
    return rows
