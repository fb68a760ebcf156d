"""GG601 look-alike - gradients are cleared, just not where one expects.

A REINFORCE agent's update() calls loss.backward() and then a helper
_apply_gradients() which clips, steps the optimizer and then clears the
gradients with `p.grad = None` over the policy's parameters.  No zero_grad()
call sits next to backward(), but every update starts from empty gradients.
Runs cleanly.

Modelled on: none found (correct counterpart of the missing zero_grad bug)
"""
import torch
import torch.nn as nn
from torch.distributions import Categorical

CONFIG = {"obs_dim": 6, "n_actions": 3, "gamma": 0.99, "lr": 1e-2, "episodes": 4, "ep_len": 10, "clip": 1.0}


class Policy(nn.Module):
    def __init__(self, obs_dim, n_actions):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(obs_dim, 32), nn.Tanh(), nn.Linear(32, n_actions))

    def forward(self, obs):
        return Categorical(logits=self.net(obs))


class ToyEnv:
    def __init__(self, obs_dim, ep_len):
        self.obs_dim, self.ep_len = obs_dim, ep_len

    def reset(self):
        self.t = 0
        return torch.randn(self.obs_dim)

    def step(self, action):
        self.t += 1
        reward = 1.0 if action == 0 else 0.0
        return torch.randn(self.obs_dim), reward, self.t >= self.ep_len


def discounted_returns(rewards, gamma):
    out, g = [], 0.0
    for r in reversed(rewards):
        g = r + gamma * g
        out.insert(0, g)
    ret = torch.tensor(out)
    return (ret - ret.mean()) / (ret.std() + 1e-8)


class Agent:
    def __init__(self, cfg):
        self.cfg = cfg
        self.policy = Policy(cfg["obs_dim"], cfg["n_actions"])
        self.optimizer = torch.optim.Adam(self.policy.parameters(), lr=cfg["lr"])
        self.grad_norms = []

    def _apply_gradients(self):
        norm = nn.utils.clip_grad_norm_(self.policy.parameters(), self.cfg["clip"])
        self.optimizer.step()
        for p in self.policy.parameters():
            p.grad = None
        self.grad_norms.append(float(norm))

    def update(self, log_probs, rewards):
        returns = discounted_returns(rewards, self.cfg["gamma"])
        loss = -(torch.stack(log_probs) * returns).sum()
        loss.backward()
        self._apply_gradients()
        return loss.item()


def run():
    torch.manual_seed(0)
    env = ToyEnv(CONFIG["obs_dim"], CONFIG["ep_len"])
    agent = Agent(CONFIG)
    for ep in range(CONFIG["episodes"]):
        obs, done, log_probs, rewards = env.reset(), False, [], []
        while not done:
            dist = agent.policy(obs)
            action = dist.sample()
            log_probs.append(dist.log_prob(action))
            obs, r, done = env.step(action.item())
            rewards.append(r)
        loss = agent.update(log_probs, rewards)
        assert all(p.grad is None for p in agent.policy.parameters())
        print(f"episode {ep}: return={sum(rewards):.1f} loss={loss:.3f}")


if __name__ == "__main__":
    run()
    print("OK")
