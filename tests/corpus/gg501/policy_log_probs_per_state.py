"""Policy-gradient losses built from a torch.distributions object over a batch of states,
backpropagated without a reduction (GG501).

A distribution built from a batch of logits (or means) is one distribution per row: its
`log_prob`, `entropy` and samples hold one element per row, and each function raises
"grad can be implicitly created only for scalar outputs" when run (torch 2.13.0).
"""

import torch
from torch import nn
from torch.distributions import Bernoulli, Categorical, Normal

torch.manual_seed(0)


def reinforce_forgot_the_mean():
    # Episode of eight states; the advantage-weighted log-probabilities were never summed.
    policy = nn.Sequential(nn.Linear(5, 24), nn.Tanh(), nn.Linear(24, 4))
    opt = torch.optim.Adam(policy.parameters(), lr=3e-3)
    obs = torch.randn(8, 5)
    dist = Categorical(logits=policy(obs))
    moves = dist.sample()
    advantage = torch.randn(8)
    objective = -dist.log_prob(moves) * advantage
    opt.zero_grad()
    objective.backward()  # expect: GG501
    opt.step()


def entropy_bonus_per_state():
    # Maximising entropy, but each state's entropy is its own element.
    actor = nn.Linear(3, 6)
    probs = torch.softmax(actor(torch.randn(12, 3)), dim=-1)
    bonus = Categorical(probs).entropy()
    (-bonus).backward()  # expect: GG501


def gaussian_actor_log_likelihood():
    # A continuous-action actor: the mean per state, a fixed spread.
    mean_head = nn.Linear(7, 2)
    states = torch.randn(16, 7)
    taken = torch.zeros(16, 2)
    nll = -Normal(mean_head(states), 0.3).log_prob(taken)
    nll.backward()  # expect: GG501


def binary_gate_log_prob():
    gate = nn.Linear(4, 1)
    d = Bernoulli(logits=gate(torch.randn(9, 4)))
    d.log_prob(d.sample()).backward()  # expect: GG501


if __name__ == "__main__":
    for case in (
        reinforce_forgot_the_mean,
        entropy_bonus_per_state,
        gaussian_actor_log_likelihood,
        binary_gate_log_prob,
    ):
        try:
            case()
        except RuntimeError as err:
            print(case.__name__, "->", err)
