"""Actor and critic losses backpropagated one after the other: a second backward through
a freed graph when the heads share a trunk (GG202), nothing wrong when they do not.

PPO and A2C implementations often wrap two networks in one module whose `forward` returns
`(action_logits, value)`, then call `policy_loss.backward()` and `value_loss.backward()`
in turn. When both heads sit on one shared trunk, the first backward frees the trunk's
saved tensors and the second raises "Trying to backward through the graph a second time".
When the actor and the critic are separate networks given the same (constant) states,
the two graphs share nothing and both backward calls run: GradGuard once reported that
look-alike (bentrevett/pytorch-rl, notebook 5, PPO on CartPole at 7f43f3d), reading both
elements of the returned tuple as one graph.
"""

import torch
import torch.nn.functional as F
from torch import nn


class SharedTrunk(nn.Module):
    def __init__(self):
        super().__init__()
        self.trunk = nn.Linear(4, 16)
        self.actor = nn.Linear(16, 2)
        self.critic = nn.Linear(16, 1)

    def forward(self, state):
        h = torch.tanh(self.trunk(state))
        return self.actor(h), self.critic(h)


class SeparateNetworks(nn.Module):
    def __init__(self):
        super().__init__()
        self.actor = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 2))
        self.critic = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 1))

    def forward(self, state):
        return self.actor(state), self.critic(state)


def shared_update(states, actions, returns):
    policy = SharedTrunk()
    optimizer = torch.optim.Adam(policy.parameters(), lr=1e-3)
    logits, value = policy(states)
    policy_loss = F.cross_entropy(logits, actions)
    value_loss = F.smooth_l1_loss(value.squeeze(-1), returns)
    optimizer.zero_grad()
    policy_loss.backward()  # expect: GG202
    value_loss.backward()
    optimizer.step()


def separate_update(states, actions, returns):
    policy = SeparateNetworks()
    optimizer = torch.optim.Adam(policy.parameters(), lr=1e-3)
    logits, value = policy(states)
    policy_loss = F.cross_entropy(logits, actions)
    value_loss = F.smooth_l1_loss(value.squeeze(-1), returns)
    optimizer.zero_grad()
    policy_loss.backward()
    value_loss.backward()
    optimizer.step()


if __name__ == "__main__":
    states, actions, returns = torch.randn(8, 4), torch.randint(0, 2, (8,)), torch.randn(8)
    try:
        shared_update(states, actions, returns)
    except RuntimeError as error:
        assert "backward through the graph a second time" in str(error), error
    else:
        raise AssertionError("the second backward through the shared trunk ran")
    separate_update(states, actions, returns)
    print("shared trunk: second backward raised; separate networks: both ran")
