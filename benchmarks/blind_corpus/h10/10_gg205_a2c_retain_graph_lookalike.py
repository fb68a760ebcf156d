"""GG205 look-alike: retain_graph=True, two backward() calls, two optimizers.

An advantage actor-critic update on a shared trunk: the critic loss is
backpropagated with ``retain_graph=True`` and the actor loss is backpropagated
through the same trunk graph afterwards, and two optimizers step.  This is the
shape of the "step between two backward calls" bug, but here both
``backward()`` calls finish before either ``optimizer.step()`` touches a
weight, so the saved tensors are still at the version autograd expects.
Modelled on: none (counter-example to https://github.com/1Konny/FactorVAE/issues/15)
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Categorical

CFG = {"obs_dim": 6, "n_actions": 3, "hidden": 32, "gamma": 0.99, "rollout": 8,
       "updates": 4, "lr_actor": 1e-3, "lr_critic": 2e-3, "entropy_coef": 0.01}


class ActorCritic(nn.Module):
    def __init__(self, obs_dim, n_actions, hidden):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(obs_dim, hidden), nn.Tanh())
        self.policy = nn.Linear(hidden, n_actions)
        self.value = nn.Linear(hidden, 1)

    def forward(self, obs):
        h = self.trunk(obs)
        return Categorical(logits=self.policy(h)), self.value(h).squeeze(-1)


class ToyEnv:
    def __init__(self, obs_dim, seed=0):
        self.g = torch.Generator().manual_seed(seed)
        self.obs_dim = obs_dim

    def reset(self):
        self.state = torch.randn(self.obs_dim, generator=self.g)
        return self.state

    def step(self, action):
        reward = float(self.state[action] > 0)
        self.state = torch.randn(self.obs_dim, generator=self.g)
        return self.state, reward


def discounted_returns(rewards, gamma):
    out, running = [], 0.0
    for r in reversed(rewards):
        running = r + gamma * running
        out.append(running)
    return torch.tensor(out[::-1])


def update(model, actor_opt, critic_opt, env, cfg):
    obs = env.reset()
    log_probs, values, rewards, entropies = [], [], [], []
    for _ in range(cfg["rollout"]):
        dist, value = model(obs)
        action = dist.sample()
        obs, reward = env.step(action.item())
        log_probs.append(dist.log_prob(action))
        entropies.append(dist.entropy())
        values.append(value)
        rewards.append(reward)
    returns = discounted_returns(rewards, cfg["gamma"])
    values = torch.stack(values)
    advantage = returns - values
    critic_loss = advantage.pow(2).mean()
    actor_loss = -(torch.stack(log_probs) * advantage.detach()).mean() \
        - cfg["entropy_coef"] * torch.stack(entropies).mean()

    actor_opt.zero_grad()
    critic_opt.zero_grad()
    critic_loss.backward(retain_graph=True)
    actor_loss.backward()
    critic_opt.step()
    actor_opt.step()
    return actor_loss.item(), critic_loss.item(), sum(rewards)


def main():
    torch.manual_seed(0)
    cfg = CFG
    model = ActorCritic(cfg["obs_dim"], cfg["n_actions"], cfg["hidden"])
    actor_opt = torch.optim.Adam(list(model.trunk.parameters()) + list(model.policy.parameters()),
                                 lr=cfg["lr_actor"])
    critic_opt = torch.optim.Adam(model.value.parameters(), lr=cfg["lr_critic"])
    env = ToyEnv(cfg["obs_dim"])
    for i in range(cfg["updates"]):
        a, c, r = update(model, actor_opt, critic_opt, env, cfg)
        print(f"update {i}: actor {a:.3f} critic {c:.3f} reward {r:.0f}")


if __name__ == "__main__":
    main()
    print("OK")
