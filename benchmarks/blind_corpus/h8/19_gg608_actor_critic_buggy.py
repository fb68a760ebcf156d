"""GG608 - the actor's optimizer was built on the critic's parameters.

Mistake: a copy-paste slip in `A2CAgent.__init__` creates `actor_optimizer`
from `self.critic.parameters()`.  The actor loss uses the advantage *detached*
(as it should), so `actor_loss.backward()` only reaches the actor network - and
the optimizer that is then stepped holds none of the actor's parameters.
Silent effect (no exception): the policy network never changes; the critic gets
stepped by two optimizers instead (the actor's step finds its grads already
cleared).  Returns never improve.

Modelled on: https://github.com/llSourcell/actor_critic/issues/1
"""
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Categorical


@dataclass
class A2CConfig:
    obs_dim: int = 4
    n_actions: int = 3
    hidden: int = 32
    actor_lr: float = 3e-3
    critic_lr: float = 1e-2
    gamma: float = 0.95
    rollout_len: int = 16
    updates: int = 5


class ToyEnv:
    """Reward 1 when the action matches argmax of the first n_actions observation entries."""

    def __init__(self, cfg):
        self.cfg = cfg
        self.state = torch.randn(cfg.obs_dim)

    def reset(self):
        self.state = torch.randn(self.cfg.obs_dim)
        return self.state

    def step(self, action):
        reward = 1.0 if action == int(self.state[: self.cfg.n_actions].argmax()) else 0.0
        self.state = torch.randn(self.cfg.obs_dim)
        return self.state, reward


class Actor(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(cfg.obs_dim, cfg.hidden), nn.Tanh(), nn.Linear(cfg.hidden, cfg.n_actions))

    def forward(self, obs):
        return Categorical(logits=self.net(obs))


class Critic(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(cfg.obs_dim, cfg.hidden), nn.Tanh(), nn.Linear(cfg.hidden, 1))

    def forward(self, obs):
        return self.net(obs).squeeze(-1)


class A2CAgent:
    def __init__(self, cfg):
        self.cfg = cfg
        self.actor = Actor(cfg)
        self.critic = Critic(cfg)
        self.actor_optimizer = torch.optim.Adam(self.critic.parameters(), lr=cfg.actor_lr)
        self.critic_optimizer = torch.optim.Adam(self.critic.parameters(), lr=cfg.critic_lr)

    def discounted_returns(self, rewards):
        returns, running = [], 0.0
        for r in reversed(rewards):
            running = r + self.cfg.gamma * running
            returns.insert(0, running)
        return torch.tensor(returns)

    def update(self, log_probs, values, rewards):
        returns = self.discounted_returns(rewards)
        advantage = returns - values
        actor_loss = -(log_probs * advantage.detach()).mean()
        critic_loss = F.smooth_l1_loss(values, returns)

        self.actor_optimizer.zero_grad()
        actor_loss.backward()
        self.actor_optimizer.step()  # bug: GG608

        self.critic_optimizer.zero_grad()
        critic_loss.backward()
        self.critic_optimizer.step()
        return {"actor": actor_loss.item(), "critic": critic_loss.item()}


def collect_rollout(env, agent, length):
    obs = env.reset()
    log_probs, values, rewards = [], [], []
    for _ in range(length):
        dist = agent.actor(obs)
        action = dist.sample()
        log_probs.append(dist.log_prob(action))
        values.append(agent.critic(obs))
        obs, reward = env.step(int(action))
        rewards.append(reward)
    return torch.stack(log_probs), torch.stack(values), rewards


def main(cfg):
    env = ToyEnv(cfg)
    agent = A2CAgent(cfg)
    actor_before = [p.detach().clone() for p in agent.actor.parameters()]
    for update in range(cfg.updates):
        log_probs, values, rewards = collect_rollout(env, agent, cfg.rollout_len)
        losses = agent.update(log_probs, values, rewards)
        print(f"update {update}: reward {sum(rewards):.0f}/{cfg.rollout_len} "
              f"actor {losses['actor']:.3f} critic {losses['critic']:.3f}")
    return agent, actor_before


def check_training():
    torch.manual_seed(0)
    agent, actor_before = main(A2CConfig())
    moved = any(not torch.equal(p.detach(), b) for p, b in zip(agent.actor.parameters(), actor_before))
    assert moved, "policy (actor) parameters never changed: its optimizer steps the critic instead"


if __name__ == "__main__":
    try:
        check_training()
    except AssertionError as err:
        print(f"BUGGY: {err}")
    else:
        raise SystemExit("NO BUG")
