"""A DQN update and a small model, full of look-alikes that are correct.

* the TD target is `.detach()`ed (and the target network runs under `no_grad`), but the loss
  still reaches the online network through `q_values`;
* `argmax` and `max(1).indices` pick actions; the loss uses `max(1).values` and `gather`;
* integer tensors (`actions`, `dones.long()`) are indices and masks, never asked for gradients;
* per-head losses are combined with `torch.stack`, and `torch.tensor(x.item())` only logs;
* the module's `forward` uses every layer's result; `torch.Tensor` is filled, never given
  `requires_grad`;
* the target network's weights are copied in place under `no_grad`.
"""

import copy
import random

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
random.seed(0)
GAMMA, BATCH, ACTIONS = 0.99, 32, 3


class QNetwork(nn.Module):
    def __init__(self, observations, actions):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(observations, 64), nn.ReLU())
        self.value = nn.Linear(64, 1)
        self.advantage = nn.Linear(64, actions)
        self.dropout = nn.Dropout(0.1)

    def forward(self, obs):
        features = self.dropout(self.body(obs))
        advantage = self.advantage(features)
        return self.value(features) + advantage - advantage.mean(dim=1, keepdim=True)


online = QNetwork(4, ACTIONS)
target = copy.deepcopy(online)
optimizer = torch.optim.Adam(online.parameters(), lr=1e-3)
buffer = torch.Tensor(256, 4).uniform_(-1, 1)
losses_logged = []

for step in range(30):
    idx = torch.randint(0, len(buffer) - 1, (BATCH,))
    obs, next_obs = buffer[idx], buffer[idx + 1]
    if random.random() < 0.1:
        actions = torch.randint(0, ACTIONS, (BATCH,))
    else:
        with torch.no_grad():
            actions = online(obs).argmax(dim=1)
    rewards = torch.randn(BATCH)
    dones = (torch.rand(BATCH) < 0.05).long()

    with torch.no_grad():
        next_q = target(next_obs).max(dim=1).values
    td_target = (rewards + GAMMA * next_q * (1 - dones)).detach()
    q_values = online(obs).gather(1, actions.unsqueeze(1)).squeeze(1)
    td_loss = F.smooth_l1_loss(q_values, td_target)
    reg = online.advantage.weight.pow(2).mean()
    loss = torch.stack([td_loss, 1e-4 * reg]).sum()

    optimizer.zero_grad()
    loss.backward()
    nn.utils.clip_grad_norm_(online.parameters(), 10.0)
    optimizer.step()
    losses_logged.append(torch.tensor(loss.item()))

    if step % 10 == 0:
        with torch.no_grad():
            for p_target, p in zip(target.parameters(), online.parameters()):
                p_target.copy_(p)

print("mean logged loss", torch.stack(losses_logged).mean().item())
