"""GG608 look-alike - DDPG update where losses pass through other networks, all correctly.

The critic loss is built from targets computed by the target actor/critic under
`torch.no_grad()`, and the actor loss is `-critic(state, actor(state))` - it
flows *through* the critic to reach the actor.  Each optimizer is stepped right
after a backward whose loss does reach its parameters (the actor is updated
before the critic, and the critic gradients produced by the actor loss are
cleared by `critic_opt.zero_grad()` before the critic's own backward).
Correct: actor and critic both change, the target networks change only through
the Polyak update.

Modelled on: https://github.com/rail-berkeley/rlkit/pull/109
"""
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F

OBS, ACT = 3, 1
GAMMA, TAU = 0.99, 0.05
BATCH, UPDATES = 32, 6


class Actor(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(OBS, 64), nn.ReLU(), nn.Linear(64, ACT), nn.Tanh())

    def forward(self, s):
        return self.net(s)


class Critic(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(OBS + ACT, 64), nn.ReLU(), nn.Linear(64, 1))

    def forward(self, s, a):
        return self.net(torch.cat([s, a], dim=-1))


class ReplayBuffer:
    def __init__(self, n=512):
        self.s = torch.randn(n, OBS)
        self.a = torch.rand(n, ACT) * 2 - 1
        self.r = -(self.s[:, :1] ** 2) - 0.1 * self.a ** 2
        self.s2 = self.s + 0.1 * torch.randn(n, OBS)
        self.done = torch.zeros(n, 1)

    def sample(self, k):
        idx = torch.randint(0, self.s.size(0), (k,))
        return self.s[idx], self.a[idx], self.r[idx], self.s2[idx], self.done[idx]


class DDPG:
    def __init__(self):
        self.actor, self.critic = Actor(), Critic()
        self.actor_target = copy.deepcopy(self.actor)
        self.critic_target = copy.deepcopy(self.critic)
        self.actor_opt = torch.optim.Adam(self.actor.parameters(), lr=1e-3)
        self.critic_opt = torch.optim.Adam(self.critic.parameters(), lr=1e-3)

    @torch.no_grad()
    def soft_update(self):
        for net, tgt in ((self.actor, self.actor_target), (self.critic, self.critic_target)):
            for p, tp in zip(net.parameters(), tgt.parameters()):
                tp.mul_(1 - TAU).add_(TAU * p)

    def update(self, batch):
        s, a, r, s2, done = batch
        # actor first: its loss goes through the critic
        self.actor_opt.zero_grad()
        actor_loss = -self.critic(s, self.actor(s)).mean()
        actor_loss.backward()
        self.actor_opt.step()

        with torch.no_grad():
            target_q = r + GAMMA * (1 - done) * self.critic_target(s2, self.actor_target(s2))
        self.critic_opt.zero_grad()
        critic_loss = F.mse_loss(self.critic(s, a), target_q)
        critic_loss.backward()
        self.critic_opt.step()
        self.soft_update()
        return actor_loss.item(), critic_loss.item()


def snapshot(module):
    return [p.detach().clone() for p in module.parameters()]


def changed(module, snap):
    return all(not torch.equal(p, q) for p, q in zip(module.parameters(), snap))


def check_training():
    torch.manual_seed(0)
    agent, buffer = DDPG(), ReplayBuffer()
    snaps = {name: snapshot(getattr(agent, name)) for name in ("actor", "critic", "actor_target")}
    for i in range(UPDATES):
        a_loss, c_loss = agent.update(buffer.sample(BATCH))
        print(f"update {i}: actor {a_loss:.4f} critic {c_loss:.4f}")
    for name, snap in snaps.items():
        assert changed(getattr(agent, name), snap), f"{name} did not change"


if __name__ == "__main__":
    check_training()
    print("OK")
