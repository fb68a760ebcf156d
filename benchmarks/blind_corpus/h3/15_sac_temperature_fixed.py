"""GG405 - fixed version.

log_alpha is created directly as a leaf holding log(init_alpha), so the
temperature optimizer can own it.
"""
import math
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F


class Actor(nn.Module):
    def __init__(self, obs_dim, act_dim):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(obs_dim, 64), nn.ReLU())
        self.mu = nn.Linear(64, act_dim)
        self.log_std = nn.Linear(64, act_dim)

    def forward(self, obs):
        h = self.body(obs)
        mu, log_std = self.mu(h), self.log_std(h).clamp(-5, 2)
        dist = torch.distributions.Normal(mu, log_std.exp())
        u = dist.rsample()
        a = torch.tanh(u)
        logp = dist.log_prob(u).sum(-1) - torch.log(1 - a.pow(2) + 1e-6).sum(-1)
        return a, logp


class Critic(nn.Module):
    def __init__(self, obs_dim, act_dim):
        super().__init__()
        self.q = nn.Sequential(nn.Linear(obs_dim + act_dim, 64), nn.ReLU(), nn.Linear(64, 1))

    def forward(self, obs, act):
        return self.q(torch.cat([obs, act], -1)).squeeze(-1)


class SACAgent:
    def __init__(self, obs_dim=3, act_dim=1, init_alpha=0.2, lr=3e-4, device="cpu"):
        self.actor = Actor(obs_dim, act_dim).to(device)
        self.critic = Critic(obs_dim, act_dim).to(device)
        self.target_entropy = -float(act_dim)
        self.log_alpha = torch.tensor(math.log(init_alpha), requires_grad=True, device=device)
        self.actor_opt = torch.optim.Adam(self.actor.parameters(), lr=lr)
        self.critic_opt = torch.optim.Adam(self.critic.parameters(), lr=lr)
        self.alpha_opt = torch.optim.Adam([self.log_alpha], lr=lr)  # fixed: GG405

    @property
    def alpha(self):
        return self.log_alpha.exp()

    def update(self, obs, act, rew, next_obs, gamma=0.99):
        with torch.no_grad():
            a2, logp2 = self.actor(next_obs)
            target = rew + gamma * (self.critic(next_obs, a2) - self.alpha * logp2)
        critic_loss = F.mse_loss(self.critic(obs, act), target)
        self.critic_opt.zero_grad()
        critic_loss.backward()
        self.critic_opt.step()

        a, logp = self.actor(obs)
        actor_loss = (self.alpha.detach() * logp - self.critic(obs, a)).mean()
        self.actor_opt.zero_grad()
        actor_loss.backward()
        self.actor_opt.step()

        alpha_loss = -(self.log_alpha * (logp.detach() + self.target_entropy)).mean()
        self.alpha_opt.zero_grad()
        alpha_loss.backward()
        self.alpha_opt.step()
        return {"critic": critic_loss.item(), "actor": actor_loss.item(), "alpha": self.alpha.item()}


def main():
    torch.manual_seed(0)
    agent = SACAgent()
    for it in range(5):
        obs, act = torch.randn(32, 3), torch.rand(32, 1) * 2 - 1
        rew, nxt = -(obs ** 2).sum(-1), obs + 0.1 * torch.randn(32, 3)
        stats = agent.update(obs, act, rew, nxt)
        print(f"iter {it}: " + ", ".join(f"{k}={v:.4f}" for k, v in stats.items()))


if __name__ == "__main__":
    main()
    print("FIXED: ok")
