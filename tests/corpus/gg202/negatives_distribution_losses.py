"""Look-alikes of updates taking several losses from torch.distributions objects, all of
which run: the losses summed into one backward, the graph kept for the second pass, a
fresh distribution per loss, a second loss built only from `sample()` (no history), a
Normal built once from a parameter (it keeps nothing of its own when built), and a
distribution rebuilt inside the loop.

The fixed forms of the updates in `distribution_losses_backpropagated_apart.py`; sources:
https://github.com/pytorch/pytorch/issues/11192 and
https://github.com/pytorch/pytorch/issues/114417.
"""

import torch
from torch import nn
from torch.distributions import Categorical, Normal


def policy_net() -> nn.Module:
    return nn.Sequential(nn.Linear(5, 16), nn.Tanh(), nn.Linear(16, 3))


def summed_update(policy, optimizer, obs, actions, returns) -> None:
    dist = Categorical(logits=policy(obs))
    pg_loss = -(dist.log_prob(actions) * returns).mean()
    bonus = -0.01 * dist.entropy().mean()
    optimizer.zero_grad()
    (pg_loss + bonus).backward()
    optimizer.step()


def retained_update(policy, optimizer, obs, actions, returns) -> None:
    dist = Categorical(logits=policy(obs))
    pg_loss = -(dist.log_prob(actions) * returns).mean()
    bonus = -0.01 * dist.entropy().mean()
    optimizer.zero_grad()
    pg_loss.backward(retain_graph=True)
    bonus.backward()
    optimizer.step()


def two_forward_passes(policy, optimizer, obs, actions, returns) -> None:
    optimizer.zero_grad()
    pg_loss = -(Categorical(logits=policy(obs)).log_prob(actions) * returns).mean()
    pg_loss.backward()
    bonus = -0.01 * Categorical(logits=policy(obs)).entropy().mean()
    bonus.backward()
    optimizer.step()


def sampled_target(policy, optimizer, obs) -> None:
    dist = Normal(policy(obs), 0.5)
    drawn = dist.sample()
    optimizer.zero_grad()
    fit = (policy(obs) - drawn).pow(2).mean()
    fit.backward()
    spread = dist.rsample().var()
    spread.backward()
    optimizer.step()


class ActorCritic(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(4, 16), nn.Tanh())
        self.pi = nn.Linear(16, 2)
        self.v = nn.Linear(16, 1)

    def forward(self, obs):
        h = self.trunk(obs)
        return Categorical(logits=self.pi(h)), self.v(h).squeeze(-1)


def actor_critic_update(model, optimizer, obs, actions, returns) -> None:
    dist, values = model(obs)
    actor_loss = -(dist.log_prob(actions) * (returns - values).detach()).mean()
    critic_loss = (returns - values).pow(2).mean()
    optimizer.zero_grad()
    (actor_loss + 0.5 * critic_loss).backward()
    optimizer.step()


def gaussian_built_once(steps: int = 3) -> None:
    centre = nn.Parameter(torch.zeros(2))
    density = Normal(centre, 1.0)
    optimizer = torch.optim.SGD([centre], lr=0.1)
    point = torch.ones(2)
    for _ in range(steps):
        optimizer.zero_grad()
        nll = -density.log_prob(point).sum()
        nll.backward()
        optimizer.step()


def rebuilt_each_step(steps: int = 3) -> None:
    preferences = nn.Parameter(torch.zeros(4))
    optimizer = torch.optim.Adam([preferences], lr=0.1)
    for _ in range(steps):
        optimizer.zero_grad()
        nll = -Categorical(logits=preferences).log_prob(torch.tensor(2))
        nll.backward()
        optimizer.step()


if __name__ == "__main__":
    torch.manual_seed(0)
    net = policy_net()
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    obs, actions, returns = torch.randn(8, 5), torch.randint(0, 3, (8,)), torch.randn(8)
    summed_update(net, opt, obs, actions, returns)
    retained_update(net, opt, obs, actions, returns)
    two_forward_passes(net, opt, obs, actions, returns)
    sampled_target(net, opt, obs)
    ac = ActorCritic()
    ac_opt = torch.optim.Adam(ac.parameters(), lr=1e-3)
    actor_critic_update(ac, ac_opt, torch.randn(8, 4), torch.randint(0, 2, (8,)), torch.randn(8))
    gaussian_built_once()
    rebuilt_each_step()
    print("all run")
