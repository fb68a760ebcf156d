"""GG501 - backward() without a gradient argument on a tensor with more than one element.

An advantage actor-critic update builds the policy term as
-(log_prob * advantage) per time step and forgets to average it.  Adding
the (scalar) value loss and entropy bonus broadcasts, so the "total loss"
stored in the loss dict is a vector of length T and backward() fails:
RuntimeError: grad can be implicitly created only for scalar outputs
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
        "policy": -(batch["log_probs"] * advantages),
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
        losses["total"].backward()  # bug: GG501
        nn.utils.clip_grad_norm_(model.parameters(), 0.5)
        opt.step()
        print(f"update {update}: " + " ".join(f"{k}={v.mean().item():.3f}" for k, v in losses.items()))


if __name__ == "__main__":
    try:
        main()
    except RuntimeError as e:
        print(f"BUGGY: {str(e).splitlines()[0]}")
        sys.exit(0)
    raise SystemExit("NO BUG")
