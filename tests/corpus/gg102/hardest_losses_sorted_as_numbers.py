"""Hard-example mining done on Python numbers: the per-sample losses go through `.tolist()`,
are put in order with `sorted(...)` and cut to the hardest few, then wrapped back into a
tensor whose mean is backpropagated (GG102).

`sorted`, `list` and `tuple` make a new list of the very numbers they are given, and a slice
keeps some of them: the numbers still came out of the loss, which is why the rebuilt tensor
has no history. `loss.backward()` raises "element 0 of tensors does not require grad and
does not have a grad_fn" (checked with torch 2.13.0 below). Written from scratch after the
common way of mining hard examples on a list of floats.

The look-alikes pick the hardest losses with `torch.topk` or `torch.sort` (the graph stays),
or sort the numbers for logging only.
"""

import torch
import torch.nn.functional as F


def hardest_mean(logits, labels, keep):
    losses = F.cross_entropy(logits, labels, reduction="none")
    ordered = sorted(losses.tolist(), reverse=True)
    return torch.tensor(ordered[:keep]).mean()  # expect: GG102


def hardest_mean_listed(logits, labels, keep):
    losses = F.cross_entropy(logits, labels, reduction="none")
    scores = tuple(losses.tolist())
    return torch.tensor(scores[:keep]).mean()  # expect: GG102


def step(model, x, y, optimizer):
    optimizer.zero_grad()
    loss = hardest_mean(model(x), y, 3)
    loss.backward()
    optimizer.step()
    return loss


def step_listed(model, x, y, optimizer):
    optimizer.zero_grad()
    loss = hardest_mean_listed(model(x), y, 3)
    loss.backward()
    optimizer.step()
    return loss


# --- look-alikes ---------------------------------------------------------------------------


def hardest_by_topk(logits, labels, keep):
    losses = F.cross_entropy(logits, labels, reduction="none")
    return losses.topk(keep).values.mean()


def hardest_by_sort(logits, labels, keep):
    losses = F.cross_entropy(logits, labels, reduction="none")
    return torch.sort(losses, descending=True).values[:keep].mean()


def step_kept(model, x, y, optimizer, history):
    optimizer.zero_grad()
    logits = model(x)
    loss = hardest_by_topk(logits, y, 3) + hardest_by_sort(logits, y, 3)
    loss.backward()
    optimizer.step()
    per_sample = F.cross_entropy(logits, y, reduction="none")
    history.append(sorted(per_sample.tolist())[-3:])
    return loss


def main():
    torch.manual_seed(0)
    net = torch.nn.Linear(4, 3)
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    inputs, targets = torch.randn(8, 4), torch.randint(0, 3, (8,))
    raised = 0
    try:
        step(net, inputs, targets, opt)
    except RuntimeError as error:
        print(f"step raises: {error}")
        raised += 1
    try:
        step_listed(net, inputs, targets, opt)
    except RuntimeError as error:
        print(f"step_listed raises: {error}")
        raised += 1
    step_kept(net, inputs, targets, opt, [])
    print("look-alikes run")
    return raised


if __name__ == "__main__":
    if main() != 2:
        raise SystemExit("both steps should raise")
