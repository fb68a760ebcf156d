"""A loss rebuilt with `torch.tensor(...)` from a list of `.item()` numbers, then forced to
require grad (GG109).

A rollout collects each step's log-probability with `lps.append(out.item())`: a Python
float, cut from the policy's graph. `torch.tensor(lps)` makes a fresh leaf of those numbers,
backward() on it raises "element 0 of tensors does not require grad and does not have a
grad_fn", and `loss.requires_grad = True` silences that by making the loss a leaf of its
own: backward() runs and no gradient reaches the policy. The same loss of history was
pointed out in https://github.com/Quantum-Cheese/DeepReinforcementLearning_Pytorch/issues/1,
where an A3C worker rebuilt its log-probabilities with `torch.tensor([...])` from a memory
list.

The look-alikes: the list keeps the log-probability tensors and is stacked; lists of plain
numbers (initial weights, rewards) wrapped into a leaf that is meant to require grad: only a
number made by a conversion (`.item()`) or a detach says that a history was cut.
"""

import torch
from torch import nn
from torch.distributions import Categorical

policy = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 2))
optimizer = torch.optim.Adam(policy.parameters(), lr=1e-2)


def reinforce_from_numbers(states, returns):
    lps = []
    for state in states:
        dist = Categorical(logits=policy(state))
        action = dist.sample()
        lps.append(dist.log_prob(action).item())
    loss = -(torch.tensor(lps) * returns).sum()
    loss.requires_grad = True  # expect: GG109
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()


def mean_of_item_losses(states, target):
    values = []
    for state in states:
        out = policy(state).sum()
        values.append((out - target).pow(2).item())
    loss = torch.tensor(values).mean()
    loss.requires_grad_(True)  # expect: GG109
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()


def reinforce_stacked(states, returns):
    lps = []
    for state in states:
        dist = Categorical(logits=policy(state))
        lps.append(dist.log_prob(dist.sample()))
    loss = -(torch.stack(lps) * returns).sum()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()


def fit_mixture_weights(samples, steps):
    init = []
    for _ in range(3):
        init.append(1.0 / 3)
    weights = torch.tensor(init)
    weights.requires_grad = True
    opt = torch.optim.SGD([weights], lr=0.1)
    for _ in range(steps):
        loss = (samples @ weights.softmax(0)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    return weights


def fit_rewards_baseline(rewards_seen, steps):
    rewards = []
    for reward in rewards_seen:
        rewards.append(float(reward))
    baseline = torch.tensor(rewards).mean()
    baseline.requires_grad = True
    opt = torch.optim.SGD([baseline], lr=0.1)
    for _ in range(steps):
        loss = (torch.tensor(rewards) - baseline).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    return baseline


if __name__ == "__main__":
    torch.manual_seed(0)
    observed = [torch.randn(4) for _ in range(5)]
    gains = torch.randn(5)
    before = [p.detach().clone() for p in policy.parameters()]
    reinforce_from_numbers(observed, gains)
    mean_of_item_losses(observed, 0.5)
    assert all(torch.equal(b, p) for b, p in zip(before, policy.parameters()))
    assert all(p.grad is None or not p.grad.any() for p in policy.parameters())
    reinforce_stacked(observed, gains)
    assert any(p.grad is not None and p.grad.any() for p in policy.parameters())
    assert fit_mixture_weights(torch.randn(6, 3), 2).grad is not None
    assert fit_rewards_baseline([1, 0, 1], 2).grad is not None
