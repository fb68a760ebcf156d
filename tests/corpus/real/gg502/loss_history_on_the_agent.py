"""A reinforcement-learning agent that keeps its loss history on `self` and plots it later:
`learn()` appends each step's loss tensor to `self.cost_his`, and `plot_cost()` hands the list
to `plt.plot`, which converts every element with `Tensor.numpy()` and raises "Can't call
numpy() on Tensor that requires grad" (checked with torch 2.13.0 and matplotlib). The
module-level loop that calls `learn()` grows the same list by one loss tensor per step, each
with its graph, for as long as the agent lives (GG203).

Source (rewritten in our own words, structure kept):
https://github.com/ClownW/Reinforcement-learning-with-PyTorch/issues/3 - the Deep Q-Network
of a PyTorch port of a tutorial: the reporter's fix is to store the loss detached.
"""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self, n_features, n_actions):
        super().__init__()
        self.hidden = nn.Linear(n_features, 10)
        self.out = nn.Linear(10, n_actions)

    def forward(self, x):
        return self.out(torch.relu(self.hidden(x)))


class DeepQNetwork:
    def __init__(self, n_actions, n_features, lr=0.01):
        self.eval_net = Net(n_features, n_actions)
        self.target_net = Net(n_features, n_actions)
        self.optimizer = torch.optim.RMSprop(self.eval_net.parameters(), lr=lr)
        self.loss_func = nn.MSELoss()
        self.cost_his = []

    def learn(self, state, next_state, reward):
        q_next = self.target_net(next_state).detach()
        q_eval = self.eval_net(state)
        q_target = reward + 0.9 * q_next.max(1, keepdim=True)[0]
        loss = self.loss_func(q_eval.max(1, keepdim=True)[0], q_target)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        self.cost_his.append(loss)  # expect: GG203

    def plot_cost(self):
        plt.plot(np.arange(len(self.cost_his)), self.cost_his)  # expect: GG502
        plt.ylabel("Cost")
        plt.close()


class FixedDeepQNetwork:
    def __init__(self, n_actions, n_features, lr=0.01):
        self.eval_net = Net(n_features, n_actions)
        self.optimizer = torch.optim.RMSprop(self.eval_net.parameters(), lr=lr)
        self.loss_func = nn.MSELoss()
        self.cost_history = []

    def learn(self, state, target):
        loss = self.loss_func(self.eval_net(state), target)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        self.cost_history.append(loss.item())

    def plot_cost(self):
        plt.plot(np.arange(len(self.cost_history)), self.cost_history)
        plt.close()


class AgentWithSharedHistory:
    """The history list is handed to a logger that may store anything in it: unknown."""

    def __init__(self, logger):
        self.net = Net(4, 2)
        self.history = []
        logger.attach(self.history)

    def learn(self, state):
        loss = self.net(state).sum()
        loss.backward()
        self.history.append(loss)

    def plot(self):
        plt.plot(self.history)
        plt.close()


agent = DeepQNetwork(2, 4)
for _ in range(3):
    agent.learn(torch.randn(5, 4), torch.randn(5, 4), torch.randn(5, 1))
try:
    agent.plot_cost()
except RuntimeError as error:
    assert "numpy" in str(error)
fixed = FixedDeepQNetwork(2, 4)
fixed.learn(torch.randn(5, 4), torch.randn(5, 2))
fixed.plot_cost()
