"""GG608 look-alike - several optimizers, each stepped only after a loss that reaches it.

Correct code: a DDPG-style agent. The critic loss uses detached target values and the
replay actions, and only critic_opt steps after it. The actor loss flows through the
critic into the actor; only actor_opt steps after it (the critic's stray gradients
are cleared before its next update). The target networks are updated by Polyak
averaging, with no optimizer at all. Both trained networks change (checked).
"""
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F

CFG = {"obs_dim": 6, "act_dim": 2, "hidden": 64, "actor_lr": 1e-3, "critic_lr": 1e-3,
       "gamma": 0.99, "tau": 0.05, "batch": 32, "updates": 4}


class Actor(nn.Module):
    def __init__(self, obs_dim, act_dim, hidden):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(obs_dim, hidden), nn.ReLU(), nn.Linear(hidden, act_dim), nn.Tanh())

    def forward(self, obs):
        return self.net(obs)


class Critic(nn.Module):
    def __init__(self, obs_dim, act_dim, hidden):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(obs_dim + act_dim, hidden), nn.ReLU(), nn.Linear(hidden, 1))

    def forward(self, obs, act):
        return self.net(torch.cat([obs, act], -1))


class DDPG:
    def __init__(self, cfg):
        self.cfg = cfg
        self.actor = Actor(cfg["obs_dim"], cfg["act_dim"], cfg["hidden"])
        self.critic = Critic(cfg["obs_dim"], cfg["act_dim"], cfg["hidden"])
        self.actor_targ = copy.deepcopy(self.actor).requires_grad_(False)
        self.critic_targ = copy.deepcopy(self.critic).requires_grad_(False)
        self.actor_opt = torch.optim.Adam(self.actor.parameters(), lr=cfg["actor_lr"])
        self.critic_opt = torch.optim.Adam(self.critic.parameters(), lr=cfg["critic_lr"])

    def critic_loss(self, o, a, r, o2, d):
        with torch.no_grad():
            backup = r + self.cfg["gamma"] * (1 - d) * self.critic_targ(o2, self.actor_targ(o2))
        return F.mse_loss(self.critic(o, a), backup)

    def actor_loss(self, o):
        return -self.critic(o, self.actor(o)).mean()

    @torch.no_grad()
    def soft_update(self):
        for net, targ in ((self.actor, self.actor_targ), (self.critic, self.critic_targ)):
            for p, pt in zip(net.parameters(), targ.parameters()):
                pt.lerp_(p, self.cfg["tau"])

    def update(self, batch):
        self.critic_opt.zero_grad()
        lc = self.critic_loss(*batch)
        lc.backward()
        self.critic_opt.step()

        self.actor_opt.zero_grad()
        la = self.actor_loss(batch[0])
        la.backward()
        self.actor_opt.step()
        self.soft_update()
        return {"loss_q": lc.item(), "loss_pi": la.item()}


def sample(cfg):
    b = cfg["batch"]
    return (torch.randn(b, cfg["obs_dim"]), torch.rand(b, cfg["act_dim"]) * 2 - 1, torch.randn(b, 1),
            torch.randn(b, cfg["obs_dim"]), torch.randint(0, 2, (b, 1)).float())


def main():
    torch.manual_seed(0)
    agent = DDPG(CFG)
    a0 = [p.detach().clone() for p in agent.actor.parameters()]
    c0 = [p.detach().clone() for p in agent.critic.parameters()]
    for i in range(CFG["updates"]):
        print(i, agent.update(sample(CFG)))
    assert all(not torch.equal(b, p) for b, p in zip(a0, agent.actor.parameters()))
    assert all(not torch.equal(b, p) for b, p in zip(c0, agent.critic.parameters()))


if __name__ == "__main__":
    main()
    print("OK")
