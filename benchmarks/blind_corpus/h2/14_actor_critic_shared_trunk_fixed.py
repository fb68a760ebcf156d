"""GG205 (fixed): actor-critic update runs both backward passes before any optimizer step.

Category GG205. ``update`` still back-propagates the value loss with retain_graph=True and
then the policy loss, but both optimizers step only after the second backward(), so the
retained graph never sees trunk weights that were changed under it. In the buggy version
the critic step came in between and the policy backward() failed with "one of the
variables needed for gradient computation has been modified by an inplace operation".
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Categorical


class ActorCritic(nn.Module):
    def __init__(self, obs_dim=4, n_actions=2, hidden=32):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(obs_dim, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh())
        self.policy = nn.Linear(hidden, n_actions)
        self.value = nn.Linear(hidden, 1)

    def forward(self, obs):
        h = self.trunk(obs)
        return Categorical(logits=self.policy(h)), self.value(h).squeeze(-1)


class ToyEnv:
    """Reward 1 when the action matches the sign of the first observation feature."""

    def __init__(self, obs_dim=4):
        self.obs_dim = obs_dim

    def rollout(self, agent, steps):
        obs = torch.randn(steps, self.obs_dim)
        with torch.no_grad():
            dist, _ = agent.model(obs)
            actions = dist.sample()
        rewards = (actions == (obs[:, 0] > 0).long()).float()
        return {"obs": obs, "actions": actions, "rewards": rewards}


class A2CAgent:
    def __init__(self, model, gamma=0.9, entropy_coef=0.01):
        self.model = model
        self.gamma = gamma
        self.entropy_coef = entropy_coef
        critic_params = list(model.trunk.parameters()) + list(model.value.parameters())
        self.critic_opt = torch.optim.Adam(critic_params, lr=1e-3)
        self.actor_opt = torch.optim.Adam(model.policy.parameters(), lr=1e-3)

    def discounted_returns(self, rewards):
        returns, running = torch.zeros_like(rewards), 0.0
        for t in reversed(range(rewards.numel())):
            running = rewards[t] + self.gamma * running
            returns[t] = running
        return returns

    def update(self, batch):
        dist, values = self.model(batch["obs"])
        returns = self.discounted_returns(batch["rewards"])
        advantages = (returns - values).detach()
        value_loss = F.mse_loss(values, returns)
        policy_loss = -(dist.log_prob(batch["actions"]) * advantages).mean() - self.entropy_coef * dist.entropy().mean()

        self.critic_opt.zero_grad()
        self.actor_opt.zero_grad()
        value_loss.backward(retain_graph=True)
        policy_loss.backward()
        self.critic_opt.step()  # fixed: GG205
        self.actor_opt.step()
        return {"value_loss": value_loss.item(), "policy_loss": policy_loss.item()}


def main():
    torch.manual_seed(12)
    env = ToyEnv()
    agent = A2CAgent(ActorCritic())
    for it in range(5):
        stats = agent.update(env.rollout(agent, steps=16))
        print(f"iter {it}: " + ", ".join(f"{k}={v:.3f}" for k, v in stats.items()))


if __name__ == "__main__":
    main()
    print("FIXED: ok")
