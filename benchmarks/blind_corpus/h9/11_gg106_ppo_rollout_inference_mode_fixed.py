"""GG106 (fixed) - the rollout is collected under torch.no_grad() instead.

Actor-critic / PPO-style agent. collect_rollout() is wrapped in
torch.no_grad(): the stored observations are normal tensors without history,
so update() can re-run the policy on them and backpropagate.

Modelled on: https://github.com/ai4co/rl4co/issues/272
"""
import torch
import torch.nn as nn
from torch.distributions import Categorical

PPO_CFG = {
    "obs_dim": 4,
    "n_actions": 2,
    "horizon": 32,
    "gamma": 0.99,
    "clip_eps": 0.2,
    "epochs_per_update": 2,
    "lr": 3e-4,
    "iterations": 2,
}


class ToyEnv:
    def __init__(self, obs_dim):
        self.obs_dim = obs_dim
        self.state = torch.zeros(obs_dim)

    def reset(self):
        self.state = torch.randn(self.obs_dim)
        return self.state

    def step(self, action):
        reward = 1.0 if (self.state[0] > 0) == bool(action) else 0.0
        self.state = torch.randn(self.obs_dim)
        return self.state, reward


class ActorCritic(nn.Module):
    def __init__(self, obs_dim, n_actions):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(obs_dim, 64), nn.Tanh())
        self.pi = nn.Linear(64, n_actions)
        self.v = nn.Linear(64, 1)

    def forward(self, obs):
        h = self.body(obs)
        return Categorical(logits=self.pi(h)), self.v(h).squeeze(-1)


class PPOAgent:
    def __init__(self, cfg):
        self.cfg = cfg
        self.env = ToyEnv(cfg["obs_dim"])
        self.policy = ActorCritic(cfg["obs_dim"], cfg["n_actions"])
        self.optimizer = torch.optim.Adam(self.policy.parameters(), lr=cfg["lr"])

    @torch.no_grad()
    def collect_rollout(self):
        obs_buf, act_buf, logp_buf, rew_buf = [], [], [], []
        obs = self.env.reset()
        for _ in range(self.cfg["horizon"]):
            dist, _ = self.policy(obs)
            action = dist.sample()
            obs_buf.append(obs)
            act_buf.append(action)
            logp_buf.append(dist.log_prob(action))
            obs, reward = self.env.step(int(action))
            rew_buf.append(reward)
        returns, running = [], 0.0
        for r in reversed(rew_buf):
            running = r + self.cfg["gamma"] * running
            returns.insert(0, running)
        return {
            "obs": torch.stack(obs_buf),
            "actions": torch.stack(act_buf),
            "old_logp": torch.stack(logp_buf),
            "returns": torch.tensor(returns),
        }

    def update(self, batch):
        for _ in range(self.cfg["epochs_per_update"]):
            dist, values = self.policy(batch["obs"])  # fixed: GG106
            logp = dist.log_prob(batch["actions"])
            adv = batch["returns"] - values.detach()
            ratio = torch.exp(logp - batch["old_logp"])
            clipped = torch.clamp(ratio, 1 - self.cfg["clip_eps"], 1 + self.cfg["clip_eps"])
            pi_loss = -torch.min(ratio * adv, clipped * adv).mean()
            v_loss = (batch["returns"] - values).pow(2).mean()
            loss = pi_loss + 0.5 * v_loss - 0.01 * dist.entropy().mean()
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
        return loss.item()

    def train(self):
        for it in range(self.cfg["iterations"]):
            batch = self.collect_rollout()
            loss = self.update(batch)
            print(f"iter {it} return {batch['returns'][0]:.2f} loss {loss:.4f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    PPOAgent(PPO_CFG).train()
    print("FIXED: ok")
