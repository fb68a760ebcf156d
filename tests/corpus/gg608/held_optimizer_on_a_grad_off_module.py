"""An agent object whose optimizer holds a module that only ever runs under no_grad.

Agents keep their networks and optimizers on `self`. Here the value-learning agent builds
its optimizer on `self.frozen_copy`, the deep copy it reads bootstrap values from, which it
only ever calls inside `torch.no_grad()`: no backward anywhere gives that copy a gradient,
so every `step()` of the optimizer skips all its parameters (their `.grad` stays None),
while `self.learner`, which the loss does run, is never updated. The same mix-up between
the online and the target network is discussed in
https://github.com/DLR-RM/stable-baselines3/issues/1946. A second agent clears and steps
an encoder optimizer whose encoder it only runs while encoding observations without grad.
"""

import copy

import torch
from torch import nn
import torch.nn.functional as F


class ValueNet(nn.Module):
    def __init__(self, width=24):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(5, width), nn.Tanh(), nn.Linear(width, 4))

    def forward(self, state):
        return self.body(state)


class BootstrapAgent:
    def __init__(self, lr=5e-4, discount=0.95):
        self.learner = ValueNet()
        self.frozen_copy = copy.deepcopy(self.learner)
        self.opt = torch.optim.RMSprop(self.frozen_copy.parameters(), lr=lr)
        self.discount = discount

    def bootstrap(self, rewards, next_states):
        with torch.no_grad():
            return rewards + self.discount * self.frozen_copy(next_states).amax(dim=1)

    def learn(self, states, picked, rewards, next_states):
        chosen = self.learner(states).gather(1, picked.unsqueeze(1)).squeeze(1)
        loss = F.mse_loss(chosen, self.bootstrap(rewards, next_states))
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()  # expect: GG608
        return loss.item()

    def refresh(self):
        self.frozen_copy.load_state_dict(self.learner.state_dict())


class PixelAgent:
    def __init__(self, lr=1e-3):
        self.encoder = nn.Sequential(nn.Conv2d(3, 8, 3), nn.ReLU(), nn.Flatten())
        self.head = nn.Linear(8 * 6 * 6, 2)
        self.encoder_optimizer = torch.optim.Adam(self.encoder.parameters(), lr=lr)
        self.head_optimizer = torch.optim.Adam(self.head.parameters(), lr=lr)

    def update(self, frames, labels):
        with torch.no_grad():
            features = self.encoder(frames)
        loss = F.cross_entropy(self.head(features), labels)
        self.encoder_optimizer.zero_grad()
        self.head_optimizer.zero_grad()
        loss.backward()
        self.head_optimizer.step()
        self.encoder_optimizer.step()  # expect: GG608
        return loss.item()


if __name__ == "__main__":
    agent = BootstrapAgent()
    for it in range(6):
        agent.learn(torch.randn(8, 5), torch.randint(0, 4, (8,)), torch.rand(8), torch.randn(8, 5))
        if it % 3 == 2:
            agent.refresh()
    pixels = PixelAgent()
    for _ in range(3):
        pixels.update(torch.randn(4, 3, 8, 8), torch.randint(0, 2, (4,)))
