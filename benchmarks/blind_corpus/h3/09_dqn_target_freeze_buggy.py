"""GG401 - requires_grad set on a tensor computed from tensors that require grad.

A DQN agent computes its TD target from the target network and then tries
to "freeze" it with `target.requires_grad = False` so no gradient flows into
the target net.  The target is the output of a network whose parameters
require grad, i.e. a non-leaf, and its flag cannot be changed:
RuntimeError: you can only change requires_grad flags of leaf variables. If you
want to use a computed variable in a subgraph that doesn't require
differentiation use var_no_grad = var.detach().
"""
import copy
import random
import sys
from collections import deque

import torch
import torch.nn as nn
import torch.nn.functional as F


class QNet(nn.Module):
    def __init__(self, obs_dim=4, n_actions=2):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(obs_dim, 32), nn.ReLU(), nn.Linear(32, n_actions))

    def forward(self, obs):
        return self.body(obs)


class DQNAgent:
    def __init__(self, obs_dim=4, n_actions=2, gamma=0.99, lr=1e-3):
        self.q = QNet(obs_dim, n_actions)
        self.q_target = copy.deepcopy(self.q)
        self.opt = torch.optim.Adam(self.q.parameters(), lr=lr)
        self.gamma = gamma
        self.buffer = deque(maxlen=1000)
        self.n_actions = n_actions

    def act(self, obs, eps):
        if random.random() < eps:
            return random.randrange(self.n_actions)
        with torch.no_grad():
            return int(self.q(obs[None]).argmax(1))

    def td_target(self, r, s2, done):
        next_q = self.q_target(s2).max(dim=1).values
        target = r + self.gamma * (1 - done) * next_q
        target.requires_grad = False  # bug: GG401
        return target

    def update(self, batch_size=16):
        batch = random.sample(self.buffer, batch_size)
        s, a, r, s2, d = (torch.stack(t) for t in zip(*batch))
        q_sa = self.q(s).gather(1, a[:, None]).squeeze(1)
        loss = F.smooth_l1_loss(q_sa, self.td_target(r, s2, d))
        self.opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(self.q.parameters(), 10.0)
        self.opt.step()
        return loss.item()


def main():
    torch.manual_seed(0)
    random.seed(0)
    agent = DQNAgent()
    obs = torch.randn(4)
    for t in range(40):
        a = agent.act(obs, eps=0.5)
        nxt = obs + 0.1 * torch.randn(4)
        r = torch.tensor(1.0 if a == int(obs[0] > 0) else 0.0)
        agent.buffer.append((obs, torch.tensor(a), r, nxt, torch.tensor(0.0)))
        obs = nxt
        if len(agent.buffer) >= 16:
            loss = agent.update()
            if t % 10 == 0:
                print(f"t={t} loss={loss:.4f}")
                agent.q_target.load_state_dict(agent.q.state_dict())


if __name__ == "__main__":
    try:
        main()
    except RuntimeError as e:
        print(f"BUGGY: {str(e).splitlines()[0]}")
        sys.exit(0)
    raise SystemExit("NO BUG")
