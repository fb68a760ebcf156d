"""Micro-steps counted by `range(k)`: the loss of each micro-batch is backpropagated whole.

A language-model trainer emulates a batch k times larger by drawing k micro-batches in an
inner `for _ in range(grad_accum_steps):` loop, calling backward() on each one's mean loss,
and stepping once after the loop. The loss is never divided by k, so the step applies the
sum of k mean gradients: k times the gradient of the large batch. This is the shape of the
report that nanoGPT's train.py, whose micro-step loop is written exactly so, briefly lost
its division (the issue asks why the loss is not scaled by the accumulation steps).
https://github.com/karpathy/nanoGPT/issues/206
"""

import copy

import torch
from torch import nn
import torch.nn.functional as F

grad_accum_steps = 4
vocab, width, seq, rows = 20, 16, 8, 4


class Bigram(nn.Module):
    def __init__(self):
        super().__init__()
        self.table = nn.Embedding(vocab, width)
        self.out = nn.Linear(width, vocab)

    def forward(self, idx, targets):
        logits = self.out(self.table(idx))
        return logits, F.cross_entropy(logits.reshape(-1, vocab), targets.reshape(-1))


def draw(gen):
    idx = torch.randint(0, vocab, (rows, seq + 1), generator=gen)
    return idx[:, :-1], idx[:, 1:]


def train(model, steps, gen, seen):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    for it in range(steps):
        for _ in range(grad_accum_steps):
            x, y = draw(gen)
            logits, loss = model(x, y)
            loss.backward()  # expect: GG606
        seen.append(model.out.weight.grad.clone())
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)


def big_batch_grad(model, gen):
    pairs = [draw(gen) for _ in range(grad_accum_steps)]
    x = torch.cat([p[0] for p in pairs])
    y = torch.cat([p[1] for p in pairs])
    _, loss = model(x, y)
    return torch.autograd.grad(loss, model.out.weight)[0]


if __name__ == "__main__":
    torch.manual_seed(0)
    net = Bigram()
    reference = big_batch_grad(copy.deepcopy(net), torch.Generator().manual_seed(1))
    grads = []
    train(net, 1, torch.Generator().manual_seed(1), grads)
    ratio = (grads[0].norm() / reference.norm()).item()
    assert abs(ratio - 1.0) < 1e-4, f"accumulated gradient is {ratio:.2f}x the big-batch one"
