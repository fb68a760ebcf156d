"""REINFORCE-style updates whose losses come from one torch.distributions object, each
backpropagated on its own.

A policy network gives logits (or a mean); the update builds one distribution from them and
takes two losses from it (the log-likelihood of the actions taken, and an entropy bonus or
a second likelihood term). Both losses' histories run back through the same network
output, so the first `backward()` frees the graph the second needs: "Trying to backward
through the graph a second time". A categorical distribution also normalises its logits
when it is built, so one built before a loop and backpropagated through on every
iteration fails the same way on the second iteration.

Sources (the shapes rewritten here in our own words):
https://github.com/pytorch/pytorch/issues/11192 (two backward calls on log_prob terms of
one distribution) and https://github.com/pytorch/pytorch/issues/114417 (a Categorical
built once from a parameter, its log_prob backpropagated in a loop).
"""

import torch
from torch import nn
from torch.distributions import Categorical, Normal


class Policy(nn.Module):
    def __init__(self, n_obs: int = 5, n_actions: int = 3) -> None:
        super().__init__()
        self.hidden = nn.Linear(n_obs, 16)
        self.head = nn.Linear(16, n_actions)

    def forward(self, obs):
        return self.head(torch.tanh(self.hidden(obs)))


def discrete_update(policy, optimizer, obs, actions, returns) -> None:
    dist = Categorical(logits=policy(obs))
    pg_loss = -(dist.log_prob(actions) * returns).mean()
    bonus = -0.01 * dist.entropy().mean()
    optimizer.zero_grad()
    pg_loss.backward()  # expect: GG202
    bonus.backward()
    optimizer.step()


class GaussianAgent:
    def __init__(self) -> None:
        self.mean_net = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2))
        self.opt = torch.optim.SGD(self.mean_net.parameters(), lr=0.01)

    def action_distribution(self, states):
        return Normal(self.mean_net(states), 0.3)

    def update(self, states, advantages) -> None:
        dist = self.action_distribution(states)
        taken = dist.sample()
        surrogate = -(dist.log_prob(taken).sum(-1) * advantages).mean()
        regulariser = dist.log_prob(taken).pow(2).mean()
        self.opt.zero_grad()
        surrogate.backward()  # expect: GG202
        regulariser.backward()
        self.opt.step()


class ActorCritic(nn.Module):
    """A shared trunk; `forward` returns the action distribution and the state value."""

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
    critic_loss.backward()  # expect: GG202
    actor_loss.backward()
    optimizer.step()


def fit_action_preferences(steps: int = 3) -> None:
    preferences = nn.Parameter(torch.zeros(4))
    chooser = Categorical(logits=preferences)
    optimizer = torch.optim.Adam([preferences], lr=0.1)
    best = torch.tensor(2)
    for _ in range(steps):
        optimizer.zero_grad()
        nll = -chooser.log_prob(best)
        nll.backward()  # expect: GG202
        optimizer.step()


def _second_pass_fails(error: RuntimeError) -> None:
    assert "backward through the graph a second time" in str(error)


if __name__ == "__main__":
    torch.manual_seed(0)
    net = Policy()
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    obs = torch.randn(8, 5)
    failed = 0
    try:
        discrete_update(net, opt, obs, torch.randint(0, 3, (8,)), torch.randn(8))
    except RuntimeError as error:
        _second_pass_fails(error)
        failed += 1
    try:
        GaussianAgent().update(torch.randn(6, 4), torch.randn(6))
    except RuntimeError as error:
        _second_pass_fails(error)
        failed += 1
    try:
        ac = ActorCritic()
        ac_opt = torch.optim.Adam(ac.parameters(), lr=1e-3)
        actor_critic_update(ac, ac_opt, torch.randn(8, 4), torch.randint(0, 2, (8,)), torch.randn(8))
    except RuntimeError as error:
        _second_pass_fails(error)
        failed += 1
    try:
        fit_action_preferences()
    except RuntimeError as error:
        _second_pass_fails(error)
        failed += 1
    assert failed == 4, failed
    print("all four raise")
