"""GG605 look-alike - zero_grad() between backward() and step(), on the OTHER optimizer.

DDPG update: the actor loss -Q(s, pi(s)) is backpropagated through the
critic, which leaves stray gradients on the critic's parameters.  Between
actor_loss.backward() and actor_optimizer.step() the code clears the
*critic's* optimizer gradients, which is exactly what is wanted; the actor's
gradients are untouched, so the actor is updated.  Runs cleanly.

Modelled on: none found (correct counterpart of the backward/zero_grad/step order bug)
"""
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F

HP = {"obs": 5, "act": 2, "gamma": 0.99, "tau": 0.05, "actor_lr": 1e-3, "critic_lr": 1e-3, "batch": 32, "updates": 3}


class Actor(nn.Module):
    def __init__(self, obs, act):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(obs, 32), nn.ReLU(), nn.Linear(32, act), nn.Tanh())

    def forward(self, s):
        return self.net(s)


class Critic(nn.Module):
    def __init__(self, obs, act):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(obs + act, 32), nn.ReLU(), nn.Linear(32, 1))

    def forward(self, s, a):
        return self.net(torch.cat([s, a], dim=-1))


def soft_update(target, source, tau):
    with torch.no_grad():
        for t, s in zip(target.parameters(), source.parameters()):
            t.mul_(1 - tau).add_(tau * s)


class DDPG:
    def __init__(self, hp):
        self.hp = hp
        self.actor, self.critic = Actor(hp["obs"], hp["act"]), Critic(hp["obs"], hp["act"])
        self.actor_target, self.critic_target = copy.deepcopy(self.actor), copy.deepcopy(self.critic)
        self.actor_optimizer = torch.optim.Adam(self.actor.parameters(), lr=hp["actor_lr"])
        self.critic_optimizer = torch.optim.Adam(self.critic.parameters(), lr=hp["critic_lr"])

    def update(self, batch):
        s, a, r, s2, done = batch
        with torch.no_grad():
            target_q = r + self.hp["gamma"] * (1 - done) * self.critic_target(s2, self.actor_target(s2))
        critic_loss = F.mse_loss(self.critic(s, a), target_q)
        self.critic_optimizer.zero_grad()
        critic_loss.backward()
        self.critic_optimizer.step()

        actor_loss = -self.critic(s, self.actor(s)).mean()
        self.actor_optimizer.zero_grad()
        actor_loss.backward()
        self.critic_optimizer.zero_grad()
        self.actor_optimizer.step()

        soft_update(self.actor_target, self.actor, self.hp["tau"])
        soft_update(self.critic_target, self.critic, self.hp["tau"])
        return {"critic": critic_loss.item(), "actor": actor_loss.item()}


def sample_batch(hp):
    n = hp["batch"]
    return (torch.randn(n, hp["obs"]), torch.rand(n, hp["act"]) * 2 - 1, torch.randn(n, 1),
            torch.randn(n, hp["obs"]), (torch.rand(n, 1) > 0.9).float())


def main():
    torch.manual_seed(0)
    agent = DDPG(HP)
    w0 = agent.actor.net[0].weight.detach().clone()
    for i in range(HP["updates"]):
        logs = agent.update(sample_batch(HP))
        print(f"update {i}: " + " ".join(f"{k}={v:.4f}" for k, v in logs.items()))
    assert not torch.equal(w0, agent.actor.net[0].weight)


if __name__ == "__main__":
    main()
    print("OK")
