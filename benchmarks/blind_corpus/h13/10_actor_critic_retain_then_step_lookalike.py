"""Category GG205 look-alike - backward(retain_graph=True), optimizer.step(), then another backward.

The critic's value loss is backpropagated with retain_graph=True and the
critic optimizer steps *before* the actor loss is backpropagated. This looks
like stepping in the middle of a retained graph, but the actor loss only uses
the advantage through ``.detach()``, so its graph holds no tensor the critic
step modified (the actor and critic share no parameters). No error; prints OK.
Modelled on: https://github.com/liruiw/HCG/issues/5 (retain_graph + several optimizers)
"""
import torch
import torch.nn as nn
from torch.distributions import Categorical

ARGS = {"obs_dim": 6, "n_actions": 3, "hidden": 32, "gamma": 0.99, "lr_actor": 3e-4,
        "lr_critic": 1e-3, "episodes": 3, "horizon": 8}


class Actor(nn.Module):
    def __init__(self, obs_dim, n_actions, hidden):
        super().__init__()
        self.pi = nn.Sequential(nn.Linear(obs_dim, hidden), nn.Tanh(), nn.Linear(hidden, n_actions))

    def forward(self, obs):
        return Categorical(logits=self.pi(obs))


class Critic(nn.Module):
    def __init__(self, obs_dim, hidden):
        super().__init__()
        self.v = nn.Sequential(nn.Linear(obs_dim, hidden), nn.Tanh(), nn.Linear(hidden, 1))

    def forward(self, obs):
        return self.v(obs).squeeze(-1)


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
        out.insert(0, running)
    return torch.tensor(out)


class A2CAgent:
    def __init__(self, args):
        self.args = args
        self.actor = Actor(args["obs_dim"], args["n_actions"], args["hidden"])
        self.critic = Critic(args["obs_dim"], args["hidden"])
        self.actor_opt = torch.optim.Adam(self.actor.parameters(), lr=args["lr_actor"])
        self.critic_opt = torch.optim.Adam(self.critic.parameters(), lr=args["lr_critic"])

    def rollout(self, env):
        obs, log_probs, rewards, states = env.reset(), [], [], []
        for _ in range(self.args["horizon"]):
            dist = self.actor(obs)
            action = dist.sample()
            log_probs.append(dist.log_prob(action))
            states.append(obs)
            obs, r, _ = env.step(action.item())
            rewards.append(r)
        return torch.stack(states), torch.stack(log_probs), rewards

    def update(self, states, log_probs, rewards):
        returns = discounted_returns(rewards, self.args["gamma"])
        values = self.critic(states)
        advantage = returns - values
        critic_loss = advantage.pow(2).mean()
        self.critic_opt.zero_grad()
        critic_loss.backward(retain_graph=True)
        self.critic_opt.step()
        actor_loss = -(log_probs * advantage.detach()).mean()
        self.actor_opt.zero_grad()
        actor_loss.backward()
        self.actor_opt.step()
        return {"actor": actor_loss.item(), "critic": critic_loss.item()}


def main():
    torch.manual_seed(0)
    agent, env = A2CAgent(ARGS), ToyEnv(ARGS["obs_dim"])
    for ep in range(ARGS["episodes"]):
        stats = agent.update(*agent.rollout(env))
        print(f"episode {ep}: actor {stats['actor']:.3f} critic {stats['critic']:.3f}")


if __name__ == "__main__":
    main()
    print("OK")
