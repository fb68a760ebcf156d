"""A DQN whose optimizer holds the target network, the copy the TD target is read from.

Which of the two Q-networks the optimizer trains is a recurring confusion in DQN code: the
PyTorch tutorial's comments once said the target network was the one optimized
(https://github.com/pytorch/tutorials/pull/865), and users ask which parameters the
optimizer should hold (https://github.com/DLR-RM/stable-baselines3/issues/1946). Here the
optimizer is built on `target_net`, whose output enters the loss only under no_grad: the
TD loss reaches `policy_net` alone, so each step leaves `policy_net` as it was and
`target_net` has no gradient to apply. The periodic sync then copies the untrained policy
back into the target.
"""

import copy

import torch
from torch import nn
import torch.nn.functional as F


class QNetwork(nn.Module):
    def __init__(self, obs_dim=6, n_actions=3):
        super().__init__()
        self.layers = nn.Sequential(nn.Linear(obs_dim, 32), nn.ReLU(), nn.Linear(32, n_actions))

    def forward(self, obs):
        return self.layers(obs)


def train(steps=40, gamma=0.97, sync_every=10):
    policy_net = QNetwork()
    target_net = copy.deepcopy(policy_net)
    optimizer = torch.optim.RMSprop(target_net.parameters(), lr=1e-3)  # expect: GG608
    start = copy.deepcopy(policy_net.state_dict())
    for step in range(steps):
        obs, next_obs = torch.randn(16, 6), torch.randn(16, 6)
        actions = torch.randint(0, 3, (16, 1))
        rewards = torch.rand(16)
        done = (torch.rand(16) < 0.1).float()
        q_taken = policy_net(obs).gather(1, actions).squeeze(1)
        with torch.no_grad():
            td_target = rewards + gamma * (1 - done) * target_net(next_obs).max(dim=1).values
        loss = F.smooth_l1_loss(q_taken, td_target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % sync_every == sync_every - 1:
            target_net.load_state_dict(policy_net.state_dict())
    return start, policy_net


if __name__ == "__main__":
    torch.manual_seed(0)
    start, policy_net = train()
    unchanged = all(torch.equal(start[k], v) for k, v in policy_net.state_dict().items())
    assert not unchanged, "policy_net never changed: the optimizer holds target_net"
