"""GG205 look-alike (correct code): retain_graph + two backward passes + optimizer steps.

An advantage actor-critic agent on a toy bandit-like environment. The shared trunk
feeds both heads, so actor_loss.backward(retain_graph=True) is followed by
critic_loss.backward() through the same graph. Both backward calls run *before* either
optimizer.step() touches the weights, so the retained graph never sees modified
parameters. The next rollout builds a new graph.
Modelled on: none found (correct counterpart of the reports behind 22/23)
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Categorical

CFG = {"obs_dim": 6, "n_actions": 3, "hidden": 32, "gamma": 0.95, "rollout": 8, "updates": 5,
       "lr_actor": 3e-3, "lr_critic": 1e-2, "max_grad_norm": 0.5}


class ActorCritic(nn.Module):
    def __init__(self, obs_dim, n_actions, hidden):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(obs_dim, hidden), nn.Tanh())
        self.actor = nn.Linear(hidden, n_actions)
        self.critic = nn.Linear(hidden, 1)

    def forward(self, obs):
        h = self.trunk(obs)
        return Categorical(logits=self.actor(h)), self.critic(h).squeeze(-1)


class ToyEnv:
    def __init__(self, obs_dim, n_actions, seed=0):
        self.gen = torch.Generator().manual_seed(seed)
        self.w = torch.randn(obs_dim, n_actions, generator=self.gen)
        self.obs_dim = obs_dim

    def reset(self):
        self.obs = torch.randn(self.obs_dim, generator=self.gen)
        return self.obs

    def step(self, action):
        reward = float((self.obs @ self.w)[action])
        return self.reset(), reward


def discounted(rewards, gamma):
    out, running = [], 0.0
    for r in reversed(rewards):
        running = r + gamma * running
        out.append(running)
    return torch.tensor(out[::-1])


def update(agent, opt_actor, opt_critic, env, obs):
    log_probs, values, rewards, entropies = [], [], [], []
    for _ in range(CFG["rollout"]):
        dist, value = agent(obs)
        action = dist.sample()
        obs, reward = env.step(action.item())
        log_probs.append(dist.log_prob(action))
        entropies.append(dist.entropy())
        values.append(value)
        rewards.append(reward)
    returns = discounted(rewards, CFG["gamma"])
    values = torch.stack(values)
    advantage = returns - values
    actor_loss = -(torch.stack(log_probs) * advantage.detach()).mean() - 0.01 * torch.stack(entropies).mean()
    critic_loss = advantage.pow(2).mean()

    opt_actor.zero_grad()
    opt_critic.zero_grad()
    actor_loss.backward(retain_graph=True)
    critic_loss.backward()
    nn.utils.clip_grad_norm_(agent.parameters(), CFG["max_grad_norm"])
    opt_actor.step()
    opt_critic.step()
    return obs, actor_loss.item(), critic_loss.item(), sum(rewards)


def main():
    torch.manual_seed(0)
    env = ToyEnv(CFG["obs_dim"], CFG["n_actions"])
    agent = ActorCritic(CFG["obs_dim"], CFG["n_actions"], CFG["hidden"])
    actor_params = list(agent.trunk.parameters()) + list(agent.actor.parameters())
    opt_actor = torch.optim.Adam(actor_params, lr=CFG["lr_actor"])
    opt_critic = torch.optim.Adam(agent.critic.parameters(), lr=CFG["lr_critic"])
    obs = env.reset()
    for it in range(CFG["updates"]):
        obs, a_loss, c_loss, ret = update(agent, opt_actor, opt_critic, env, obs)
        print(f"update {it}: actor {a_loss:.3f} critic {c_loss:.3f} return {ret:.2f}")


if __name__ == "__main__":
    main()
    print("OK")
