"""GG105 look-alike - REINFORCE that uses torch.tensor(...) only for plain numbers.

Correct code. The discounted returns are Python floats and are turned into a tensor
with torch.tensor(returns); the per-step log-probabilities (which carry history) are
combined with torch.stack(...). The policy loss therefore keeps its graph.
"""
import torch
import torch.nn as nn
from torch.distributions import Categorical


class Policy(nn.Module):
    def __init__(self, obs_dim=4, n_actions=2):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(obs_dim, 32), nn.Tanh(), nn.Linear(32, n_actions))

    def forward(self, obs):
        return Categorical(logits=self.net(obs))


def discounted_returns(rewards, gamma):
    out, running = [], 0.0
    for r in reversed(rewards):
        running = r + gamma * running
        out.append(running)
    return list(reversed(out))


def run_episode(policy, horizon=8):
    log_probs, rewards, entropies = [], [], []
    obs = torch.randn(4)
    for _ in range(horizon):
        dist = policy(obs)
        action = dist.sample()
        log_probs.append(dist.log_prob(action))
        entropies.append(dist.entropy())
        rewards.append(float(action.item() == 1))
        obs = torch.randn(4)
    return log_probs, rewards, entropies


def update(policy, optimizer, log_probs, rewards, entropies, gamma=0.99, beta=0.01):
    returns = torch.tensor(discounted_returns(rewards, gamma))
    returns = (returns - returns.mean()) / (returns.std() + 1e-8)
    log_probs = torch.stack(log_probs)
    loss = -(log_probs * returns).sum() - beta * torch.stack(entropies).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss.item()


def main():
    torch.manual_seed(0)
    policy = Policy()
    optimizer = torch.optim.Adam(policy.parameters(), lr=1e-2)
    before = policy.net[0].weight.detach().clone()
    for episode in range(3):
        log_probs, rewards, entropies = run_episode(policy)
        loss = update(policy, optimizer, log_probs, rewards, entropies)
        print(f"episode {episode}: return={sum(rewards):.0f} loss={loss:.3f}")
    assert not torch.equal(before, policy.net[0].weight)


if __name__ == "__main__":
    main()
    print("OK")
