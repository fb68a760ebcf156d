"""Category GG103 -- backward() on a value cut from the graph by .detach().
Status: fixed -- the buffer keeps the values with their graph; only the
advantage used by the actor is detached.
An advantage actor-critic agent with separate actor and critic optimizers.  To keep
the policy loss from pushing gradients into the critic, the author detaches the
critic's value at the moment it is stored in the rollout buffer.  The critic loss is
then built from those same stored (detached) values and the critic's own backward()
raises
RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
Modelled on: https://github.com/astariul/encode-attend-navigate-pytorch/issues/2
"""
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Categorical

GAMMA, ROLLOUT, N_UPDATES, OBS_DIM, N_ACTIONS = 0.99, 8, 3, 4, 2


class ToyEnv:
    """Random walk: reward 1 when action matches the sign of the first feature."""

    def __init__(self, seed=0):
        self.g = torch.Generator().manual_seed(seed)

    def reset(self):
        self.state = torch.randn(OBS_DIM, generator=self.g)
        return self.state

    def step(self, action):
        reward = float(action == int(self.state[0] > 0))
        self.state = torch.randn(OBS_DIM, generator=self.g)
        return self.state, reward, False


class Actor(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(OBS_DIM, 32), nn.Tanh(), nn.Linear(32, N_ACTIONS))

    def forward(self, s):
        return Categorical(logits=self.net(s))


class Critic(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(OBS_DIM, 32), nn.Tanh(), nn.Linear(32, 1))

    def forward(self, s):
        return self.net(s).squeeze(-1)


class RolloutBuffer:
    def __init__(self):
        self.log_probs, self.values, self.rewards = [], [], []

    def add(self, log_prob, value, reward):
        self.log_probs.append(log_prob)
        self.values.append(value)
        self.rewards.append(reward)

    def returns(self, gamma):
        R, out = 0.0, []
        for r in reversed(self.rewards):
            R = r + gamma * R
            out.insert(0, R)
        return torch.tensor(out)


def update(actor, critic, actor_opt, critic_opt, buf):
    returns = buf.returns(GAMMA)
    values = torch.stack(buf.values)
    advantage = returns - values.detach()
    actor_loss = -(torch.stack(buf.log_probs) * advantage).mean()
    actor_opt.zero_grad()
    actor_loss.backward()
    actor_opt.step()

    critic_loss = F.smooth_l1_loss(values, returns)
    critic_opt.zero_grad()
    critic_loss.backward()  # fixed: GG103
    critic_opt.step()
    return actor_loss.item(), critic_loss.item()


def main():
    torch.manual_seed(0)
    env, actor, critic = ToyEnv(), Actor(), Critic()
    actor_opt = torch.optim.Adam(actor.parameters(), lr=3e-3)
    critic_opt = torch.optim.Adam(critic.parameters(), lr=1e-2)
    state = env.reset()
    for update_idx in range(N_UPDATES):
        buf = RolloutBuffer()
        for _ in range(ROLLOUT):
            dist = actor(state)
            action = dist.sample()
            next_state, reward, _ = env.step(action.item())
            buf.add(dist.log_prob(action), critic(state), reward)
            state = next_state
        a_loss, c_loss = update(actor, critic, actor_opt, critic_opt, buf)
        print(f"update {update_idx}: actor {a_loss:+.3f} critic {c_loss:.3f} "
              f"reward {sum(buf.rewards) / ROLLOUT:.2f}")


if __name__ == "__main__":
    main()
    print("FIXED: ok")
