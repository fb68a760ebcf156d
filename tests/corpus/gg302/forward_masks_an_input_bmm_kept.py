"""An attention module masks its encoder input in place after `torch.bmm` kept it (GG302).

`forward(query, enc_out, mask)` multiplies the projected query with `enc_out` in
`torch.bmm`, which keeps `enc_out` to compute the query's gradient, and then zeroes padded
positions with `enc_out.masked_fill_(...)`. The backward finds the kept tensor changed: "one
of the variables needed for gradient computation has been modified by an inplace operation"
(checked with torch 2.13.0 below). `torch.bmm` takes only tensors, so what it keeps is a
tensor even when nothing else says what `enc_out` is. Look-alikes: the out-of-place
`masked_fill`, and masking before the product.

Modelled on a GRU sequence-to-sequence attention of the team's second blind corpus
(https://github.com/facebookresearch/fairseq/issues/251).
"""

import torch
from torch import nn


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.q = nn.Linear(4, 4)

    def forward(self, query, enc_out, mask):
        scores = torch.bmm(self.q(query), enc_out.transpose(1, 2))
        enc_out.masked_fill_(mask, 0.0)  # expect: GG302
        return torch.bmm(torch.softmax(scores, dim=-1), enc_out)


class OutOfPlaceAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.q = nn.Linear(4, 4)

    def forward(self, query, enc_out, mask):
        scores = torch.bmm(self.q(query), enc_out.transpose(1, 2))
        masked = enc_out.masked_fill(mask, 0.0)
        return torch.bmm(torch.softmax(scores, dim=-1), masked)


class MaskFirstAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.q = nn.Linear(4, 4)

    def forward(self, query, enc_out, mask):
        enc_out.masked_fill_(mask, 0.0)
        scores = torch.bmm(self.q(query), enc_out.transpose(1, 2))
        return torch.bmm(torch.softmax(scores, dim=-1), enc_out)


def inputs():
    mask = torch.zeros(2, 3, 1, dtype=torch.bool)
    return torch.randn(2, 3, 4), torch.randn(2, 3, 4), mask


def main():
    query, enc_out, mask = inputs()
    try:
        Attention()(query, enc_out, mask).sum().backward()
    except RuntimeError as error:
        assert "modified by an inplace operation" in str(error)
    else:
        raise AssertionError("expected the in-place mask to fail the backward")
    query, enc_out, mask = inputs()
    OutOfPlaceAttention()(query, enc_out, mask).sum().backward()
    query, enc_out, mask = inputs()
    MaskFirstAttention()(query, enc_out, mask).sum().backward()


if __name__ == "__main__":
    main()
