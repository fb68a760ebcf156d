"""A Wasserstein-style critic update in a helper, then the generator's loss on the same
samples, without `detach()` when they are handed to the helper.

`update_critic` backpropagates a loss computed from `samples`, which the training loop
passes undetached: the backward frees the generator's part of the graph too. The loop's
own generator loss then runs through that same generator output, and its backward raises
"Trying to backward through the graph a second time". (The usual fix is
`update_critic(critic, critic_opt, batch, samples.detach())`.)
"""

import torch
from torch import nn

NOISE = 16


def update_critic(critic, critic_opt, batch, samples, clip=0.01):
    critic_opt.zero_grad()
    wasserstein = critic(samples).mean() - critic(batch).mean()
    wasserstein.backward()  # expect: GG202
    critic_opt.step()
    with torch.no_grad():
        for weight in critic.parameters():
            weight.clamp_(-clip, clip)
    return wasserstein.item()


def train(steps=100):
    generator = nn.Sequential(nn.Linear(NOISE, 64), nn.ReLU(), nn.Linear(64, 2))
    critic = nn.Sequential(nn.Linear(2, 64), nn.ReLU(), nn.Linear(64, 1))
    gen_opt = torch.optim.RMSprop(generator.parameters(), lr=5e-5)
    critic_opt = torch.optim.RMSprop(critic.parameters(), lr=5e-5)
    for step in range(steps):
        batch = torch.randn(32, 2) + 1.0
        samples = generator(torch.randn(32, NOISE))
        distance = update_critic(critic, critic_opt, batch, samples)
        gen_opt.zero_grad()
        gen_loss = -critic(samples).mean()
        gen_loss.backward()
        gen_opt.step()
        if step % 20 == 0:
            print(step, distance, gen_loss.item())


if __name__ == "__main__":
    train()
