"""A prioritized DQN update whose loss keeps one value per transition (GG501).

Modelled on https://github.com/BY571/DQN-Atari-Agents/issues/5: the importance weights of a
prioritized replay were meant to weight the squared TD errors before averaging, but the
mean was written on the weights alone (`td.pow(2) * w.mean()`), so the loss kept the shape
of the batch and `backward()` raised "grad can be implicitly created only for scalar
outputs". The Q-values of the taken actions are picked with `gather` (whose result has the
shape of its index, here the actions viewed as a column) and the bootstrapped target is
cut from the graph with `.detach()`, which keeps its shape. The look-alike puts the
parentheses where they belong.
"""

import torch
from torch import nn

BATCH, STATES, ACTIONS, GAMMA = 16, 4, 3, 0.99


def transitions():
    torch.manual_seed(0)
    states = torch.randn(BATCH, STATES)
    actions = torch.randint(0, ACTIONS, (BATCH,))
    rewards = torch.randn(BATCH)
    next_states = torch.randn(BATCH, STATES)
    weights = torch.rand(BATCH)
    return states, actions, rewards, next_states, weights


def td_errors(online, target_net):
    states, actions, rewards, next_states, weights = transitions()
    taken = online(states).gather(1, actions.view(-1, 1)).squeeze(1)
    bootstrap = (rewards + GAMMA * target_net(next_states).max(1)[0]).detach()
    return taken - bootstrap, weights


def update_misweighted(online, target_net):
    td, weights = td_errors(online, target_net)
    loss = td.pow(2) * weights.mean()
    loss.backward()  # expect: GG501


def update_weighted(online, target_net):
    td, weights = td_errors(online, target_net)
    loss = (td.pow(2) * weights).mean()
    loss.backward()


if __name__ == "__main__":
    q_online, q_target = nn.Linear(STATES, ACTIONS), nn.Linear(STATES, ACTIONS)
    update_weighted(q_online, q_target)
    try:
        update_misweighted(q_online, q_target)
    except RuntimeError as error:
        assert "scalar outputs" in str(error)
    else:
        raise AssertionError("backward of a per-transition loss ran")
    print("ok")
