"""GG501 - fixed version.

The policy term is averaged over time steps, so the total loss is a scalar
and backward() needs no gradient argument.
"""
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F


class ActorCritic(nn.Module):
    def __init__(self, obs_dim=4, n_actions=3, hidden=32):
        super().__init__()
        self.shared = nn.Sequential(nn.Linear(obs_dim, hidden), nn.Tanh())
        self.pi = nn.Linear(hidden, n_actions)
        self.v = nn.Linear(hidden, 1)

    def forward(self, obs):
        h = self.shared(obs)
        return torch.distributions.Categorical(logits=self.pi(h)), self.v(h).squeeze(-1)


def rollout(model, T=16, obs_dim=4):
    obs = torch.randn(T, obs_dim)
    dist, values = model(obs)
    actions = dist.sample()
    rewards = (actions == obs[:, :3].argmax(1)).float()
    return {"log_probs": dist.log_prob(actions), "entropy": dist.entropy(),
            "values": values, "rewards": rewards}


def discounted_returns(rewards, gamma=0.95):
    out, running = torch.zeros_like(rewards), 0.0
    for t in reversed(range(len(rewards))):
        running = rewards[t] + gamma * running
        out[t] = running
    return out


def a2c_losses(batch, value_coef=0.5, ent_coef=0.01):
    returns = discounted_returns(batch["rewards"])
    advantages = (returns - batch["values"]).detach()
    losses = {
        "policy": -(batch["log_probs"] * advantages).mean(),
        "value": F.mse_loss(batch["values"], returns),
        "entropy": batch["entropy"].mean(),
    }
    losses["total"] = losses["policy"] + value_coef * losses["value"] - ent_coef * losses["entropy"]
    return losses


def main():
    torch.manual_seed(0)
    model = ActorCritic()
    opt = torch.optim.RMSprop(model.parameters(), lr=7e-4)
    for update in range(5):
        losses = a2c_losses(rollout(model))
        opt.zero_grad()
        losses["total"].backward()  # fixed: GG501
        nn.utils.clip_grad_norm_(model.parameters(), 0.5)
        opt.step()
        print(f"update {update}: " + " ".join(f"{k}={v.mean().item():.3f}" for k, v in losses.items()))


if __name__ == "__main__":
    main()
    print("FIXED: ok")
