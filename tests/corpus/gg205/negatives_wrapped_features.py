"""Look-alikes of a two-loss update over wrapped shared features: the step comes after
both backward passes, the second pass runs on a fresh forward, or the features are cut
from the body."""

import torch
import torch.nn.functional as F
from torch import nn


class TwoHeads(nn.Module):
    def __init__(self):
        super().__init__()
        self.shared = nn.Sequential(nn.Linear(6, 32), nn.ReLU(), nn.Linear(32, 32))
        self.a = nn.Linear(32, 3)
        self.b = nn.Linear(32, 1)

    def forward(self, obs):
        features = torch.tanh(self.shared(obs))
        return self.a(features), self.b(features)


class FrozenBody(nn.Module):
    def __init__(self):
        super().__init__()
        self.shared = nn.Sequential(nn.Linear(6, 32), nn.ReLU(), nn.Linear(32, 32))
        self.a = nn.Linear(32, 3)
        self.b = nn.Linear(32, 1)

    def forward(self, obs):
        features = torch.tanh(self.shared(obs).detach())
        return self.a(features), self.b(features)


def step_after_both(net, optimizer):
    logits, value = net(torch.randn(8, 6))
    optimizer.zero_grad()
    value.pow(2).mean().backward(retain_graph=True)
    logits.logsumexp(-1).mean().backward()
    optimizer.step()


def fresh_forward_after_the_step(net, optimizer):
    _, value = net(torch.randn(8, 6))
    optimizer.zero_grad()
    value.pow(2).mean().backward(retain_graph=True)
    optimizer.step()
    logits, _ = net(torch.randn(8, 6))
    optimizer.zero_grad()
    logits.logsumexp(-1).mean().backward()
    optimizer.step()


two_heads = TwoHeads()
opt = torch.optim.SGD(two_heads.parameters(), lr=0.01)
step_after_both(two_heads, opt)
fresh_forward_after_the_step(two_heads, opt)

frozen = FrozenBody()
frozen_opt = torch.optim.SGD(frozen.parameters(), lr=0.01)
out_a, out_b = frozen(torch.randn(8, 6))
frozen_opt.zero_grad()
out_b.pow(2).mean().backward(retain_graph=True)
frozen_opt.step()
F.softplus(out_a).mean().backward()
