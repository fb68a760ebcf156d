"""An actor-critic update whose critic phase steps the actor's optimizer.

The optimizers come from a builder returning both (`make_optimizers(actor, critic, lr)`),
and the value loss module is handed to the training function as `nn.MSELoss()`. After the
actor's update, the critic phase clears the critic's gradients, backpropagates the critic's
loss (the action is recomputed under no_grad, so that loss never reaches the actor) and then
calls `actor_opt.step()` where `critic_opt.step()` was meant: the critic is never updated,
and the actor re-applies its previous gradient. Modelled on the copy-paste slips reported in
SRGAN-PyTorch (https://github.com/Lornatang/SRGAN-PyTorch/issues/85, the discriminator
phase stepping the generator's optimizer) and in actor-critic code
(https://github.com/llSourcell/actor_critic/issues/1); written as a DDPG-style loop here.
"""

import torch
from torch import nn


def make_optimizers(actor, critic, lr):
    actor_opt = torch.optim.Adam(actor.parameters(), lr=lr)
    critic_opt = torch.optim.Adam(critic.parameters(), lr=lr * 10)
    return actor_opt, critic_opt


def fit(actor, critic, actor_opt, critic_opt, value_loss, batches):
    for obs, rewards in batches:
        actor_opt.zero_grad()
        actor_loss = -critic(torch.cat([obs, actor(obs)], dim=1)).mean()
        actor_loss.backward()
        actor_opt.step()

        critic_opt.zero_grad()
        with torch.no_grad():
            action = actor(obs)
        q = critic(torch.cat([obs, action], dim=1)).squeeze(1)
        critic_loss = value_loss(q, rewards)
        critic_loss.backward()
        actor_opt.step()  # expect: GG608


def main():
    torch.manual_seed(0)
    actor = nn.Sequential(nn.Linear(5, 16), nn.Tanh(), nn.Linear(16, 2), nn.Tanh())
    critic = nn.Sequential(nn.Linear(7, 16), nn.ReLU(), nn.Linear(16, 1))
    actor_opt, critic_opt = make_optimizers(actor, critic, 1e-3)
    before = [p.detach().clone() for p in critic.parameters()]
    batches = [(torch.randn(32, 5), torch.randn(32)) for _ in range(6)]
    fit(actor, critic, actor_opt, critic_opt, nn.MSELoss(), batches)
    unchanged = all(torch.equal(b, p) for b, p in zip(before, critic.parameters()))
    assert not unchanged, "the critic never changed: its phase stepped actor_opt"


if __name__ == "__main__":
    main()
