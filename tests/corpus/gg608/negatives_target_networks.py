"""Target networks and values computed under no_grad, where the optimizer is the right one.

Real-code shapes: a DQN that optimizes the online network and syncs the target by
`load_state_dict`, a Polyak (soft) update of the target under no_grad, two networks each
distilled towards the other's no_grad output (each optimizer holds the network its own loss
runs), a loss with a detached term beside a term that does run the model, a buffer made
under no_grad that the model's output is then added into in place (it has history from
there on), and a target computed with grad on one branch and without on the other.
"""

import copy

import torch
from torch import nn
import torch.nn.functional as F


def q_network():
    return nn.Sequential(nn.Linear(6, 32), nn.ReLU(), nn.Linear(32, 3))


def dqn_right(steps=5, gamma=0.97):
    policy_net = q_network()
    target_net = copy.deepcopy(policy_net)
    optimizer = torch.optim.Adam(policy_net.parameters(), lr=1e-3)
    for step in range(steps):
        obs, next_obs = torch.randn(16, 6), torch.randn(16, 6)
        actions = torch.randint(0, 3, (16, 1))
        q_taken = policy_net(obs).gather(1, actions).squeeze(1)
        with torch.no_grad():
            td_target = torch.rand(16) + gamma * target_net(next_obs).max(dim=1).values
        loss = F.smooth_l1_loss(q_taken, td_target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % 2 == 1:
            target_net.load_state_dict(policy_net.state_dict())


def soft_update(steps=5, tau=0.05):
    critic = nn.Linear(6, 1)
    critic_target = copy.deepcopy(critic)
    critic_optimizer = torch.optim.Adam(critic.parameters(), lr=1e-3)
    for _ in range(steps):
        obs, next_obs = torch.randn(16, 6), torch.randn(16, 6)
        with torch.no_grad():
            target_v = torch.rand(16, 1) + 0.9 * critic_target(next_obs)
        loss = F.mse_loss(critic(obs), target_v)
        critic_optimizer.zero_grad()
        loss.backward()
        critic_optimizer.step()
        with torch.no_grad():
            for tp, p in zip(critic_target.parameters(), critic.parameters()):
                tp.mul_(1 - tau).add_(p, alpha=tau)


def mutual_distillation(steps=5):
    left = nn.Linear(6, 3)
    right = nn.Linear(6, 3)
    left_optimizer = torch.optim.SGD(left.parameters(), lr=0.1)
    right_optimizer = torch.optim.SGD(right.parameters(), lr=0.1)
    for _ in range(steps):
        x = torch.randn(8, 6)
        with torch.no_grad():
            left_soft = F.softmax(left(x), dim=1)
            right_soft = F.softmax(right(x), dim=1)
        left_loss = F.kl_div(F.log_softmax(left(x), dim=1), right_soft, reduction="batchmean")
        left_optimizer.zero_grad()
        left_loss.backward()
        left_optimizer.step()
        right_loss = F.kl_div(F.log_softmax(right(x), dim=1), left_soft, reduction="batchmean")
        right_optimizer.zero_grad()
        right_loss.backward()
        right_optimizer.step()


def detached_term_beside_a_live_one(steps=5):
    model = nn.Linear(6, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(steps):
        x = torch.randn(8, 6)
        out = model(x)
        baseline = out.detach().mean()
        loss = (out - baseline).pow(2).mean() + out.abs().mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def buffer_filled_in_place(steps=5):
    model = nn.Linear(6, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(steps):
        with torch.no_grad():
            total = torch.zeros(8, 1)
        total.add_(model(torch.randn(8, 6)))
        loss = total.pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def target_on_one_branch(steps=4):
    model = nn.Linear(6, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(steps):
        x = torch.randn(8, 6)
        if step % 2:
            pred = model(x)
        else:
            with torch.no_grad():
                pred = model(x)
        loss = (pred - 1).pow(2).mean() + torch.zeros(1, requires_grad=True).sum()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    torch.manual_seed(0)
    dqn_right()
    soft_update()
    mutual_distillation()
    detached_term_beside_a_live_one()
    buffer_filled_in_place()
    target_on_one_branch()
