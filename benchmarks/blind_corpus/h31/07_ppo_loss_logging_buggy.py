"""PPO-style training loop whose loss logging keeps every step's graph alive.

Modelled on: https://github.com/google/brax/pull/152

The report (a PR against the Brax PyTorch training notebook) points out that
the training loop summed the loss tensor itself into a running total for
logging.  Because `loss` carries a grad_fn, `total_loss` becomes a tensor whose
history reaches back through every update of the epoch: no iteration's graph can
be freed, so memory grows with the number of steps ("memory leak").  The
learning itself is unaffected, which is why it goes unnoticed.  This file
reproduces the pattern and proves it: the logged total still has a grad_fn.
"""
import collections

import torch
import torch.nn as nn
import torch.nn.functional as F


class Agent(nn.Module):
    def __init__(self, obs_size, act_size, hidden=32):
        super().__init__()
        self.policy = nn.Sequential(nn.Linear(obs_size, hidden), nn.SiLU(),
                                    nn.Linear(hidden, 2 * act_size))
        self.value = nn.Sequential(nn.Linear(obs_size, hidden), nn.SiLU(),
                                   nn.Linear(hidden, 1))

    def dist(self, obs):
        loc, log_scale = self.policy(obs).chunk(2, dim=-1)
        return torch.distributions.Normal(loc, F.softplus(log_scale) + 1e-3)

    def loss(self, batch, clip=0.2, value_cost=0.5):
        dist = self.dist(batch["obs"])
        logp = dist.log_prob(batch["action"]).sum(-1)
        ratio = torch.exp(logp - batch["old_logp"])
        adv = batch["advantage"]
        pg = -torch.min(ratio * adv, ratio.clamp(1 - clip, 1 + clip) * adv).mean()
        v = self.value(batch["obs"]).squeeze(-1)
        v_loss = F.mse_loss(v, batch["returns"])
        return pg + value_cost * v_loss


def unroll(agent, n, obs_size, act_size, seed):
    g = torch.Generator().manual_seed(seed)
    obs = torch.randn(n, obs_size, generator=g)
    with torch.no_grad():
        dist = agent.dist(obs)
        action = dist.sample()
        old_logp = dist.log_prob(action).sum(-1)
    returns = torch.randn(n, generator=g)
    return {"obs": obs, "action": action, "old_logp": old_logp,
            "returns": returns, "advantage": returns - returns.mean()}


def minibatches(batch, size):
    n = batch["obs"].size(0)
    for i in range(0, n, size):
        yield {k: v[i:i + size] for k, v in batch.items()}


def train(num_epochs=2, updates_per_epoch=2, obs_size=8, act_size=2):
    torch.manual_seed(0)
    agent = Agent(obs_size, act_size)
    optimizer = torch.optim.Adam(agent.parameters(), lr=3e-4)
    metrics = collections.defaultdict(list)
    total_loss = 0
    for epoch in range(num_epochs):
        total_loss = 0
        for update in range(updates_per_epoch):
            batch = unroll(agent, 64, obs_size, act_size, seed=epoch * 10 + update)
            for mb in minibatches(batch, 32):
                optimizer.zero_grad()
                loss = agent.loss(mb)
                loss.backward()
                optimizer.step()
                total_loss += loss  # bug: GG203
        metrics["loss"].append(total_loss / updates_per_epoch)
    return metrics, total_loss


if __name__ == "__main__":
    metrics, total_loss = train()
    if isinstance(total_loss, torch.Tensor) and total_loss.grad_fn is not None:
        print("BUGGY: logged loss keeps the autograd history of every step:",
              type(total_loss.grad_fn).__name__)
    else:
        print("no leak")
