"""GG103 - DQN update on Q-values that a shared helper already detached.

`gather_q` detaches its result because it was written for the bootstrap target
(which must not receive gradient), but the agent also uses it for the online Q-values.
The TD loss is then built only from detached tensors and `loss.backward()` fails with:
RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
"""
import copy
import random

import torch
import torch.nn as nn
import torch.nn.functional as F


class QNet(nn.Module):
    def __init__(self, obs_dim=6, n_actions=3):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(obs_dim, 64), nn.ReLU(), nn.Linear(64, n_actions))

    def forward(self, obs):
        return self.net(obs)


def gather_q(net, obs, actions):
    q = net(obs).gather(1, actions.unsqueeze(1)).squeeze(1)
    return q.detach()


class DQNAgent:
    def __init__(self, obs_dim=6, n_actions=3, gamma=0.99, lr=1e-3):
        self.q = QNet(obs_dim, n_actions)
        self.target_q = copy.deepcopy(self.q)
        self.opt = torch.optim.Adam(self.q.parameters(), lr=lr)
        self.gamma = gamma
        self.n_actions = n_actions
        self.updates = 0

    def act(self, obs, eps=0.1):
        if random.random() < eps:
            return random.randrange(self.n_actions)
        with torch.no_grad():
            return int(self.q(obs.unsqueeze(0)).argmax(1))

    def update(self, batch):
        obs, actions, rewards, next_obs, dones = batch
        q_sa = gather_q(self.q, obs, actions)
        with torch.no_grad():
            next_actions = self.q(next_obs).argmax(1)
            next_q = gather_q(self.target_q, next_obs, next_actions)
            target = rewards + self.gamma * (1.0 - dones) * next_q
        loss = F.smooth_l1_loss(q_sa, target)
        self.opt.zero_grad()
        loss.backward()  # bug: GG103
        nn.utils.clip_grad_norm_(self.q.parameters(), 10.0)
        self.opt.step()
        self.updates += 1
        if self.updates % 2 == 0:
            self.target_q.load_state_dict(self.q.state_dict())
        return loss.item()


def sample_batch(buffer, size):
    items = random.sample(buffer, size)
    return tuple(torch.stack(col) for col in zip(*items))


def main():
    random.seed(0)
    torch.manual_seed(0)
    agent = DQNAgent()
    buffer = []
    obs = torch.randn(6)
    for _ in range(64):
        a = agent.act(obs)
        next_obs, r, done = torch.randn(6), torch.randn(()), torch.tensor(float(random.random() < 0.1))
        buffer.append((obs, torch.tensor(a), r, next_obs, done))
        obs = torch.randn(6) if done else next_obs
    for step in range(4):
        print(f"update {step}: loss={agent.update(sample_batch(buffer, 16)):.4f}")


if __name__ == "__main__":
    try:
        main()
    except RuntimeError as e:
        print(f"BUGGY: {str(e).splitlines()[0]}")
        raise SystemExit(0)
    raise SystemExit("NO BUG")
