"""Micro-batches drawn into a list first, then backpropagated one by one, undivided (GG606).

A character-level language model is trained with gradient accumulation: each optimizer step
first draws `micro_steps` micro-batches into a list (`[sample(gen) for _ in
range(micro_steps)]`), then backpropagates the mean loss of each of them whole and steps
once. Two spellings: a helper handed the list loops over it (`backprop_all(model, drawn)`),
or a `for j in range(micro_steps):` loop picks `drawn[j]`. Either way the step applies the
sum of `micro_steps` mean gradients, `micro_steps` times the gradient of the large batch
(checked below with torch 2.13.0 against the gradient of the whole batch at once). nanoGPT's
train.py is written with such a micro-step loop, and the issue asks why the loss has to be
divided by the number of accumulation steps.
https://github.com/karpathy/nanoGPT/issues/206

The comparison in `__main__` multiplies by `micro_steps` only to compare: that scales
nothing the training uses.
"""

import copy

import torch
import torch.nn.functional as F
from torch import nn

micro_steps = 4
vocab, width, seq, rows = 24, 12, 6, 3


class CharModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        self.head = nn.Linear(width, vocab)

    def forward(self, idx, targets):
        logits = self.head(self.embed(idx))
        return F.cross_entropy(logits.reshape(-1, vocab), targets.reshape(-1))


def sample(gen):
    idx = torch.randint(0, vocab, (rows, seq + 1), generator=gen)
    return idx[:, :-1], idx[:, 1:]


def backprop_all(model, micro_batches):
    for x, y in micro_batches:
        loss = model(x, y)
        loss.backward()  # expect: GG606


def train_with_helper(model, optimizer, gen, iterations, seen):
    for _ in range(iterations):
        drawn = [sample(gen) for _ in range(micro_steps)]
        backprop_all(model, drawn)
        seen.append(model.head.weight.grad.clone())
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)


def train_picking(model, optimizer, gen, iterations, seen):
    for _ in range(iterations):
        drawn = [sample(gen) for _ in range(micro_steps)]
        for j in range(micro_steps):
            x, y = drawn[j]
            loss = model(x, y)
            loss.backward()  # expect: GG606
        seen.append(model.head.weight.grad.clone())
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)


def whole_batch_grad(model, gen):
    pairs = [sample(gen) for _ in range(micro_steps)]
    x = torch.cat([p[0] for p in pairs])
    y = torch.cat([p[1] for p in pairs])
    return torch.autograd.grad(model(x, y), model.head.weight)[0]


if __name__ == "__main__":
    torch.manual_seed(0)
    net = CharModel()
    reference = whole_batch_grad(copy.deepcopy(net), torch.Generator().manual_seed(3))
    for train in (train_with_helper, train_picking):
        model = copy.deepcopy(net)
        grads = []
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        train(model, optimizer, torch.Generator().manual_seed(3), 1, grads)
        summed = torch.allclose(grads[0], micro_steps * reference, atol=1e-6)
        assert not summed, f"{train.__name__}: the step applies {micro_steps}x the batch gradient"
