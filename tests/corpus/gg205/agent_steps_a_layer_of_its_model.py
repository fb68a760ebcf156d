"""An agent whose optimizers each hold some layers of one shared actor-critic network.

Modelled on the actor-critic updates discussed in pytorch/pytorch#39141 ("one of the
variables needed for gradient computation has been modified by an inplace operation" after
upgrading to 1.5): the critic's optimizer is built on the shared body and the value head
(`list(net.body.parameters()) + list(net.v.parameters())`), the actor's on the policy head.
Stepping the critic between `value_loss.backward(retain_graph=True)` and the policy loss's
backward changes the body's weights, which the body's second Linear saved (its input, the
first Linear's output, requires grad): under torch 2.13.0 the second backward raises. Written
here from scratch.

* `Agent.update`: the step between the two backward passes (the bug);
* `Agent.update_steps_after`: both backward passes first, then both steps (no bug);
* `HeadOnlyAgent.update`: the stepped optimizer holds only the value head, a Linear fed by
  the body's output: the policy loss's graph does not go through it (no bug).
"""

import torch
import torch.nn.functional as F
from torch import nn
from torch.distributions import Categorical


class SharedNet(nn.Module):
    def __init__(self, obs=5, acts=3, width=16):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(obs, width), nn.ReLU(), nn.Linear(width, width))
        self.pi = nn.Linear(width, acts)
        self.v = nn.Linear(width, 1)

    def forward(self, obs):
        feats = self.body(obs)
        return Categorical(logits=self.pi(feats)), self.v(feats).squeeze(-1)


class Agent:
    def __init__(self, net):
        self.net = net
        critic = list(net.body.parameters()) + list(net.v.parameters())
        self.critic_opt = torch.optim.SGD(critic, lr=0.01)
        self.actor_opt = torch.optim.SGD(net.pi.parameters(), lr=0.01)

    def update(self, obs, actions, returns):
        dist, values = self.net(obs)
        value_loss = F.mse_loss(values, returns)
        policy_loss = -(dist.log_prob(actions) * (returns - values).detach()).mean()
        self.critic_opt.zero_grad()
        self.actor_opt.zero_grad()
        value_loss.backward(retain_graph=True)
        self.critic_opt.step()  # expect: GG205
        policy_loss.backward()
        self.actor_opt.step()

    def update_steps_after(self, obs, actions, returns):
        dist, values = self.net(obs)
        value_loss = F.mse_loss(values, returns)
        policy_loss = -(dist.log_prob(actions) * (returns - values).detach()).mean()
        self.critic_opt.zero_grad()
        self.actor_opt.zero_grad()
        value_loss.backward(retain_graph=True)
        policy_loss.backward()
        self.critic_opt.step()
        self.actor_opt.step()


class HeadOnlyAgent:
    def __init__(self, net):
        self.net = net
        self.value_opt = torch.optim.SGD(net.v.parameters(), lr=0.01)
        self.policy_opt = torch.optim.SGD(
            list(net.body.parameters()) + list(net.pi.parameters()), lr=0.01
        )

    def update(self, obs, actions, returns):
        dist, values = self.net(obs)
        value_loss = F.mse_loss(values, returns)
        policy_loss = -(dist.log_prob(actions) * (returns - values).detach()).mean()
        self.value_opt.zero_grad()
        self.policy_opt.zero_grad()
        value_loss.backward(retain_graph=True)
        self.value_opt.step()
        policy_loss.backward()
        self.policy_opt.step()


def main():
    torch.manual_seed(3)
    obs = torch.randn(12, 5)
    actions = torch.randint(0, 3, (12,))
    returns = torch.randn(12)
    Agent(SharedNet()).update_steps_after(obs, actions, returns)
    HeadOnlyAgent(SharedNet()).update(obs, actions, returns)
    print("look-alikes ok")
    try:
        Agent(SharedNet()).update(obs, actions, returns)
    except RuntimeError as err:
        print("update raised:", str(err).splitlines()[0][:90])


if __name__ == "__main__":
    main()
