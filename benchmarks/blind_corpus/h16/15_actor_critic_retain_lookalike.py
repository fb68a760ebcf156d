"""GG205 look-alike: retain_graph=True and two backward() calls, optimizers stepped after both.

An actor-critic agent with a shared trunk back-propagates the critic loss with
retain_graph=True and then the actor loss through the same graph. Both optimizers step only
after the second backward(), so no saved parameter is modified while the retained graph
is still needed. Correct code.

Modelled on: https://github.com/ayu-22/BPPNet-Back-Projected-Pyramid-Network/issues/6
(two losses from one forward; here the steps come after both backward passes)
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Categorical

GAMMA = 0.99
N_ACTIONS, OBS_DIM = 3, 6


class ActorCritic(nn.Module):
    def __init__(self):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(OBS_DIM, 32), nn.Tanh())
        self.actor = nn.Linear(32, N_ACTIONS)
        self.critic = nn.Linear(32, 1)

    def forward(self, obs):
        h = self.trunk(obs)
        return Categorical(logits=self.actor(h)), self.critic(h).squeeze(-1)


class ToyEnv:
    def __init__(self, horizon=8):
        self.horizon, self.t = horizon, 0

    def reset(self):
        self.t = 0
        return torch.randn(OBS_DIM)

    def step(self, action):
        self.t += 1
        reward = 1.0 if action == 0 else 0.0
        return torch.randn(OBS_DIM), reward, self.t >= self.horizon


def discounted_returns(rewards):
    R, out = 0.0, []
    for r in reversed(rewards):
        R = r + GAMMA * R
        out.insert(0, R)
    return torch.tensor(out)


def run_episode(env, agent):
    obs, done = env.reset(), False
    log_probs, values, rewards = [], [], []
    while not done:
        dist, value = agent(obs)
        action = dist.sample()
        obs, reward, done = env.step(action.item())
        log_probs.append(dist.log_prob(action))
        values.append(value)
        rewards.append(reward)
    return torch.stack(log_probs), torch.stack(values), discounted_returns(rewards)


def update(agent, actor_opt, critic_opt, log_probs, values, returns):
    advantage = returns - values
    critic_loss = advantage.pow(2).mean()
    actor_loss = -(log_probs * advantage.detach()).mean()
    actor_opt.zero_grad()
    critic_opt.zero_grad()
    critic_loss.backward(retain_graph=True)
    actor_loss.backward()
    critic_opt.step()
    actor_opt.step()
    return actor_loss.item(), critic_loss.item()


def main():
    torch.manual_seed(0)
    agent, env = ActorCritic(), ToyEnv()
    actor_opt = torch.optim.Adam(list(agent.trunk.parameters()) + list(agent.actor.parameters()), lr=1e-3)
    critic_opt = torch.optim.Adam(agent.critic.parameters(), lr=1e-3)
    for episode in range(4):
        a, c = update(agent, actor_opt, critic_opt, *run_episode(env, agent))
        print(f"episode {episode}: actor {a:.3f} critic {c:.3f}")


if __name__ == "__main__":
    main()
    print("OK")
