"""A loss term turned into a Python number, then added to the loss that is
backpropagated (GG102).

A reconstruction network trained with an adversarial term: to stop its memory from
growing while logging, the adversarial loss was turned into a float with `.item()` before
it was added to the L1 loss. `backward()` still runs on `l1 + weight * adversarial`, but
the adversarial term is now a constant: the generator gets no gradient from it (checked
with torch 2.13.0 below). Modelled on the report behind the tenth blind set's GG102 case,
https://github.com/guopengf/FL-MRCM/issues/10 (the adversarial loss of a federated
MRI-reconstruction trainer taken with `.item()` before the sum), in our own words.

The look-alikes: the loss divided by a number taken from a tensor (a normalisation chosen
on purpose: `.item()` keeps the scale out of the graph), and numbers added for logging.
"""

import torch
from torch import nn

WEIGHT = 0.1


def generator_step(net, critic, images, targets):
    restored = net(images)
    adversarial = critic(restored).mean()
    adversarial_value = adversarial.item()  # expect: GG102
    l1 = (restored - targets).abs().mean()
    loss = l1 + WEIGHT * adversarial_value
    loss.backward()
    return net


def normalised_step(net, images, targets):
    restored = net(images)
    l1 = (restored - targets).abs().mean()
    scale = restored.pow(2).mean()
    loss = l1 / (scale.item() + 1e-8)
    loss.backward()
    return l1.item() + scale.item()


def main():
    torch.manual_seed(0)
    images, targets = torch.randn(4, 6), torch.randn(4, 6)
    net, critic = nn.Linear(6, 6), nn.Linear(6, 1)
    generator_step(net, critic, images, targets)
    with_number = net.weight.grad.clone()
    net.zero_grad()
    ((net(images) - targets).abs().mean()).backward()
    assert torch.equal(with_number, net.weight.grad), "the adversarial term adds nothing"
    normalised_step(nn.Linear(6, 6), images, targets)
    print("BUGGY: the adversarial term, a float, gives the generator no gradient")


if __name__ == "__main__":
    main()
