"""GG608 - optimizer steps a model the backpropagated loss never reaches (fixed).

The optimizer is built from the online network (self.q), the one the TD loss reaches; the
target network is only refreshed by sync_target().
"""
import copy
import random

import torch
import torch.nn as nn


class QNet(nn.Module):
    def __init__(self, obs_dim=4, n_actions=2, hidden=32):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(obs_dim, hidden), nn.ReLU(), nn.Linear(hidden, n_actions))

    def forward(self, obs):
        return self.net(obs)


class ReplayBuffer:
    def __init__(self, capacity=1000):
        self.data, self.capacity = [], capacity

    def push(self, *transition):
        self.data.append(transition)
        self.data = self.data[-self.capacity:]

    def sample(self, n):
        batch = random.sample(self.data, n)
        obs, act, rew, nxt, done = zip(*batch)
        return (torch.stack(obs), torch.tensor(act), torch.tensor(rew), torch.stack(nxt), torch.tensor(done).float())


class DQNAgent:
    def __init__(self, gamma=0.99, lr=1e-3):
        self.q = QNet()
        self.q_target = copy.deepcopy(self.q)
        self.optimizer = torch.optim.Adam(self.q.parameters(), lr=lr)
        self.gamma = gamma

    def td_loss(self, batch):
        obs, act, rew, nxt, done = batch
        q_sa = self.q(obs).gather(1, act.unsqueeze(1)).squeeze(1)
        with torch.no_grad():
            target = rew + self.gamma * (1 - done) * self.q_target(nxt).max(1).values
        return nn.functional.smooth_l1_loss(q_sa, target)

    def update(self, batch):
        loss = self.td_loss(batch)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()  # fixed: GG608
        return loss.item()

    def sync_target(self):
        self.q_target.load_state_dict(self.q.state_dict())


def main():
    torch.manual_seed(0)
    random.seed(0)
    agent, buf = DQNAgent(), ReplayBuffer()
    for _ in range(200):
        o = torch.randn(4)
        buf.push(o, random.randint(0, 1), float(o[0] > 0), torch.randn(4), random.random() < 0.1)
    q_before = copy.deepcopy(agent.q.state_dict())
    for it in range(50):
        loss = agent.update(buf.sample(32))
        if it % 10 == 9:
            agent.sync_target()
    unchanged = all(torch.equal(q_before[k], v) for k, v in agent.q.state_dict().items())
    print(f"last td loss {loss:.4f}")
    return unchanged, agent.q.net[0].weight.grad is not None


if __name__ == "__main__":
    unchanged, online_has_grad = main()
    assert online_has_grad and not unchanged
    print("FIXED: ok")
