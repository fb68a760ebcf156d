"""GG103 look-alike - actor-critic update with detached advantages and returns.

A one-file A2C script detaches the advantage before multiplying it with the
action log-probabilities, and the bootstrapped returns are built from detached
values.  Only the weights of the loss are cut from the graph; the log-probs and
the critic's values still carry it, so backward() trains both heads.  Prints OK.

Modelled on: none found
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Categorical

parser = argparse.ArgumentParser()
parser.add_argument("--gamma", type=float, default=0.99)
parser.add_argument("--lr", type=float, default=3e-3)
parser.add_argument("--n-steps", type=int, default=5)
parser.add_argument("--updates", type=int, default=6)
parser.add_argument("--value-coef", type=float, default=0.5)
parser.add_argument("--entropy-coef", type=float, default=0.01)
args = parser.parse_args([])


class ToyEnv:
    """4-dim state, 2 actions; reward 1 when the action matches the sign of state[0]."""

    def __init__(self):
        self.state = torch.randn(4)

    def reset(self):
        self.state = torch.randn(4)
        return self.state

    def step(self, action):
        reward = 1.0 if (self.state[0] > 0) == (action == 1) else 0.0
        self.state = torch.randn(4)
        return self.state, reward, False


class ActorCritic(nn.Module):
    def __init__(self, obs_dim=4, n_actions=2, hidden=32):
        super().__init__()
        self.shared = nn.Sequential(nn.Linear(obs_dim, hidden), nn.Tanh())
        self.actor = nn.Linear(hidden, n_actions)
        self.critic = nn.Linear(hidden, 1)

    def forward(self, obs):
        h = self.shared(obs)
        return self.actor(h), self.critic(h).squeeze(-1)


torch.manual_seed(0)
env = ToyEnv()
net = ActorCritic()
optimizer = torch.optim.Adam(net.parameters(), lr=args.lr)
obs = env.reset()
actor_w0 = net.actor.weight.detach().clone()
critic_w0 = net.critic.weight.detach().clone()

for update in range(args.updates):
    log_probs, values, rewards, entropies = [], [], [], []
    for _ in range(args.n_steps):
        logits, value = net(obs)
        dist = Categorical(logits=logits)
        action = dist.sample()
        obs, reward, done = env.step(action.item())
        log_probs.append(dist.log_prob(action))
        entropies.append(dist.entropy())
        values.append(value)
        rewards.append(reward)

    with torch.no_grad():
        _, next_value = net(obs)
    R = next_value
    returns = []
    for r in reversed(rewards):
        R = r + args.gamma * R
        returns.insert(0, R)
    returns = torch.stack(returns)
    values = torch.stack(values)
    log_probs = torch.stack(log_probs)

    advantage = (returns - values).detach()
    policy_loss = -(log_probs * advantage).mean()
    value_loss = F.smooth_l1_loss(values, returns.detach())
    entropy = torch.stack(entropies).mean()
    loss = policy_loss + args.value_coef * value_loss - args.entropy_coef * entropy

    optimizer.zero_grad()
    loss.backward()
    nn.utils.clip_grad_norm_(net.parameters(), 0.5)
    optimizer.step()
    print(f"update {update}: policy {policy_loss.item():+.4f} value {value_loss.item():.4f}")

assert not torch.equal(actor_w0, net.actor.weight)
assert not torch.equal(critic_w0, net.critic.weight)
print("OK")
