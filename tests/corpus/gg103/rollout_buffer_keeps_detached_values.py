"""An actor-critic rollout buffer detaches the critic's values as it stores them (GG103).

`Buffer.__init__` resets its lists in one unpacking (`self.log_probs, self.values = [], []`)
and `add` appends `value.detach()`; the update stacks `buffer.values` and regresses them on
the returns. Everything the list can hold is cut, so the critic loss has no history and its
backward raises "element 0 of tensors does not require grad" (checked with torch 2.13.0
below). The look-alike buffer keeps the values' graph and trains the critic.

Modelled on an advantage actor-critic whose buffer detached the stored values (the team's
second blind corpus, after a report in an A2C implementation's tracker).
"""

import torch
from torch import nn


class Buffer:
    def __init__(self):
        self.log_probs, self.values = [], []

    def add(self, log_prob, value):
        self.log_probs.append(log_prob)
        self.values.append(value.detach())  # expect: GG103


class KeptBuffer:
    def __init__(self):
        self.scores, self.estimates = [], []

    def add(self, log_prob, value):
        self.scores.append(log_prob)
        self.estimates.append(value)


def update(critic_opt, buffer, returns):
    values = torch.stack(buffer.values)
    critic_loss = nn.functional.mse_loss(values, returns)
    critic_opt.zero_grad()
    critic_loss.backward()
    critic_opt.step()


def update_kept(critic_opt, buffer, returns):
    values = torch.stack(buffer.estimates)
    critic_loss = nn.functional.mse_loss(values, returns)
    critic_opt.zero_grad()
    critic_loss.backward()
    critic_opt.step()


def collect(critic, buffer, steps=4):
    for _ in range(steps):
        state = torch.randn(3)
        buffer.add(torch.zeros(()), critic(state).squeeze(-1))


def main():
    critic = nn.Linear(3, 1)
    critic_opt = torch.optim.SGD(critic.parameters(), lr=0.1)
    returns = torch.ones(4)
    buffer = Buffer()
    collect(critic, buffer)
    try:
        update(critic_opt, buffer, returns)
    except RuntimeError as error:
        assert "does not require grad" in str(error)
    else:
        raise AssertionError("expected the detached values to fail")
    kept = KeptBuffer()
    collect(critic, kept)
    update_kept(critic_opt, kept, returns)


if __name__ == "__main__":
    main()
