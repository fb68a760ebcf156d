"""A recurrent actor-critic agent: `Agent.act` runs an `nn.LSTMCell` on the observation
with the memory it kept from the previous step and stores the new memory on `self.memory`;
`Agent.learn` backpropagates the loss of each step. From the second step on, backward runs
into the previous step's freed graph ("Trying to backward through the graph a second
time"). The fix: keep `(h.detach(), c.detach())`.

Source (rewritten in our own words, structure kept):
https://github.com/ndrplz/ConvLSTM_pytorch/issues/21 (reinforcement learning with a
recurrent state fed step by step) and https://github.com/dpressel/dliss-tutorial/issues/1
(detaching the hidden states between steps).
"""

import torch
from torch import nn


class Agent:
    def __init__(self, obs_dim=4, hidden=8, n_actions=2):
        self.cell = nn.LSTMCell(obs_dim, hidden)
        self.policy = nn.Linear(hidden, n_actions)
        self.optimizer = torch.optim.Adam(
            [*self.cell.parameters(), *self.policy.parameters()], lr=1e-3
        )
        self.memory = (torch.zeros(1, hidden), torch.zeros(1, hidden))

    def act(self, obs):
        h, c = self.cell(obs, self.memory)
        self.memory = (h, c)  # expect: GG201
        return self.policy(h)

    def learn(self, obs, advantage):
        logits = self.act(obs)
        loss = -(torch.log_softmax(logits, -1)[0, 0] * advantage)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()


class AgentFixed(Agent):
    def act(self, obs):
        h, c = self.cell(obs, self.memory)
        self.memory = (h.detach(), c.detach())
        return self.policy(h)


if __name__ == "__main__":
    agent = Agent()
    try:
        for step in range(3):
            agent.learn(torch.randn(1, 4), 1.0)
    except RuntimeError as error:
        assert "backward through the graph a second time" in str(error)
    else:
        raise AssertionError("expected the second-backward error")
    fixed = AgentFixed()
    for step in range(3):
        fixed.learn(torch.randn(1, 4), 1.0)
