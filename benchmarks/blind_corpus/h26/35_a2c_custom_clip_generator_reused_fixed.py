"""GG610 - fixed: the clipping helper turns `parameters` into a list before looping twice.

An advantage actor-critic agent clips its gradients with a hand-written
clip_grad_norm(parameters, max_norm) that loops over `parameters` once to
measure the total norm and a second time to rescale each .grad.  It is called
with self.net.parameters(), a generator; in the buggy version the first loop
used it up and the rescaling loop ran zero times.  The fix materialises the
parameters with list() first, so both loops see every parameter.

Modelled on: https://github.com/pytorch/pytorch/issues/37350
"""
import torch
import torch.nn as nn
from torch.distributions import Categorical

HP = {"obs_dim": 6, "n_actions": 3, "hidden": 64, "gamma": 0.99, "lr": 7e-4,
      "value_coef": 0.5, "entropy_coef": 0.01, "max_grad_norm": 0.5, "rollout": 16, "updates": 5}


def clip_grad_norm(parameters, max_norm):
    """Rescale gradients so that their global L2 norm is at most max_norm."""
    parameters = list(parameters)
    total = 0.0
    for p in parameters:
        if p.grad is not None:
            total += p.grad.detach().pow(2).sum().item()
    total = total ** 0.5
    coef = max_norm / (total + 1e-6)
    if coef < 1.0:
        for p in parameters:  # fixed: GG610
            if p.grad is not None:
                p.grad.detach().mul_(coef)
    return total


class ActorCritic(nn.Module):
    def __init__(self, obs_dim, n_actions, hidden):
        super().__init__()
        self.shared = nn.Sequential(nn.Linear(obs_dim, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh())
        self.policy = nn.Linear(hidden, n_actions)
        self.value = nn.Linear(hidden, 1)

    def forward(self, obs):
        h = self.shared(obs)
        return Categorical(logits=self.policy(h)), self.value(h).squeeze(-1)


class ToyEnv:
    """Reward is large when the action matches the sign pattern of the observation."""

    def __init__(self, obs_dim, n_actions):
        self.obs_dim, self.n_actions = obs_dim, n_actions

    def reset(self):
        self.obs = torch.randn(self.obs_dim)
        return self.obs

    def step(self, action):
        reward = 50.0 if action == int(self.obs[:self.n_actions].argmax()) else -50.0
        self.obs = torch.randn(self.obs_dim)
        return self.obs, reward


class A2CAgent:
    def __init__(self, hp):
        self.hp = hp
        self.net = ActorCritic(hp["obs_dim"], hp["n_actions"], hp["hidden"])
        self.optimizer = torch.optim.RMSprop(self.net.parameters(), lr=hp["lr"], alpha=0.99, eps=1e-5)
        self.post_clip_norms = []

    def compute_returns(self, rewards, last_value):
        returns, r = [], last_value
        for rew in reversed(rewards):
            r = rew + self.hp["gamma"] * r
            returns.insert(0, r)
        return torch.tensor(returns)

    def update(self, log_probs, values, entropies, rewards, last_value):
        returns = self.compute_returns(rewards, last_value)
        values, log_probs = torch.stack(values), torch.stack(log_probs)
        advantages = returns - values
        policy_loss = -(log_probs * advantages.detach()).mean()
        value_loss = advantages.pow(2).mean()
        loss = policy_loss + self.hp["value_coef"] * value_loss - self.hp["entropy_coef"] * torch.stack(entropies).mean()
        self.optimizer.zero_grad()
        loss.backward()
        clip_grad_norm(self.net.parameters(), self.hp["max_grad_norm"])
        after = torch.sqrt(sum(p.grad.pow(2).sum() for p in self.net.parameters())).item()
        self.post_clip_norms.append(after)
        self.optimizer.step()
        return loss.item()


def run(hp):
    torch.manual_seed(0)
    env, agent = ToyEnv(hp["obs_dim"], hp["n_actions"]), A2CAgent(hp)
    obs = env.reset()
    for update in range(hp["updates"]):
        log_probs, values, entropies, rewards = [], [], [], []
        for _ in range(hp["rollout"]):
            dist, value = agent.net(obs)
            action = dist.sample()
            obs, reward = env.step(action.item())
            log_probs.append(dist.log_prob(action))
            values.append(value)
            entropies.append(dist.entropy())
            rewards.append(reward)
        with torch.no_grad():
            _, last_value = agent.net(obs)
        loss = agent.update(log_probs, values, entropies, rewards, last_value.item())
        print(f"update {update}: loss {loss:.2f} grad-norm after clip {agent.post_clip_norms[-1]:.3f}")
    return agent


if __name__ == "__main__":
    agent = run(HP)
    assert max(agent.post_clip_norms) <= HP["max_grad_norm"] * 1.001, agent.post_clip_norms
    print("FIXED: ok")
