"""Look-alikes of a model built from a settings class, an optimizer asked of a builder, and
a model returned after training: each optimizer here is reached by its loss (silent).

* the fixed GAN: the generator's loss runs the critic on the fake batch itself;
* a DQN update: the target network is run under `no_grad` and is never given to an
  optimizer (it follows the online network by Polyak averaging); the online network,
  which the loss does run, is returned after training;
* one builder asked for both optimizers of a GAN, each on the network its loss trains;
* a settings object that is given a module (`hp.backbone = backbone`): the probe built from
  it shares that backbone, so a loss on `backbone` does reach the probe's optimizer.

Checked with torch 2.13.0: `__main__` runs (every stepped model changes). Modelled on the
counterpart of https://github.com/wangle53/CSA-CDGAN/issues/5, written anew for this corpus.
"""

import torch
from torch import nn


class Hyper:
    """Settings of the run."""

    noise = 4
    width = 16
    lr = 1e-2
    steps = 5
    tau = 0.1
    gamma = 0.9


class Shared:
    lr = 1e-2


class Generator(nn.Module):
    def __init__(self, hp):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(hp.noise, hp.width), nn.Tanh(), nn.Linear(hp.width, 2))

    def forward(self, z):
        return self.body(z)


class Critic(nn.Module):
    def __init__(self, hp):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(2, hp.width), nn.LeakyReLU(0.2), nn.Linear(hp.width, 1))

    def forward(self, x):
        return self.body(x)


class QNet(nn.Module):
    def __init__(self, hp):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(3, hp.width), nn.ReLU(), nn.Linear(hp.width, 2))

    def forward(self, obs):
        return self.body(obs)


class Probe(nn.Module):
    def __init__(self, settings):
        super().__init__()
        self.backbone = settings.backbone
        self.head = nn.Linear(8, 1)

    def forward(self, x):
        return self.head(self.backbone(x))


def make_optimizer(net, hp):
    return torch.optim.Adam(net.parameters(), lr=hp.lr)


def fit_fixed(hp, gen, critic):
    gen_opt = make_optimizer(gen, hp)
    critic_opt = make_optimizer(critic, hp)
    bce = nn.BCEWithLogitsLoss()
    ones, zeros = torch.ones(8, 1), torch.zeros(8, 1)
    for _ in range(hp.steps):
        fake = gen(torch.randn(8, hp.noise))
        critic_opt.zero_grad()
        c_loss = bce(critic(torch.randn(8, 2) + 2.0), ones) + bce(critic(fake.detach()), zeros)
        c_loss.backward()
        critic_opt.step()
        gen_opt.zero_grad()
        g_loss = bce(critic(fake), ones)
        g_loss.backward()
        gen_opt.step()


def gan():
    hp = Hyper()
    gen, critic = Generator(hp), Critic(hp)
    before = [p.detach().clone() for p in gen.parameters()]
    fit_fixed(hp, gen, critic)
    assert not all(torch.equal(a, b) for a, b in zip(before, gen.parameters()))


def td_updates(hp, q_net, target_net):
    opt = make_optimizer(q_net, hp)
    for _ in range(hp.steps):
        obs, nxt = torch.randn(16, 3), torch.randn(16, 3)
        act, rew = torch.randint(0, 2, (16,)), torch.randn(16)
        q = q_net(obs).gather(1, act.unsqueeze(1)).squeeze(1)
        with torch.no_grad():
            target = rew + hp.gamma * target_net(nxt).max(1).values
        loss = nn.functional.smooth_l1_loss(q, target)
        opt.zero_grad()
        loss.backward()
        opt.step()
        with torch.no_grad():
            for t, s in zip(target_net.parameters(), q_net.parameters()):
                t.mul_(1 - hp.tau).add_(hp.tau * s)


def dqn():
    hp = Hyper()
    q_net, target_net = QNet(hp), QNet(hp)
    target_net.load_state_dict(q_net.state_dict())
    before = [p.detach().clone() for p in q_net.parameters()]
    td_updates(hp, q_net, target_net)
    return before, q_net


def probe():
    backbone = nn.Linear(4, 8)
    settings = Shared()
    settings.backbone = backbone
    model = Probe(settings)
    opt = torch.optim.SGD(model.parameters(), lr=settings.lr)
    before = backbone.weight.detach().clone()
    for _ in range(3):
        loss = backbone(torch.randn(8, 4)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    assert not torch.equal(before, model.backbone.weight)


if __name__ == "__main__":
    gan()
    before, q_net = dqn()
    assert not all(torch.equal(a, b) for a, b in zip(before, q_net.parameters()))
    probe()
    print("ok")
