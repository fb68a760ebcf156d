"""GG109 (fixed) - requires_grad forced on a loss that has no history.

Fix: the memory keeps the log-prob tensors, they are combined with torch.stack,
and the requires_grad hack is gone.

A policy-gradient agent stores each action's log-probability as a python float
in its rollout memory. The loss is then rebuilt with torch.tensor(...) and
backward() complained, so the author set `loss.requires_grad = True`.
backward() now runs, but the graph starts at the loss itself: no policy
parameter gets a gradient and optimizer.step() changes nothing (silent).

Modelled on: https://github.com/Kostis-S-Z/exploring_meta/issues/16
"""
import torch
import torch.nn as nn
from torch.distributions import Categorical

SETTINGS = {"obs": 4, "actions": 2, "hidden": 16, "episodes": 3, "horizon": 12,
            "gamma": 0.98, "lr": 1e-2}


class Policy(nn.Module):
    def __init__(self, obs, actions, hidden):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(obs, hidden), nn.ReLU(), nn.Linear(hidden, actions))

    def forward(self, x):
        return Categorical(logits=self.net(x))


class Memory:
    def __init__(self):
        self.logprobs, self.rewards = [], []

    def clear(self):
        self.logprobs.clear()
        self.rewards.clear()


def discounted(rewards, gamma):
    out, g = [], 0.0
    for r in reversed(rewards):
        g = r + gamma * g
        out.insert(0, g)
    t = torch.tensor(out)
    return (t - t.mean()) / (t.std() + 1e-8)


def run_episode(policy, memory, cfg, gen):
    for _ in range(cfg["horizon"]):
        obs = torch.randn(cfg["obs"], generator=gen)
        dist = policy(obs)
        action = dist.sample()
        memory.logprobs.append(dist.log_prob(action))
        memory.rewards.append(float(action.item() == int(obs[0] > 0)))


def update(policy, optimizer, memory, cfg):
    returns = discounted(memory.rewards, cfg["gamma"])
    logprobs = torch.stack(memory.logprobs)
    loss = -(logprobs * returns).mean()  # fixed: GG109
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss.item()


def main():
    torch.manual_seed(0)
    gen = torch.Generator().manual_seed(0)
    cfg = SETTINGS
    policy = Policy(cfg["obs"], cfg["actions"], cfg["hidden"])
    optimizer = torch.optim.Adam(policy.parameters(), lr=cfg["lr"])
    memory = Memory()
    start = [p.detach().clone() for p in policy.parameters()]
    for ep in range(cfg["episodes"]):
        run_episode(policy, memory, cfg, gen)
        loss = update(policy, optimizer, memory, cfg)
        print(f"episode {ep}: loss {loss:.4f} return {sum(memory.rewards):.0f}")
        memory.clear()
    return start, list(policy.parameters())


if __name__ == "__main__":
    before, after = main()
    unchanged = all(torch.equal(b, a) for b, a in zip(before, after))
    assert not unchanged, "policy did not train"
    print("FIXED: ok")
