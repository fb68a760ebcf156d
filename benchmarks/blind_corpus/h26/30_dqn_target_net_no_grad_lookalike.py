"""GG608 look-alike - a detached / no_grad network in the loss, but the stepped model IS reached.

DQN update: the TD target is computed with the target network under
torch.no_grad(), so the loss carries no gradient to target_net, and target_net
is not given to any optimizer: it follows q_net by Polyak averaging.  The
optimizer holds q_net's parameters, and the loss does reach q_net through
q_net(obs).gather(...).  A checker that sees a network cut off by no_grad next
to optimizer.step() and reports "optimizer steps a model the loss never reaches"
would be wrong.

Modelled on: https://github.com/wangle53/CSA-CDGAN/issues/5 (correct counterpart)
"""
import copy
import random
from collections import deque

import torch
import torch.nn as nn
import torch.nn.functional as F

OBS_DIM, N_ACTIONS = 4, 2
GAMMA, TAU, LR, BATCH = 0.99, 0.05, 1e-3, 16


class QNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(OBS_DIM, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU())
        self.head = nn.Linear(64, N_ACTIONS)

    def forward(self, obs):
        return self.head(self.body(obs))


class ReplayBuffer:
    def __init__(self, capacity=500):
        self.data = deque(maxlen=capacity)

    def push(self, *transition):
        self.data.append(transition)

    def sample(self, n):
        batch = random.sample(self.data, n)
        obs, act, rew, nxt, done = zip(*batch)
        return (torch.stack(obs), torch.tensor(act), torch.tensor(rew),
                torch.stack(nxt), torch.tensor(done, dtype=torch.float32))


class Agent:
    def __init__(self):
        self.q_net = QNetwork()
        self.target_net = copy.deepcopy(self.q_net)
        for p in self.target_net.parameters():
            p.requires_grad_(False)
        self.optimizer = torch.optim.Adam(self.q_net.parameters(), lr=LR)

    def update(self, batch):
        obs, act, rew, nxt, done = batch
        q = self.q_net(obs).gather(1, act.unsqueeze(1)).squeeze(1)
        with torch.no_grad():
            target = rew + GAMMA * (1 - done) * self.target_net(nxt).max(1).values
        loss = F.smooth_l1_loss(q, target)
        self.optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(self.q_net.parameters(), 10.0)
        self.optimizer.step()
        self.soft_update()
        return loss.item()

    @torch.no_grad()
    def soft_update(self):
        for t, s in zip(self.target_net.parameters(), self.q_net.parameters()):
            t.mul_(1 - TAU).add_(TAU * s)


def main():
    random.seed(0)
    torch.manual_seed(0)
    agent, buffer = Agent(), ReplayBuffer()
    obs = torch.randn(OBS_DIM)
    for t in range(120):
        action = random.randrange(N_ACTIONS)
        nxt = obs + 0.1 * torch.randn(OBS_DIM)
        buffer.push(obs, action, float(obs[0] > 0), nxt, t % 30 == 29)
        obs = torch.randn(OBS_DIM) if t % 30 == 29 else nxt
    before = agent.q_net.head.weight.detach().clone()
    losses = [agent.update(buffer.sample(BATCH)) for _ in range(20)]
    print(f"td loss first {losses[0]:.4f} last {losses[-1]:.4f}")
    return before, agent


if __name__ == "__main__":
    before, agent = main()
    assert not torch.equal(before, agent.q_net.head.weight.detach())
    print("OK")
