"""Look-alikes of per-state distribution losses that are fine, or whose shape cannot be
known: GG501 must stay silent on every one (each runs under torch 2.13.0)."""

import torch
from torch import nn
from torch.distributions import Categorical, MultivariateNormal, Normal

torch.manual_seed(0)
policy = nn.Sequential(nn.Linear(5, 24), nn.Tanh(), nn.Linear(24, 4))


def reinforce_with_mean():
    dist = Categorical(logits=policy(torch.randn(8, 5)))
    moves = dist.sample()
    (-(dist.log_prob(moves) * torch.randn(8)).mean()).backward()


def one_state_at_a_time():
    # A single observation: one distribution, a 0-dim log-probability.
    dist = Categorical(logits=policy(torch.randn(5)))
    action = dist.sample()
    (-dist.log_prob(action)).backward()


def summed_entropy():
    Categorical(logits=policy(torch.randn(8, 5))).entropy().sum().backward()


def scalar_gaussian():
    # A learnt scalar mean: batch shape () and a 0-dim value.
    mu = torch.zeros((), requires_grad=True)
    Normal(mu, 1.0).log_prob(torch.tensor(0.5)).backward()


def logits_from_the_caller(logits):
    # Shape unknown: nothing is certain.
    d = Categorical(logits=logits)
    (-d.log_prob(d.sample())).backward()


def multivariate_not_modelled():
    # Event shape (2,): log_prob is per row, but the analysis does not model it.
    mean = nn.Linear(5, 2)(torch.randn(3, 5))
    lp = MultivariateNormal(mean, torch.eye(2)).log_prob(torch.zeros(3, 2))
    lp.mean().backward()


def list_of_one_step_log_probs():
    steps = []
    for _ in range(3):
        d = Categorical(logits=policy(torch.randn(5)))
        steps.append(d.log_prob(d.sample()))
    torch.stack(steps).sum().backward()


if __name__ == "__main__":
    reinforce_with_mean()
    one_state_at_a_time()
    summed_entropy()
    scalar_gaussian()
    logits_from_the_caller(torch.randn(4, 3, requires_grad=True).sum(0))
    multivariate_not_modelled()
    list_of_one_step_log_probs()
    print("all ran")
