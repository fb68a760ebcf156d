"""GG608 look-alike - an optimizer stepping a model reached only indirectly.

A DDPG agent's ``update`` method computes ``actor_loss = -critic(s, actor(s))``
and then calls ``self.actor_opt.step()``.  The loss is written in terms of the
critic, so at a glance it looks as if the actor optimizer steps a network the
loss does not reach; in fact the gradient flows through the critic into the
actor's action output, so the actor is updated.  The critic optimizer steps
after the TD loss, which reaches the critic directly.  Target networks are
moved by Polyak averaging, not by an optimizer.  Runs cleanly.

Modelled on: https://github.com/zhaoyuzhi/DeblurGANv2-MobileNetv123-PyTorch/issues/7 (correct variant)
"""
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F

HP = {"obs": 5, "act": 2, "gamma": 0.99, "tau": 0.01, "batch": 16, "updates": 3}


class Actor(nn.Module):
    def __init__(self, obs, act):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(obs, 32), nn.ReLU(), nn.Linear(32, act), nn.Tanh())

    def forward(self, s):
        return self.net(s)


class Critic(nn.Module):
    def __init__(self, obs, act):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(obs + act, 32), nn.ReLU(), nn.Linear(32, 1))

    def forward(self, s, a):
        return self.net(torch.cat([s, a], dim=-1))


class DDPGAgent:
    def __init__(self, hp):
        self.hp = hp
        self.actor, self.critic = Actor(hp["obs"], hp["act"]), Critic(hp["obs"], hp["act"])
        self.actor_targ, self.critic_targ = copy.deepcopy(self.actor), copy.deepcopy(self.critic)
        self.actor_opt = torch.optim.Adam(self.actor.parameters(), lr=1e-3)
        self.critic_opt = torch.optim.Adam(self.critic.parameters(), lr=1e-3)

    @torch.no_grad()
    def soft_update(self):
        for net, targ in ((self.actor, self.actor_targ), (self.critic, self.critic_targ)):
            for p, tp in zip(net.parameters(), targ.parameters()):
                tp.lerp_(p, self.hp["tau"])

    def update(self, batch):
        s, a, r, s2, done = batch
        with torch.no_grad():
            target_q = r + self.hp["gamma"] * (1 - done) * self.critic_targ(s2, self.actor_targ(s2))
        critic_loss = F.mse_loss(self.critic(s, a), target_q)
        self.critic_opt.zero_grad()
        critic_loss.backward()
        self.critic_opt.step()

        actor_loss = -self.critic(s, self.actor(s)).mean()
        self.actor_opt.zero_grad()
        actor_loss.backward()
        self.actor_opt.step()
        self.soft_update()
        return critic_loss.item(), actor_loss.item()


def sample_batch(hp):
    n = hp["batch"]
    return (torch.randn(n, hp["obs"]), torch.rand(n, hp["act"]) * 2 - 1, torch.randn(n, 1),
            torch.randn(n, hp["obs"]), (torch.rand(n, 1) < 0.1).float())


def main():
    torch.manual_seed(0)
    agent = DDPGAgent(HP)
    a0 = agent.actor.net[0].weight.detach().clone()
    for i in range(HP["updates"]):
        cl, al = agent.update(sample_batch(HP))
        print(f"update {i}: critic {cl:.4f} actor {al:.4f}")
    assert not torch.equal(a0, agent.actor.net[0].weight)


if __name__ == "__main__":
    main()
    print("OK")
