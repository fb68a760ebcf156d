"""A Q-learning agent "freezes" its bootstrap target with `requires_grad = False`.

The target network is a deep copy of the online network kept on the agent, so its output
has a grad_fn like the original's; switching its flag off raises "you can only change
requires_grad flags of leaf variables" (checked with torch 2.13.0). The statement on the
computed target freezes no parameter: both networks still compute with history, so the
file's own `requires_grad = False` must not hide that. A fresh tensor's flag (`weights` below,
made by a factory) may be switched off. Modelled on the DQN target of the team's blind corpus.
"""

import copy

import torch
from torch import nn


class QNetwork(nn.Module):
    def __init__(self, observations=4, actions=2):
        super().__init__()
        self.layers = nn.Sequential(nn.Linear(observations, 16), nn.ReLU(), nn.Linear(16, actions))

    def forward(self, state):
        return self.layers(state)


class Agent:
    def __init__(self, gamma=0.9):
        self.online = QNetwork()
        self.target = copy.deepcopy(self.online)
        self.optimizer = torch.optim.SGD(self.online.parameters(), lr=0.01)
        self.gamma = gamma

    def bootstrap(self, reward, next_state):
        best = self.target(next_state).max(dim=1).values
        value = reward + self.gamma * best
        value.requires_grad = False  # expect: GG401
        return value

    def bootstrap_detached(self, reward, next_state):
        best = self.target(next_state).max(dim=1).values
        value = (reward + self.gamma * best).detach()
        value.requires_grad = False
        return value

    def importance(self, batch):
        weights = torch.ones(batch)
        weights.requires_grad = False
        return weights


if __name__ == "__main__":
    agent = Agent()
    reward, next_state = torch.ones(5), torch.randn(5, 4)
    try:
        agent.bootstrap(reward, next_state)
    except RuntimeError as error:
        assert "only change requires_grad flags of leaf variables" in str(error)
    else:
        raise AssertionError("expected the flag change to fail")
    assert not agent.bootstrap_detached(reward, next_state).requires_grad
    assert agent.importance(5).sum() == 5
