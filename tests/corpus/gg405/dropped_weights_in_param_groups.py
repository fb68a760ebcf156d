"""Dropped weights handed to an optimizer through parameter groups (GG405).

Modelled on https://github.com/pytorch/pytorch/issues/38198: a weight-dropout wrapper
borrowed from fastai keeps a raw copy of an RNN weight and puts `F.dropout(raw, ...)` back
into the layer. While the wrapper initialises it calls the dropout with `training=False`,
which hands back the raw tensor itself (still a leaf: no error); with dropout really on,
the result is computed from the raw weight, and an optimizer given it refuses it:
"can't optimize a non-leaf Tensor". Here the computed tensors reach the optimizer inside
parameter-group dicts and in a list built by concatenation; the look-alikes give the
optimizer dropout results that are the input itself (training off, `p=0`, a default
`alpha_dropout`), a group over `model.parameters()`, and leaves.
"""

import torch
import torch.nn.functional as F
from torch import nn

head = nn.Linear(4, 2)
raw = nn.Parameter(torch.randn(4, 4))
bias = nn.Parameter(torch.zeros(4))


def grouped():
    # Dropout really applied (training on, p non-zero): a new tensor with history.
    dropped = F.dropout(raw, p=0.3, training=True)  # expect: GG405
    return torch.optim.SGD([{"params": [dropped]}, {"params": [bias], "lr": 0.1}], lr=0.01)


def concatenated():
    scaled = torch.randn(4, requires_grad=True) * 0.01  # expect: GG405
    return torch.optim.Adam([bias] + [scaled], lr=1e-3)


def look_alikes():
    # These dropout calls return their input itself, a leaf the optimizer accepts.
    kept_eval = F.dropout(raw, p=0.3, training=False)
    kept_zero = F.dropout(raw, p=0.0)
    kept_alpha = F.alpha_dropout(raw, 0.3)
    layer = nn.Dropout(0.3)
    layer.eval()
    kept_layer = layer(bias)
    assert kept_eval is raw and kept_zero is raw and kept_alpha is raw and kept_layer is bias
    first = torch.optim.SGD([kept_eval], lr=0.1)
    second = torch.optim.SGD([{"params": [kept_zero, kept_alpha]}], lr=0.1)
    third = torch.optim.SGD([{"params": head.parameters()}, {"params": [kept_layer]}], lr=0.1)
    fourth = torch.optim.SGD([raw] + list(head.parameters()), lr=0.1)
    return first, second, third, fourth


if __name__ == "__main__":
    for build in (grouped, concatenated):
        try:
            build()
        except ValueError as error:
            assert "can't optimize a non-leaf Tensor" in str(error), error
        else:
            raise AssertionError(f"{build.__name__} built an optimizer")
    look_alikes()
    print("buggy optimizers refused; look-alikes built")
