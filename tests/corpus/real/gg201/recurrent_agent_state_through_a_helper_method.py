"""A recurrent policy whose LSTM state lives on the agent and is advanced by a helper method:
`update()` calls `self.act(obs)`, `act()` runs `self.state = self.rnn(obs, self.state)`, and
`update()` backpropagates the loss and steps. The next call of `update()` runs the cell on
the state the previous call left, still attached to that call's freed graph, and
`loss.backward()` raises "Trying to backward through the graph a second time" (checked with
torch 2.13.0). Detaching the state at the start of each update, or starting each update from
a fresh state, fixes it.

Sources (rewritten in our own words, structure kept): recurrent agents and trainers that keep
the hidden state on `self` and advance it in a helper called from the training step, as in
https://github.com/jeshraghian/snntorch/issues/250 (state kept across calls; fixed by
resetting it in `forward`) and https://github.com/MorvanZhou/PyTorch-Tutorial/issues/57
(`h_state = h_state.data` is what made the loop work).
"""

import torch
from torch import nn


class RecurrentAgent:
    def __init__(self):
        self.rnn = nn.LSTMCell(4, 8)
        self.policy = nn.Linear(8, 2)
        self.opt = torch.optim.Adam([*self.rnn.parameters(), *self.policy.parameters()])
        self.state = None

    def act(self, obs):
        self.state = self.rnn(obs, self.state)  # expect: GG201
        return self.policy(self.state[0])

    def update(self, obs, target):
        logits = self.act(obs)
        loss = nn.functional.cross_entropy(logits, target)
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()


class DetachingAgent(RecurrentAgent):
    def update(self, obs, target):
        if self.state is not None:
            self.state = tuple(s.detach() for s in self.state)
        logits = self.act(obs)
        loss = nn.functional.cross_entropy(logits, target)
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()


class EpisodicAgent:
    def __init__(self):
        self.rnn = nn.LSTMCell(4, 8)
        self.policy = nn.Linear(8, 2)
        self.opt = torch.optim.Adam([*self.rnn.parameters(), *self.policy.parameters()])
        self.state = None

    def reset(self):
        self.state = None

    def act(self, obs):
        self.state = self.rnn(obs, self.state)
        return self.policy(self.state[0])

    def update(self, obs, target):
        self.reset()
        logits = self.act(obs)
        loss = nn.functional.cross_entropy(logits, target)
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()


def run(agent, steps):
    for _ in range(steps):
        agent.update(torch.randn(2, 4), torch.tensor([0, 1]))


agent = RecurrentAgent()
try:
    for _ in range(3):
        agent.update(torch.randn(2, 4), torch.tensor([0, 1]))
except RuntimeError as error:
    assert "second time" in str(error)
run(DetachingAgent(), 3)
episodic = EpisodicAgent()
for _ in range(3):
    episodic.update(torch.randn(2, 4), torch.tensor([0, 1]))
