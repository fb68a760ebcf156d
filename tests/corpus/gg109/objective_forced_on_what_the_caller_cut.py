"""A PPO objective module that forces requires_grad on its result, handed log-probabilities
the caller computed without recording (GG109).

Modelled, in my own words, on https://github.com/Kostis-S-Z/exploring_meta/issues/16 -- the
PPO loss "needs to be manually set to requires_grad=True" or backward raises "element 0 of
tensors does not require grad". The objective's own code cannot tell whether what it is given
has a history; the caller can: here the update reuses the log-probabilities of the rollout,
computed under `torch.no_grad()`, instead of computing them again. The objective of that call
has no history, the forcing makes it a new leaf, and backward reaches no weight (checked with
torch 2.13.0 below: every `.grad` stays None).

Look-alike: the same objective written with `requires_grad_()` (a no-op on a tensor that
already requires grad) and given log-probabilities computed with recording on: the gradient
reaches the policy. (Forcing with `requires_grad = True` there would raise instead: only a
leaf's flag can be set.)
"""

import torch
from torch import nn


class ClippedObjective(nn.Module):
    def __init__(self, clip=0.2):
        super().__init__()
        self.clip = clip

    def forward(self, new_log_probs, old_log_probs, advantages):
        ratio = torch.exp(new_log_probs - old_log_probs)
        clipped = torch.clamp(ratio, 1 - self.clip, 1 + self.clip)
        objective = -torch.min(ratio * advantages, clipped * advantages).mean()
        objective.requires_grad = True  # expect: GG109
        return objective


class TolerantObjective(nn.Module):
    def __init__(self, clip=0.2):
        super().__init__()
        self.clip = clip

    def forward(self, new_log_probs, old_log_probs, advantages):
        ratio = torch.exp(new_log_probs - old_log_probs)
        clipped = torch.clamp(ratio, 1 - self.clip, 1 + self.clip)
        objective = -torch.min(ratio * advantages, clipped * advantages).mean()
        objective.requires_grad_()
        return objective


def action_log_probs(policy, states, actions):
    log_probs = torch.log_softmax(policy(states), dim=-1)
    return log_probs.gather(1, actions[:, None]).squeeze(1)


def stale_update(policy, optimizer, objective, states, actions, advantages):
    with torch.no_grad():
        rollout_log_probs = action_log_probs(policy, states, actions)
    loss = objective(rollout_log_probs, rollout_log_probs.clone(), advantages)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()


def fresh_update(policy, optimizer, objective, states, actions, advantages):
    with torch.no_grad():
        old_log_probs = action_log_probs(policy, states, actions)
    loss = objective(action_log_probs(policy, states, actions), old_log_probs, advantages)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()


def main():
    torch.manual_seed(0)
    states, actions = torch.randn(16, 4), torch.randint(0, 3, (16,))
    advantages = torch.randn(16)

    policy = nn.Linear(4, 3)
    optimizer = torch.optim.SGD(policy.parameters(), lr=0.1)
    before = policy.weight.detach().clone()
    stale_update(policy, optimizer, ClippedObjective(), states, actions, advantages)
    assert all(p.grad is None for p in policy.parameters()), "a gradient reached the policy"
    assert torch.equal(before, policy.weight), "the policy moved"

    trained = nn.Linear(4, 3)
    trained_optimizer = torch.optim.SGD(trained.parameters(), lr=0.1)
    fresh_update(trained, trained_optimizer, TolerantObjective(), states, actions, advantages)
    assert trained.weight.grad is not None
    print("ok")


if __name__ == "__main__":
    main()
