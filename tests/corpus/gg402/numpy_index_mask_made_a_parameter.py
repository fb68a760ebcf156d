"""An integer numpy mask wrapped in nn.Parameter (GG402).

Modelled on https://github.com/jiasenlu/NeuralBabyTalk/issues/26: a captioning model kept a
fine-grained class mask as `Parameter(fg_mask)`, and building the model raised "Only
Tensors of floating point dtype can require gradients"; the fix that held was
`Parameter(mask, requires_grad=False)`. Here the mask is filled into a numpy array of an
integer dtype, item by item (numpy casts every stored value to the array's dtype), and
`torch.from_numpy` keeps that dtype. The look-alikes keep the mask without gradients, or
fill a float array.
"""

import numpy as np
import torch
from torch import nn

VOCAB = 12
FINE_CLASSES = {2: 0, 5: 1, 7: 1, 9: 2}


def class_index():
    index = np.zeros(VOCAB, dtype=np.int64)
    for word, fine in FINE_CLASSES.items():
        index[word] = fine + 1
    return index


class CascadeCore(nn.Module):
    def __init__(self, hidden=8):
        super().__init__()
        mask = np.zeros(VOCAB, dtype="uint8")
        for word in FINE_CLASSES:
            mask[word] = 1
        self.fg_mask = nn.Parameter(torch.from_numpy(mask))  # expect: GG402
        self.proj = nn.Linear(hidden, VOCAB)

    def forward(self, h):
        return self.proj(h) * self.fg_mask


class FixedCascadeCore(nn.Module):
    def __init__(self, hidden=8):
        super().__init__()
        self.fg_index = nn.Parameter(torch.from_numpy(class_index()), requires_grad=False)
        weights = np.zeros(VOCAB, dtype=np.float32)
        for word in FINE_CLASSES:
            weights[word] = 1
        self.fg_weight = nn.Parameter(torch.from_numpy(weights))
        self.proj = nn.Linear(hidden, VOCAB)

    def forward(self, h):
        return self.proj(h) * self.fg_weight + self.fg_index


if __name__ == "__main__":
    FixedCascadeCore()(torch.randn(2, 8)).sum().backward()
    try:
        CascadeCore()
    except RuntimeError as error:
        assert "floating point" in str(error)
    else:
        raise AssertionError("an integer parameter was made")
    print("ok")
