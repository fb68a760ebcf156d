"""Losses rebuilt from Python numbers that left a tensor with history and then travelled:
through a helper's return, a running total, and a list kept on another object.

A policy-gradient loss summed as a float from `log_prob(...).item() * reward`, a ranking
hinge computed over `scores.tolist()` in a helper, log-probabilities stored as floats in a
rollout memory: each is a number that was a loss (or a model output) a moment before.
`torch.tensor(number)` makes a leaf without history; forcing `requires_grad` on it (or
passing `requires_grad=True`) silences "element 0 of tensors does not require grad" and the
optimizer then never moves the model. The REINFORCE report
https://github.com/isayev/ReLeaSE/issues/39 describes such an `rl_loss` built from `.item()`
values whose parameters received no gradient.

The look-alikes: a learnable temperature made from a setting, a `torch.tensor(0.0,
requires_grad=True)` placeholder that real losses are then added to, and floats kept only
for logging.
"""

import torch
from torch import nn
from torch.distributions import Categorical

policy = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 3))
scorer = nn.Linear(4, 1)
optimizer = torch.optim.SGD([*policy.parameters(), *scorer.parameters()], lr=0.1)


class Rollout:
    def __init__(self):
        self.logprobs = []


class Agent:
    def __init__(self):
        self.memory = Rollout()

    def act(self, state):
        dist = Categorical(logits=policy(state))
        action = dist.sample()
        self.memory.logprobs.append(dist.log_prob(action).item())
        return int(action)

    def learn(self):
        loss = -torch.tensor(self.memory.logprobs).mean()
        loss.requires_grad = True  # expect: GG109
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def running_total(states, rewards):
    total = 0.0
    for state, reward in zip(states, rewards):
        total += -Categorical(logits=policy(state)).log_prob(torch.tensor(0)).item() * reward
    loss = torch.tensor(total / max(len(rewards), 1))
    loss.requires_grad_()  # expect: GG109
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()


def ranking_hinge(scores, margin):
    values = scores.tolist()
    total = 0.0
    for i in range(len(values)):
        for j in range(len(values)):
            if i < j:
                total += max(0.0, margin - (values[i] - values[j]))
    return total


def train_ranker(docs):
    scores = scorer(docs).squeeze(1)
    loss = torch.tensor(ranking_hinge(scores, 1.0), requires_grad=True)  # expect: GG102
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()


def calibrate(logits, labels, settings):
    temperature = torch.tensor(float(settings["temperature"]), requires_grad=True)
    opt = torch.optim.LBFGS([temperature], lr=0.01, max_iter=5)

    def closure():
        opt.zero_grad()
        loss = nn.functional.cross_entropy(logits / temperature, labels)
        loss.backward()
        return loss

    opt.step(closure)
    return temperature


def placeholder_then_real_losses(states):
    loss = torch.tensor(0.0, requires_grad=True)
    logged = 0.0
    for state in states:
        term = policy(state).pow(2).mean()
        logged += term.item()
        loss = loss + term
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return logged / max(len(states), 1)


if __name__ == "__main__":
    torch.manual_seed(0)
    states = [torch.randn(4) for _ in range(4)]
    before = [p.detach().clone() for p in policy.parameters()]
    agent = Agent()
    for s in states:
        agent.act(s)
    agent.learn()
    running_total(states, [1.0, 0.5, 0.2, 1.0])
    assert all(torch.equal(b, p) for b, p in zip(before, policy.parameters()))
    assert all(p.grad is None or not p.grad.any() for p in policy.parameters())
    train_ranker(torch.randn(5, 4))
    assert scorer.weight.grad is None or not scorer.weight.grad.any()
    t = calibrate(torch.randn(6, 3), torch.randint(0, 3, (6,)), {"temperature": 1.5})
    assert t.grad is not None
    placeholder_then_real_losses(states)
    assert any(p.grad is not None and p.grad.any() for p in policy.parameters())
