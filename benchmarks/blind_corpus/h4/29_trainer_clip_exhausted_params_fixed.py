"""GG610 - generator of parameters iterated a second time sees nothing (fixed).

self.params is a list, so the optimizer and every clip_grad_norm_ call see all tensors.
"""
import torch
import torch.nn as nn
from torch.distributions import Categorical


class ActorCritic(nn.Module):
    def __init__(self, obs_dim=4, n_actions=3, hidden=32):
        super().__init__()
        self.shared = nn.Sequential(nn.Linear(obs_dim, hidden), nn.Tanh())
        self.actor = nn.Linear(hidden, n_actions)
        self.critic = nn.Linear(hidden, 1)

    def forward(self, obs):
        h = self.shared(obs)
        return Categorical(logits=self.actor(h)), self.critic(h).squeeze(-1)


class A2CTrainer:
    def __init__(self, model, lr=7e-4, max_grad_norm=0.5, value_coef=0.5, ent_coef=0.01):
        self.model = model
        self.params = list(self.model.parameters())
        self.optimizer = torch.optim.RMSprop(self.params, lr=lr, alpha=0.99, eps=1e-5)
        self.max_grad_norm = max_grad_norm
        self.value_coef, self.ent_coef = value_coef, ent_coef
        self.stats = []

    def compute_loss(self, obs, actions, returns):
        dist, values = self.model(obs)
        advantages = returns - values.detach()
        policy_loss = -(dist.log_prob(actions) * advantages).mean()
        value_loss = (returns - values).pow(2).mean()
        entropy = dist.entropy().mean()
        return policy_loss + self.value_coef * value_loss - self.ent_coef * entropy

    def train_step(self, obs, actions, returns):
        loss = self.compute_loss(obs, actions, returns)
        self.optimizer.zero_grad()
        loss.backward()
        total_norm = nn.utils.clip_grad_norm_(self.params, self.max_grad_norm)  # fixed: GG610
        after = torch.sqrt(sum(p.grad.pow(2).sum() for p in self.model.parameters())).item()
        self.optimizer.step()
        self.stats.append({"loss": loss.item(), "clip_norm": float(total_norm), "grad_norm_after": after})
        return self.stats[-1]


def rollout(model, n=64, obs_dim=4):
    obs = torch.randn(n, obs_dim)
    with torch.no_grad():
        dist, _ = model(obs)
        actions = dist.sample()
    rewards = 10.0 * (actions == obs[:, :3].argmax(-1)).float()
    return obs, actions, rewards


def main():
    torch.manual_seed(0)
    model = ActorCritic()
    trainer = A2CTrainer(model)
    for update in range(3):
        s = trainer.train_step(*rollout(model))
        print(f"update {update}: loss {s['loss']:.3f} clip_norm {s['clip_norm']:.3f} grad_norm {s['grad_norm_after']:.3f}")
    return trainer.stats


if __name__ == "__main__":
    stats = main()
    assert all(s["clip_norm"] > 0.0 and s["grad_norm_after"] <= 0.5 + 1e-4 for s in stats), stats
    print("FIXED: ok")
