"""Lists built by a comprehension whose items are each backpropagated on their own.

Every item of `[f(x) for _ in range(k)]` is computed afresh, so each has a graph of its
own: a backward of one item frees nothing another item needs. The shapes here (several
dropout views of one input, one loss per view; per-item backward in a loop, by index, by
unpacking, over slices) all run under torch 2.13.0. Modelled on the per-item backward
loop discussed at
https://discuss.pytorch.org/t/backwards-through-a-graph-iteratively-and-efficiently/176817
"""

import torch
from torch import nn
from torch.nn import functional as F


class Model(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Linear(8, 8)


def dropout_views(model, x, k):
    outputs = [F.dropout(model.embed(x), 0.5) for _ in range(k)]
    for out in outputs:
        out.pow(2).mean().backward()


def zipped_and_enumerated(model, x):
    outs = [torch.tanh(model.embed(x)) for _ in range(4)]
    for o, t in zip(outs, range(4)):
        (o * t).sum().backward()
    outs = [torch.tanh(model.embed(x)) for _ in range(4)]
    for _i, o in enumerate(outs):
        o.sum().backward()


def unpacked(model, x):
    a, b = [torch.tanh(model.embed(x)) for _ in range(2)]
    a.sum().backward()
    b.sum().backward()


def by_index(model, x):
    outs = [torch.tanh(model.embed(x)) for _ in range(3)]
    outs[0].sum().backward()
    outs[1].sum().backward()
    outs[-1].sum().backward()


def halves(model, x):
    outs = [torch.tanh(model.embed(x)) for _ in range(4)]
    torch.stack(outs[:2]).sum().backward()
    torch.stack(outs[2:]).sum().backward()


def first_then_rest(model, x):
    outs = [torch.tanh(model.embed(x)) for _ in range(4)]
    outs[0].sum().backward()
    torch.stack(outs[1:]).sum().backward()
    more = [torch.tanh(model.embed(x)) for _ in range(4)]
    more[-1].sum().backward()
    sum(o.sum() for o in more[:-1]).backward()


def generated_and_keyed(model, x):
    losses = list(torch.tanh(model.embed(x)).sum() for _ in range(3))
    for loss in losses:
        loss.backward()
    by_name = {str(i): torch.tanh(model.embed(x)) for i in range(3)}
    for v in by_name.values():
        v.sum().backward()


def pairs_per_item(model, x):
    outs = [[torch.tanh(model.embed(x)), model.embed(x) * 2] for _ in range(3)]
    for a, b in outs:
        a.sum().backward()
        b.sum().backward()


if __name__ == "__main__":
    torch.manual_seed(0)
    net = Model()
    inputs = torch.randn(4, 8)
    dropout_views(net, inputs, 3)
    zipped_and_enumerated(net, inputs)
    unpacked(net, inputs)
    by_index(net, inputs)
    halves(net, inputs)
    first_then_rest(net, inputs)
    generated_and_keyed(net, inputs)
    pairs_per_item(net, inputs)
    print("ok")
