"""Advantage actor-critic whose shared features go through an activation first.

`forward` runs the shared body, applies `F.relu` to its output, and computes both heads
from that. The update backpropagates the value loss keeping the graph, steps the optimizer
(which changes the shared body's second Linear, whose weight the forward pass saved
because its input required grad), and then backpropagates the policy loss through the same
forward pass: "one of the variables needed for gradient computation has been modified by
an inplace operation".
"""

import torch
import torch.nn.functional as F
from torch import nn


class PolicyValueNet(nn.Module):
    def __init__(self, obs_size=6, actions=3):
        super().__init__()
        self.shared = nn.Sequential(nn.Linear(obs_size, 32), nn.ReLU(), nn.Linear(32, 32))
        self.policy_head = nn.Linear(32, actions)
        self.value_head = nn.Linear(32, 1)

    def forward(self, obs):
        features = F.relu(self.shared(obs))
        return self.policy_head(features), self.value_head(features)


net = PolicyValueNet()
optimizer = torch.optim.SGD(net.parameters(), lr=0.01)
for episode in range(5):
    obs = torch.randn(8, 6)
    returns = torch.randn(8, 1)
    actions = torch.randint(0, 3, (8,))
    logits, values = net(obs)
    advantage = returns - values
    optimizer.zero_grad()
    advantage.pow(2).mean().backward(retain_graph=True)
    optimizer.step()  # expect: GG205
    log_probs = F.log_softmax(logits, dim=-1).gather(1, actions[:, None])
    policy_loss = -(log_probs * advantage.detach()).mean()
    optimizer.zero_grad()
    policy_loss.backward()
    optimizer.step()
