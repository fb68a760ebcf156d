"""GG106 - fixed version: rollouts are collected under torch.no_grad().

Tensors made under no_grad are ordinary tensors (just without history), so the
PPO update can run them through the actor-critic and autograd may save them.

Modelled on: https://github.com/hiyouga/LlamaFactory/issues/184
"""
import sys
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Categorical

PPO_CFG = {"obs_dim": 6, "n_actions": 3, "horizon": 32, "epochs": 4, "max_grad_norm": 0.5,
           "clip": 0.2, "gamma": 0.99, "vf_coef": 0.5, "lr": 3e-4}


class ActorCritic(nn.Module):
    def __init__(self, obs_dim, n_actions):
        super().__init__()
        self.shared = nn.Sequential(nn.Linear(obs_dim, 64), nn.Tanh())
        self.pi = nn.Linear(64, n_actions)
        self.v = nn.Linear(64, 1)

    def forward(self, obs):
        h = self.shared(obs)
        return Categorical(logits=self.pi(h)), self.v(h).squeeze(-1)


class ToyEnv:
    def __init__(self, obs_dim):
        self.obs_dim = obs_dim
        self.state = torch.zeros(obs_dim)

    def reset(self):
        self.state = torch.randn(self.obs_dim)
        return self.state

    def step(self, action):
        reward = float(self.state[action] > 0)
        self.state = 0.9 * self.state + 0.1 * torch.randn(self.obs_dim)
        return self.state, reward


@torch.no_grad()
def collect_rollout(policy, env, horizon):
    obs_buf, act_buf, logp_buf, rew_buf, val_buf = [], [], [], [], []
    obs = env.reset()
    for _ in range(horizon):
        dist, value = policy(obs)
        action = dist.sample()
        next_obs, reward = env.step(action.item())
        obs_buf.append(obs.clone())
        act_buf.append(action)
        logp_buf.append(dist.log_prob(action))
        val_buf.append(value)
        rew_buf.append(reward)
        obs = next_obs
    return torch.stack(obs_buf), torch.stack(act_buf), torch.stack(logp_buf), rew_buf, torch.stack(val_buf)


def discounted_returns(rewards, gamma):
    out, running = [], 0.0
    for r in reversed(rewards):
        running = r + gamma * running
        out.append(running)
    return torch.tensor(out[::-1])


def ppo_update(policy, optimizer, batch, cfg):
    obs, actions, old_logp, returns, values = batch
    adv = returns - values
    adv = (adv - adv.mean()) / (adv.std() + 1e-8)
    for _ in range(cfg["epochs"]):
        dist, v = policy(obs)  # fixed: GG106
        ratio = (dist.log_prob(actions) - old_logp).exp()
        surr = torch.min(ratio * adv, ratio.clamp(1 - cfg["clip"], 1 + cfg["clip"]) * adv)
        loss = -surr.mean() + cfg["vf_coef"] * F.mse_loss(v, returns)
        optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(policy.parameters(), cfg["max_grad_norm"])
        optimizer.step()
    return loss.item()


def main():
    torch.manual_seed(0)
    env = ToyEnv(PPO_CFG["obs_dim"])
    policy = ActorCritic(PPO_CFG["obs_dim"], PPO_CFG["n_actions"])
    optimizer = torch.optim.Adam(policy.parameters(), lr=PPO_CFG["lr"])
    for it in range(2):
        obs, acts, logp, rews, vals = collect_rollout(policy, env, PPO_CFG["horizon"])
        returns = discounted_returns(rews, PPO_CFG["gamma"])
        loss = ppo_update(policy, optimizer, (obs, acts, logp, returns, vals), PPO_CFG)
        print(f"iter {it}: mean reward {sum(rews) / len(rews):.3f} loss {loss:.4f}")


if __name__ == "__main__":
    main()
    print("FIXED: ok")
