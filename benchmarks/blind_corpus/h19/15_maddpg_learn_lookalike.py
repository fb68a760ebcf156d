"""GG205 look-alike - retain_graph=True and two backward() calls before one step.

A2C agent whose actor and critic heads share one trunk. Each update calls
``value_loss.backward(retain_graph=True)`` and then ``policy_loss.backward()``
through the same shared graph, and only then ``optimizer.step()``. The retained
graph is fully consumed before any parameter changes, and the next update builds
a fresh graph. Looks like the retain_graph + step pattern but is correct; runs
cleanly.

Modelled on: https://github.com/philtabor/Multi-Agent-Deep-Deterministic-Policy-Gradients/issues/2
"""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

HPARAMS = {"obs_dim": 6, "n_actions": 3, "hidden": 32, "gamma": 0.99, "lr": 3e-4,
           "rollout": 8, "updates": 4, "entropy_coef": 0.01, "max_grad_norm": 0.5}


class ActorCritic(nn.Module):
    def __init__(self, obs_dim, n_actions, hidden):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(obs_dim, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.policy = nn.Linear(hidden, n_actions)
        self.value = nn.Linear(hidden, 1)

    def forward(self, obs):
        h = self.trunk(obs)
        return torch.distributions.Categorical(logits=self.policy(h)), self.value(h).squeeze(-1)


class ToyEnv:
    def __init__(self, obs_dim, seed=0):
        self.rng = np.random.default_rng(seed)
        self.obs_dim = obs_dim

    def reset(self):
        return self.rng.normal(size=self.obs_dim).astype(np.float32)

    def step(self, action):
        reward = 1.0 if action == 0 else -0.1
        return self.rng.normal(size=self.obs_dim).astype(np.float32), reward, False


def discounted_returns(rewards, gamma):
    out, running = [], 0.0
    for r in reversed(rewards):
        running = r + gamma * running
        out.append(running)
    return torch.tensor(out[::-1], dtype=torch.float32)


class A2CAgent:
    def __init__(self, hp):
        self.hp = hp
        self.net = ActorCritic(hp["obs_dim"], hp["n_actions"], hp["hidden"])
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=hp["lr"])

    def update(self, obs, actions, returns):
        dist, values = self.net(obs)
        advantages = returns - values.detach()
        value_loss = F.mse_loss(values, returns)
        policy_loss = -(dist.log_prob(actions) * advantages).mean() - self.hp["entropy_coef"] * dist.entropy().mean()
        self.optimizer.zero_grad()
        value_loss.backward(retain_graph=True)
        policy_loss.backward()
        nn.utils.clip_grad_norm_(self.net.parameters(), self.hp["max_grad_norm"])
        self.optimizer.step()
        return value_loss.item(), policy_loss.item()


def main():
    torch.manual_seed(0)
    hp = HPARAMS
    env, agent = ToyEnv(hp["obs_dim"]), A2CAgent(hp)
    obs = env.reset()
    for update in range(hp["updates"]):
        batch_obs, batch_act, rewards = [], [], []
        for _ in range(hp["rollout"]):
            with torch.no_grad():
                dist, _ = agent.net(torch.from_numpy(obs))
                action = dist.sample()
            next_obs, reward, _ = env.step(int(action))
            batch_obs.append(obs)
            batch_act.append(action)
            rewards.append(reward)
            obs = next_obs
        v, p = agent.update(torch.tensor(np.stack(batch_obs)), torch.stack(batch_act),
                            discounted_returns(rewards, hp["gamma"]))
        print(f"update {update}: value_loss={v:.3f} policy_loss={p:.3f}")


if __name__ == "__main__":
    main()
    print("OK")
