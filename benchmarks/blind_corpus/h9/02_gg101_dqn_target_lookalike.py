"""GG101 look-alike - a no_grad() block right next to the backward(), but correct.

DQN update: the bootstrap target is computed under torch.no_grad() from a frozen
target network (as it should be), and a @torch.no_grad() helper picks actions.
The loss itself is computed outside the block from the online network's
Q-values, so backward() has a graph and the online network learns.

Modelled on: none found (standard DQN pattern)
"""
import copy
import random

import torch
import torch.nn as nn
import torch.nn.functional as F

CONFIG = {
    "obs_dim": 6,
    "n_actions": 3,
    "gamma": 0.97,
    "lr": 1e-3,
    "batch_size": 16,
    "steps": 30,
    "target_sync": 10,
    "eps": 0.2,
}


class QNet(nn.Module):
    def __init__(self, obs_dim, n_actions):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(obs_dim, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU())
        self.head = nn.Linear(32, n_actions)

    def forward(self, obs):
        return self.head(self.body(obs))


class ReplayBuffer:
    def __init__(self, cap=500):
        self.data, self.cap = [], cap

    def push(self, *transition):
        self.data.append(transition)
        self.data = self.data[-self.cap:]

    def sample(self, n):
        batch = random.sample(self.data, n)
        s, a, r, s2, d = zip(*batch)
        return torch.stack(s), torch.tensor(a), torch.tensor(r), torch.stack(s2), torch.tensor(d, dtype=torch.float32)


@torch.no_grad()
def select_action(qnet, obs, eps, n_actions):
    if random.random() < eps:
        return random.randrange(n_actions)
    return int(qnet(obs.unsqueeze(0)).argmax(1))


def dqn_loss(online, target, batch, gamma):
    s, a, r, s2, done = batch
    q = online(s).gather(1, a.unsqueeze(1)).squeeze(1)
    with torch.no_grad():
        next_q = target(s2).max(1).values
        td_target = r + gamma * (1.0 - done) * next_q
    return F.smooth_l1_loss(q, td_target)


def train(online, target, optimizer, buffer, cfg):
    first = None
    for step in range(cfg["steps"]):
        loss = dqn_loss(online, target, buffer.sample(cfg["batch_size"]), cfg["gamma"])
        optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(online.parameters(), 10.0)
        optimizer.step()
        if step % cfg["target_sync"] == 0:
            target.load_state_dict(online.state_dict())
        first = first if first is not None else loss.item()
    return first, loss.item()


def main():
    torch.manual_seed(0)
    random.seed(0)
    cfg = CONFIG
    online = QNet(cfg["obs_dim"], cfg["n_actions"])
    target = copy.deepcopy(online).requires_grad_(False)
    buffer = ReplayBuffer()
    obs = torch.randn(cfg["obs_dim"])
    for _ in range(64):
        a = select_action(online, obs, cfg["eps"], cfg["n_actions"])
        nxt = torch.randn(cfg["obs_dim"])
        buffer.push(obs, a, float(obs[a]), nxt, False)
        obs = nxt
    before = online.head.weight.detach().clone()
    optimizer = torch.optim.Adam(online.parameters(), lr=cfg["lr"])
    first, last = train(online, target, optimizer, buffer, cfg)
    assert not torch.equal(before, online.head.weight)
    print(f"loss {first:.4f} -> {last:.4f}")


if __name__ == "__main__":
    main()
    print("OK")
