"""Look-alikes of micro-batches drawn into a list that are no undivided accumulation.

The averaged forms of the micro-step loop nanoGPT's train.py uses (the issue asks why the
loss is divided by the number of steps): the helper divides each loss by the number of
micro-batches it is handed, or the picking loop divides on a line of its own. And lists
that are no micro-batches of one step: a single draw (`range(1)`: nothing accumulates), the
heads of a model picked by the loop (the sum of their losses is the objective), one batch
per task (the comprehension reads its target: `sample_task(t)`), and a helper that steps
after every micro-batch.
https://github.com/karpathy/nanoGPT/issues/206
"""

import torch
import torch.nn.functional as F
from torch import nn

steps_a, steps_b, steps_c = 2, 3, 2
vocab, width, seq, rows = 16, 8, 5, 2


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


def sample_task(task):
    idx = torch.randint(0, vocab // 2, (rows, seq + 1)) + task
    return idx[:, :-1], idx[:, 1:]


def backprop_mean(model, micro_batches):
    for x, y in micro_batches:
        loss = model(x, y) / len(micro_batches)
        loss.backward()


def backprop_all(model, micro_batches):
    for x, y in micro_batches:
        model(x, y).backward()


def step_each(model, optimizer, micro_batches):
    for x, y in micro_batches:
        model(x, y).backward()
        optimizer.step()
        optimizer.zero_grad()


def divided_in_helper(model, optimizer, gen):
    drawn = [sample(gen) for _ in range(steps_a)]
    backprop_mean(model, drawn)
    optimizer.step()
    optimizer.zero_grad()


def divided_on_another_line(model, optimizer, gen):
    drawn = [sample(gen) for _ in range(steps_b)]
    for j in range(steps_b):
        x, y = drawn[j]
        loss = model(x, y)
        loss = loss / steps_b
        loss.backward()
    optimizer.step()
    optimizer.zero_grad()


def single_draw(model, optimizer, gen):
    drawn = [sample(gen) for _ in range(1)]
    backprop_all(model, drawn)
    optimizer.step()
    optimizer.zero_grad()


def per_head(model, optimizer, gen):
    heads = [nn.Linear(width, 1) for _ in range(steps_c)]
    optimizer.add_param_group({"params": [p for h in heads for p in h.parameters()]})
    x, _ = sample(gen)
    for j in range(steps_c):
        feats = model.embed(x).mean(1)
        loss = heads[j](feats).pow(2).mean()
        loss.backward()
    optimizer.step()
    optimizer.zero_grad()


def per_task(model, optimizer):
    tasks = [sample_task(t) for t in range(steps_c)]
    backprop_all(model, tasks)
    optimizer.step()
    optimizer.zero_grad()


def stepped_inside(model, optimizer, gen):
    drawn = [sample(gen) for _ in range(steps_c)]
    optimizer.zero_grad()
    step_each(model, optimizer, drawn)
    optimizer.step()


if __name__ == "__main__":
    torch.manual_seed(0)
    net = CharModel()
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    g = torch.Generator().manual_seed(0)
    divided_in_helper(net, opt, g)
    divided_on_another_line(net, opt, g)
    single_draw(net, opt, g)
    per_head(net, opt, g)
    per_task(net, opt)
    stepped_inside(net, opt, g)
