"""Multi-head loss summed with `+=` and backpropagated once per step.

Modelled on: https://github.com/google/brax/pull/152 (counterpart)

Looks like the leaking loop (`total_loss += loss` inside a loop over loss
terms), but here the running sum is the objective of the current step: it is
rebuilt from zero at every step, backpropagated once, and only its float value
(`.item()`) is kept for logging.  Keeping the graph until backward() is exactly
what is needed, and nothing outlives the step.
"""
import collections

import torch
import torch.nn as nn
import torch.nn.functional as F


class MultiHeadCritic(nn.Module):
    """A shared trunk with one value head per reward component."""

    def __init__(self, obs_size, n_heads, hidden=32):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(obs_size, hidden), nn.SiLU())
        self.heads = nn.ModuleList(nn.Linear(hidden, 1) for _ in range(n_heads))

    def forward(self, obs):
        h = self.trunk(obs)
        return [head(h).squeeze(-1) for head in self.heads]


def head_losses(critic, batch):
    preds = critic(batch["obs"])
    return {f"head{i}": F.smooth_l1_loss(p, batch["targets"][:, i])
            for i, p in enumerate(preds)}


def make_batch(n, obs_size, n_heads, seed):
    g = torch.Generator().manual_seed(seed)
    return {"obs": torch.randn(n, obs_size, generator=g),
            "targets": torch.randn(n, n_heads, generator=g)}


def train(steps=6, obs_size=8, n_heads=3, weights=(1.0, 0.5, 0.25)):
    torch.manual_seed(0)
    critic = MultiHeadCritic(obs_size, n_heads)
    optimizer = torch.optim.Adam(critic.parameters(), lr=1e-3)
    log = collections.defaultdict(list)
    for step in range(steps):
        batch = make_batch(64, obs_size, n_heads, seed=step)
        losses = head_losses(critic, batch)
        total_loss = 0
        for w, (name, value) in zip(weights, losses.items()):
            total_loss += w * value
            log[name].append(value.item())
        optimizer.zero_grad()
        total_loss.backward()
        optimizer.step()
        log["total"].append(total_loss.item())
    return log


if __name__ == "__main__":
    log = train()
    assert all(isinstance(v, float) for v in log["total"])
    print("OK")
