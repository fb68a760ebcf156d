"""GG105 (fixed) - episode log-probabilities are stacked, not copied.

Fix: `torch.stack(self.saved_log_probs)` keeps each log-prob's link to the policy, so
the policy-gradient loss backpropagates into the network.

Mistake fixed: REINFORCE episode log-probabilities packed with torch.tensor(...).
The buggy version fails with RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
"""
import warnings

import torch
import torch.nn as nn
from torch.distributions import Categorical

warnings.simplefilter("ignore")


class Policy(nn.Module):
    def __init__(self, obs_dim=4, n_actions=2, hidden=32):
        super().__init__()
        self.fc1 = nn.Linear(obs_dim, hidden)
        self.drop = nn.Dropout(0.1)
        self.fc2 = nn.Linear(hidden, n_actions)

    def forward(self, obs):
        return torch.softmax(self.fc2(self.drop(torch.relu(self.fc1(obs)))), dim=-1)


class ToyEnv:
    """Random-walk environment with the gym-like reset/step API."""

    def __init__(self, horizon=10):
        self.horizon, self.t = horizon, 0

    def reset(self):
        self.t = 0
        return torch.randn(4)

    def step(self, action):
        self.t += 1
        reward = 1.0 if action == 1 else 0.0
        return torch.randn(4), reward, self.t >= self.horizon


class ReinforceAgent:
    def __init__(self, gamma=0.99, lr=1e-2):
        self.policy = Policy()
        self.optimizer = torch.optim.Adam(self.policy.parameters(), lr=lr)
        self.gamma = gamma
        self.saved_log_probs, self.rewards = [], []

    def select_action(self, obs):
        dist = Categorical(self.policy(obs))
        action = dist.sample()
        self.saved_log_probs.append(dist.log_prob(action))
        return action.item()

    def finish_episode(self):
        returns, running = [], 0.0
        for r in reversed(self.rewards):
            running = r + self.gamma * running
            returns.insert(0, running)
        returns = torch.tensor(returns)
        returns = (returns - returns.mean()) / (returns.std() + 1e-8)
        log_probs = torch.stack(self.saved_log_probs)  # fixed: GG105
        policy_loss = -(log_probs * returns).sum()
        self.optimizer.zero_grad()
        policy_loss.backward()
        self.optimizer.step()
        self.saved_log_probs, self.rewards = [], []
        return policy_loss.item()


def main():
    torch.manual_seed(0)
    env, agent = ToyEnv(), ReinforceAgent()
    for episode in range(3):
        obs, done, ep_reward = env.reset(), False, 0.0
        while not done:
            obs, reward, done = env.step(agent.select_action(obs))
            agent.rewards.append(reward)
            ep_reward += reward
        loss = agent.finish_episode()
        print(f"episode {episode}: reward={ep_reward:.1f} loss={loss:.3f}")


if __name__ == "__main__":
    main()
    print("FIXED: ok")
