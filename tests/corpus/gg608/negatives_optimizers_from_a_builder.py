"""Optimizers from a builder returning several, and modules called under no_grad between a
step and the backward before it, where the step is the right one.

Real-code shapes: a DDPG-style update whose critic phase steps the critic's optimizer (the
action recomputed under no_grad), a builder that returns an optimizer with its scheduler,
and a test-time-adapting model (as in TENT, https://github.com/DequanWang/tent) whose
forward re-enables grad and backpropagates an entropy loss into its own parameters even
when called under no_grad: the step after it does apply those gradients.
"""

import torch
from torch import nn
import torch.nn.functional as F


def make_optimizers(actor, critic, lr):
    actor_opt = torch.optim.Adam(actor.parameters(), lr=lr)
    critic_opt = torch.optim.Adam(critic.parameters(), lr=lr * 10)
    return actor_opt, critic_opt


def fit(actor, critic, actor_opt, critic_opt, value_loss, batches):
    for obs, rewards in batches:
        actor_opt.zero_grad()
        actor_loss = -critic(torch.cat([obs, actor(obs)], dim=1)).mean()
        actor_loss.backward()
        actor_opt.step()

        critic_opt.zero_grad()
        with torch.no_grad():
            action = actor(obs)
        q = critic(torch.cat([obs, action], dim=1)).squeeze(1)
        critic_loss = value_loss(q, rewards)
        critic_loss.backward()
        critic_opt.step()


def actor_critic_right():
    actor = nn.Sequential(nn.Linear(5, 16), nn.Tanh(), nn.Linear(16, 2), nn.Tanh())
    critic = nn.Sequential(nn.Linear(7, 16), nn.ReLU(), nn.Linear(16, 1))
    actor_opt, critic_opt = make_optimizers(actor, critic, 1e-3)
    batches = [(torch.randn(32, 5), torch.randn(32)) for _ in range(3)]
    fit(actor, critic, actor_opt, critic_opt, nn.MSELoss(), batches)


def make_optimizer_and_schedule(net, steps):
    optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
    schedule = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, steps)
    return optimizer, schedule


def with_a_schedule(steps=4):
    net = nn.Linear(6, 1)
    optimizer, schedule = make_optimizer_and_schedule(net, steps)
    for _ in range(steps):
        loss = net(torch.randn(8, 6)).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        schedule.step()


class EntropyAdapted(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(6, 3)

    def forward(self, x):
        with torch.enable_grad():
            out = self.body(x)
            entropy = -(out.softmax(dim=1) * out.log_softmax(dim=1)).sum(dim=1).mean()
            entropy.backward()
        return out


def adapted_at_test_time(steps=3):
    adapted = EntropyAdapted()
    adapt_opt = torch.optim.SGD(adapted.parameters(), lr=0.01)
    student = nn.Linear(6, 3)
    for _ in range(steps):
        x = torch.randn(8, 6)
        adapt_opt.zero_grad()
        with torch.no_grad():
            pseudo = adapted(x).argmax(dim=1)
        loss = F.cross_entropy(student(x), pseudo)
        loss.backward()
        adapt_opt.step()


if __name__ == "__main__":
    torch.manual_seed(0)
    actor_critic_right()
    with_a_schedule()
    adapted_at_test_time()
