"""A feature-matching term backpropagated after the adversarial loss it shares a graph with
(GG202).

The generator step scores a fake batch with the critic, which also returns its features.
The adversarial loss is backpropagated first; then a feature-matching term is built from
the same fake features by a chain of helpers (`feature_matching` hands them to
`moments`, which takes `torch.var_mean` of them) and backpropagated on its own. The first
backward freed what the critic and the generator saved for the fake batch, and the second
one runs through that graph again: "Trying to backward through the graph a second time"
(checked with torch 2.13.0 below). `torch.var_mean` returns a pair of tensors that both
keep their input's history, and each helper's result runs through its argument's graph,
so the term certainly reaches the freed graph.

Look-alike: the same step adding both terms and backpropagating once.

Modelled on facebookresearch/pytorch_GAN_zoo#83 (an extra generator term built from the
discriminator's features of the fake batch, given its own backward after the adversarial
loss's).
"""

import torch
import torch.nn.functional as F
from torch import nn


class Critic(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(6, 8), nn.Tanh())
        self.score = nn.Linear(8, 1)

    def forward(self, x):
        features = self.body(x)
        return self.score(features), features


def moments(features):
    var, mean = torch.var_mean(features, dim=0)
    return mean, var


def feature_matching(fake_features, real_features):
    fake_mean, fake_var = moments(fake_features)
    real_mean, real_var = moments(real_features)
    return F.mse_loss(fake_mean, real_mean) + F.mse_loss(fake_var, real_var)


def generator_step(generator, critic, real, noise):
    score, fake_features = critic(generator(noise))
    adversarial = F.softplus(-score).mean()
    adversarial.backward()  # expect: GG202
    _, real_features = critic(real)
    matching = feature_matching(fake_features, real_features.detach())
    matching.backward()


def generator_step_once(generator, critic, real, noise):
    score, fake_features = critic(generator(noise))
    adversarial = F.softplus(-score).mean()
    _, real_features = critic(real)
    matching = feature_matching(fake_features, real_features.detach())
    (adversarial + matching).backward()


def main():
    torch.manual_seed(0)
    generator = nn.Sequential(nn.Linear(4, 6), nn.Tanh())
    critic = Critic()
    real, noise = torch.randn(5, 6), torch.randn(5, 4)
    try:
        generator_step(generator, critic, real, noise)
    except RuntimeError as error:
        assert "backward through the graph a second time" in str(error)
    else:
        raise AssertionError("expected the freed graph to be refused")
    generator_step_once(generator, critic, real, noise)


if __name__ == "__main__":
    main()
