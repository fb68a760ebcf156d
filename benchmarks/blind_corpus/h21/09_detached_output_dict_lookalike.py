"""GG103 look-alike - .detach() on the TD target, not on the loss.

A DQN-style update: the bootstrapped target comes from a target network and is
detached on purpose; q-values of the online network keep their graph, so the
Huber loss between them is differentiable. The `.data` read is only for the
logged max Q. Nothing is wrong here.

Modelled on: https://github.com/pytorch/pytorch/issues/92586
"""
import random
from collections import deque

import torch
import torch.nn as nn
import torch.nn.functional as F

GAMMA = 0.95
OBS, ACTIONS = 6, 3


class QNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.Sequential(nn.Linear(OBS, 32), nn.ReLU(), nn.Linear(32, ACTIONS))

    def forward(self, s):
        return self.layers(s)


class Agent:
    def __init__(self):
        self.online = QNet()
        self.target = QNet()
        self.target.load_state_dict(self.online.state_dict())
        self.opt = torch.optim.Adam(self.online.parameters(), lr=1e-3)
        self.buffer = deque(maxlen=500)

    def remember(self, s, a, r, s2, done):
        self.buffer.append((s, a, r, s2, done))

    def td_target(self, r, s2, done):
        next_q = self.target(s2).max(dim=1).values.detach()
        return r + GAMMA * next_q * (1 - done)

    def learn(self, batch_size=16):
        batch = random.sample(self.buffer, batch_size)
        s, a, r, s2, d = map(torch.stack, zip(*batch))
        q = self.online(s).gather(1, a.long().unsqueeze(1)).squeeze(1)
        loss = F.smooth_l1_loss(q, self.td_target(r, s2, d))
        self.opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(self.online.parameters(), 10.0)
        self.opt.step()
        return loss.item(), q.data.max().item()


def main():
    random.seed(0)
    torch.manual_seed(0)
    agent = Agent()
    for _ in range(64):
        s = torch.randn(OBS)
        agent.remember(s, torch.tensor(random.randrange(ACTIONS)), torch.tensor(random.random()),
                       torch.randn(OBS), torch.tensor(float(random.random() < 0.1)))
    w0 = agent.online.layers[0].weight.detach().clone()
    for it in range(5):
        loss, qmax = agent.learn()
        print(f"iter {it}: loss {loss:.4f} max q {qmax:.3f}")
    assert not torch.equal(w0, agent.online.layers[0].weight)


if __name__ == "__main__":
    main()
    print("OK")
