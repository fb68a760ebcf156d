"""Category GG205 look-alike - retained graph and two optimizers, stepped in a safe order.

An advantage actor-critic agent with separate actor and critic networks sharing a
feature encoder. The critic loss is backpropagated with retain_graph=True and the
actor loss backpropagates through the same encoder graph afterwards; both
optimizer.step() calls come only after the second backward(), so no parameter
saved by the retained graph is modified while it is still needed.
Expected: runs cleanly.

Modelled on: none found
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

HPARAMS = {"obs_dim": 6, "n_actions": 3, "hidden": 32, "gamma": 0.99,
           "actor_lr": 1e-3, "critic_lr": 2e-3, "rollout": 8, "updates": 3}


class Encoder(nn.Module):
    def __init__(self, obs_dim, hidden):
        super().__init__()
        self.fc = nn.Sequential(nn.Linear(obs_dim, hidden), nn.Tanh())

    def forward(self, obs):
        return self.fc(obs)


class ActorCritic(nn.Module):
    def __init__(self, hp):
        super().__init__()
        self.encoder = Encoder(hp["obs_dim"], hp["hidden"])
        self.actor = nn.Linear(hp["hidden"], hp["n_actions"])
        self.critic = nn.Linear(hp["hidden"], 1)

    def forward(self, obs):
        feat = self.encoder(obs)
        return F.log_softmax(self.actor(feat), dim=-1), self.critic(feat).squeeze(-1)


class ToyEnv:
    def __init__(self, obs_dim):
        self.obs_dim = obs_dim

    def reset(self):
        return torch.randn(self.obs_dim)

    def step(self, action):
        return torch.randn(self.obs_dim), float(action == 1), False


def discounted_returns(rewards, gamma):
    out, running = [], 0.0
    for r in reversed(rewards):
        running = r + gamma * running
        out.append(running)
    return torch.tensor(list(reversed(out)))


def update(agent, actor_opt, critic_opt, env, hp):
    obs = env.reset()
    log_probs, values, rewards = [], [], []
    for _ in range(hp["rollout"]):
        logp, value = agent(obs)
        action = torch.distributions.Categorical(logits=logp).sample()
        obs, reward, _ = env.step(action.item())
        log_probs.append(logp[action])
        values.append(value)
        rewards.append(reward)
    returns = discounted_returns(rewards, hp["gamma"])
    values = torch.stack(values)
    advantage = returns - values
    critic_loss = advantage.pow(2).mean()
    actor_loss = -(torch.stack(log_probs) * advantage.detach()).mean()

    actor_opt.zero_grad()
    critic_opt.zero_grad()
    critic_loss.backward(retain_graph=True)
    actor_loss.backward()
    critic_opt.step()
    actor_opt.step()
    return actor_loss.item(), critic_loss.item()


if __name__ == "__main__":
    torch.manual_seed(0)
    agent = ActorCritic(HPARAMS)
    actor_params = list(agent.encoder.parameters()) + list(agent.actor.parameters())
    actor_opt = torch.optim.Adam(actor_params, lr=HPARAMS["actor_lr"])
    critic_opt = torch.optim.Adam(agent.critic.parameters(), lr=HPARAMS["critic_lr"])
    env = ToyEnv(HPARAMS["obs_dim"])
    for it in range(HPARAMS["updates"]):
        a, c = update(agent, actor_opt, critic_opt, env, HPARAMS)
        print(f"update {it}: actor={a:.3f} critic={c:.3f}")
    print("OK")
