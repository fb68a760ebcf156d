"""Agents holding a network that is run under no_grad, where the optimizer does get gradients.

Look-alikes of an optimizer on a module that only ever runs without grad: the module also
runs with grad somewhere (an actor loss through the critic), a helper runs it under
no_grad from one caller and with grad from another, its parameters enter a penalty
directly, the agent is itself an nn.Module (its own `parameters()` hand the module out),
the module is handed out under another name, the module's attribute is bound a second
time, the optimizer is given more parameters later, or the step runs a closure.
"""

import copy

import torch
from torch import nn
import torch.nn.functional as F


class Critic(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 1)

    def forward(self, state):
        return self.fc(state)


class ActorCritic:
    def __init__(self):
        self.actor = nn.Linear(4, 2)
        self.critic = Critic()
        self.critic_optimizer = torch.optim.Adam(self.critic.parameters(), lr=1e-3)
        self.actor_optimizer = torch.optim.Adam(self.actor.parameters(), lr=1e-3)

    def update(self, obs, returns):
        state = torch.cat([obs, self.actor(obs)], dim=1)
        with torch.no_grad():
            baseline = self.critic(state)
        actor_loss = -(returns - baseline).mean() - self.critic(state).mean()
        self.actor_optimizer.zero_grad()
        actor_loss.backward()
        self.actor_optimizer.step()
        critic_loss = F.mse_loss(self.critic(state.detach()), returns)
        self.critic_optimizer.zero_grad()
        critic_loss.backward()
        self.critic_optimizer.step()


class SometimesWithGrad:
    def __init__(self):
        self.net = nn.Linear(4, 1)
        self.aux = nn.Linear(4, 1)
        self.optimizer = torch.optim.SGD(self.net.parameters(), lr=0.1)

    def score(self, x):
        return self.net(x)

    def evaluate(self, x):
        with torch.no_grad():
            return self.score(x)

    def train_step(self, x):
        loss = self.score(x).pow(2).mean() + self.aux(x).mean()
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()


class Penalised:
    def __init__(self):
        self.model = nn.Linear(4, 1)
        self.reference = copy.deepcopy(self.model)
        self.optimizer = torch.optim.SGD(self.reference.parameters(), lr=0.1)

    def step(self, x):
        with torch.no_grad():
            anchor = self.reference(x)
        penalty = sum(p.pow(2).sum() for p in self.reference.parameters())
        loss = F.mse_loss(self.model(x), anchor) + 1e-3 * penalty
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()


class ModuleAgent(nn.Module):
    def __init__(self):
        super().__init__()
        self.online = nn.Linear(4, 1)
        self.target = copy.deepcopy(self.online)
        self.optimizer = torch.optim.SGD(self.target.parameters(), lr=0.1)

    def learn(self, x):
        with torch.no_grad():
            goal = self.target(x)
        loss = F.mse_loss(self.online(x), goal) + sum(p.sum() for p in self.parameters())
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()


class HandedOut:
    def __init__(self):
        self.online = nn.Linear(4, 1)
        self.shadow = copy.deepcopy(self.online)
        self.optimizer = torch.optim.SGD(self.shadow.parameters(), lr=0.1)

    def learn(self, x):
        with torch.no_grad():
            goal = self.shadow(x)
        runner = self.shadow
        loss = F.mse_loss(self.online(x), goal) + runner(x).mean()
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()


class Rebuilt:
    def __init__(self):
        self.online = nn.Linear(4, 1)
        self.snapshot = copy.deepcopy(self.online)
        self.optimizer = torch.optim.SGD(self.snapshot.parameters(), lr=0.1)

    def learn(self, x):
        with torch.no_grad():
            goal = self.snapshot(x)
        loss = F.mse_loss(self.online(x), goal)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()

    def swap(self):
        self.snapshot = self.online


class GrownOptimizer:
    def __init__(self):
        self.online = nn.Linear(4, 1)
        self.mirror = copy.deepcopy(self.online)
        self.optimizer = torch.optim.SGD(self.mirror.parameters(), lr=0.1)
        self.optimizer.add_param_group({"params": self.online.parameters()})

    def learn(self, x):
        with torch.no_grad():
            goal = self.mirror(x)
        loss = F.mse_loss(self.online(x), goal)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()


class WithClosure:
    def __init__(self):
        self.online = nn.Linear(4, 1)
        self.fixed = copy.deepcopy(self.online)
        self.optimizer = torch.optim.LBFGS(self.fixed.parameters())

    def learn(self, x):
        with torch.no_grad():
            goal = self.fixed(x)
        loss = F.mse_loss(self.online(x), goal)
        loss.backward()

        def closure():
            return self.fixed(x).sum()

        self.optimizer.step(closure)


if __name__ == "__main__":
    x = torch.randn(8, 4)
    ActorCritic().update(x, torch.randn(8, 1))
    agent = SometimesWithGrad()
    agent.train_step(x)
    agent.evaluate(x)
    Penalised().step(x)
    ModuleAgent().learn(x)
    HandedOut().learn(x)
    rebuilt = Rebuilt()
    rebuilt.learn(x)
    rebuilt.swap()
    GrownOptimizer().learn(x)
    WithClosure().learn(x)
