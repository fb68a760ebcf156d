"""A photometric loss helper weighing its terms by a tuple default, given a detached
prediction, forced to require grad (GG109).

`photometric(target, warped, weights=(0.85, 0.15))` compares the target view with the view
the network warped. The step detaches the warped view (kept for logging) and hands that to
the loss, so every term is cut from the network. backward() raised "element 0 of tensors
does not require grad and does not have a grad_fn", and `loss.requires_grad = True`
silenced it: the network's weights never move and the loss stays put, as a user of a
retrieval trainer reported after the same "fix" in https://github.com/MCC-WH/Token/issues/12.

The call leaves `weights` out, so each weight is one of the numbers of the tuple, and a
number times a detached tensor has no history. The look-alikes: the step passing the
warped view itself (history through the network), and the same detached view weighed by
learned weights, whose history the loss then carries (backward() runs and trains them).
"""

import torch
from torch import nn

net = nn.Conv2d(3, 3, 3, padding=1)
opt = torch.optim.SGD(net.parameters(), lr=0.1)


def photometric(target, warped, weights=(0.85, 0.15)):
    total = 0.0
    for w in weights:
        total = total + w * (target - warped).abs().mean()
    return total


def train_step(target, source):
    warped = net(source).detach()
    loss = photometric(target, warped)
    loss.requires_grad = True  # expect: GG109
    opt.zero_grad()
    loss.backward()
    opt.step()
    return warped


def train_step_attached(target, source):
    loss = photometric(target, net(source))
    opt.zero_grad()
    loss.backward()
    opt.step()


def fit_term_weights(target, source):
    weights = torch.ones(2, requires_grad=True)
    loss = photometric(target, net(source).detach(), weights=weights)
    loss.backward()
    return weights


def main():
    torch.manual_seed(0)
    before = [p.detach().clone() for p in net.parameters()]
    train_step(torch.rand(2, 3, 8, 8), torch.rand(2, 3, 8, 8))
    assert all(torch.equal(b, p) for b, p in zip(before, net.parameters()))
    assert all(p.grad is None for p in net.parameters())
    train_step_attached(torch.rand(2, 3, 8, 8), torch.rand(2, 3, 8, 8))
    assert all(p.grad is not None and p.grad.any() for p in net.parameters())
    assert fit_term_weights(torch.rand(2, 3, 8, 8), torch.rand(2, 3, 8, 8)).grad is not None


if __name__ == "__main__":
    main()
