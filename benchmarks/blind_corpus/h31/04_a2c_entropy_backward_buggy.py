"""Actor-critic update with a separate entropy bonus backward.

Modelled on: https://github.com/pytorch/pytorch/issues/11192

In the report two losses are built from one torch.distributions object
(log_prob terms of a Bernoulli) and backward() is called on each in turn; the
second call fails because both losses share the distribution's internal graph
(the normalised logits and the network that produced them), and the first
backward() freed it.  This agent does the same thing in a policy-gradient
update: the policy loss and the entropy bonus come from the same Categorical
built by `evaluate()`, `policy_loss.backward()` frees the shared graph, and
`entropy_loss.backward()` raises "Trying to backward through the graph a
second time".
"""
import torch
import torch.nn as nn
from torch.distributions import Categorical


class PolicyNet(nn.Module):
    def __init__(self, obs_dim, n_actions, hidden=32):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(obs_dim, hidden), nn.Tanh(),
                                  nn.Linear(hidden, hidden), nn.Tanh())
        self.pi = nn.Linear(hidden, n_actions)

    def forward(self, obs):
        return self.pi(self.body(obs))


class RolloutBuffer:
    def __init__(self, obs_dim, size, n_actions, seed=0):
        g = torch.Generator().manual_seed(seed)
        self.obs = torch.randn(size, obs_dim, generator=g)
        self.actions = torch.randint(0, n_actions, (size,), generator=g)
        self.returns = torch.randn(size, generator=g)
        self.values = torch.randn(size, generator=g) * 0.1

    def advantages(self):
        adv = self.returns - self.values
        return (adv - adv.mean()) / (adv.std() + 1e-8)


class PGAgent:
    def __init__(self, policy, lr=3e-3, entropy_coef=0.01):
        self.policy = policy
        self.entropy_coef = entropy_coef
        self.optimizer = torch.optim.Adam(policy.parameters(), lr=lr)

    def evaluate(self, obs):
        return Categorical(logits=self.policy(obs))

    def losses(self, buffer):
        dist = self.evaluate(buffer.obs)
        adv = buffer.advantages()
        policy_loss = -(dist.log_prob(buffer.actions) * adv).mean()
        entropy_loss = -self.entropy_coef * dist.entropy().mean()
        return policy_loss, entropy_loss

    def update(self, buffer):
        policy_loss, entropy_loss = self.losses(buffer)
        self.optimizer.zero_grad()
        policy_loss.backward()
        entropy_loss.backward()  # bug: GG202
        nn.utils.clip_grad_norm_(self.policy.parameters(), 0.5)
        self.optimizer.step()
        return policy_loss.item(), entropy_loss.item()


def train(n_updates=3):
    torch.manual_seed(0)
    agent = PGAgent(PolicyNet(obs_dim=6, n_actions=4))
    history = []
    for k in range(n_updates):
        buffer = RolloutBuffer(6, 64, 4, seed=k)
        history.append(agent.update(buffer))
    return history


if __name__ == "__main__":
    try:
        hist = train()
        print("no error", hist[-1])
    except RuntimeError as err:
        print("BUGGY:", str(err).splitlines()[0][:120])
