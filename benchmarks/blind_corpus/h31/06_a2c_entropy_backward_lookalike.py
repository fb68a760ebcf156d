"""Actor-critic with separate actor and critic networks, one backward each.

Modelled on: https://github.com/pytorch/pytorch/issues/11192 (counterpart)

Looks like the failing update: two losses, two backward() calls in a row.  Here
the actor and the critic are separate networks fed with rollout observations
that do not require grad, so the actor loss and the critic loss have disjoint
graphs; each backward() frees only its own graph and the second call is valid.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Categorical


def mlp(inp, out, hidden=32):
    return nn.Sequential(nn.Linear(inp, hidden), nn.Tanh(), nn.Linear(hidden, out))


class ActorCritic(nn.Module):
    def __init__(self, obs_dim, n_actions):
        super().__init__()
        self.actor = mlp(obs_dim, n_actions)
        self.critic = mlp(obs_dim, 1)

    def policy(self, obs):
        return Categorical(logits=self.actor(obs))

    def value(self, obs):
        return self.critic(obs).squeeze(-1)


class Rollout:
    def __init__(self, obs_dim, size, n_actions, seed=0):
        g = torch.Generator().manual_seed(seed)
        self.obs = torch.randn(size, obs_dim, generator=g)
        self.actions = torch.randint(0, n_actions, (size,), generator=g)
        self.returns = torch.randn(size, generator=g)


class A2C:
    def __init__(self, net, lr=3e-3, entropy_coef=0.01):
        self.net = net
        self.entropy_coef = entropy_coef
        self.actor_opt = torch.optim.Adam(net.actor.parameters(), lr=lr)
        self.critic_opt = torch.optim.Adam(net.critic.parameters(), lr=lr)

    def actor_loss(self, roll, adv):
        dist = self.net.policy(roll.obs)
        pg = -(dist.log_prob(roll.actions) * adv).mean()
        return pg - self.entropy_coef * dist.entropy().mean()

    def critic_loss(self, roll):
        return F.mse_loss(self.net.value(roll.obs), roll.returns)

    def update(self, roll):
        with torch.no_grad():
            adv = roll.returns - self.net.value(roll.obs)
        a_loss = self.actor_loss(roll, adv)
        c_loss = self.critic_loss(roll)
        self.actor_opt.zero_grad()
        self.critic_opt.zero_grad()
        a_loss.backward()
        c_loss.backward()
        self.actor_opt.step()
        self.critic_opt.step()
        return a_loss.item(), c_loss.item()


def train(n_updates=3):
    torch.manual_seed(0)
    agent = A2C(ActorCritic(6, 4))
    return [agent.update(Rollout(6, 64, 4, seed=k)) for k in range(n_updates)]


if __name__ == "__main__":
    hist = train()
    assert len(hist) == 3
    print("OK")
