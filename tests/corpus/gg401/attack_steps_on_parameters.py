"""Attack loops over an image handed in as a parameter (GG401 on the second iteration).

Setting `.requires_grad = True` is what one does to a tensor, so a parameter whose flag is
set is a tensor from there on: a leaf that requires grad (it did not raise). A loop that
then steps it with tensor arithmetic leaves a computed tensor for the next iteration, whose
flag can no longer change. Shaped after the DeepFool and PGD loops of
adversarial-attacks-pytorch (https://github.com/Harry24k/adversarial-attacks-pytorch/issues/2).

The look-alikes below run: the step is detached or made under no_grad, each iteration
starts from a fresh copy, the step goes through `.data`, or the statement ending the loop
body is a cast or move (`.to(device)`, `.float()`), which returns the leaf itself when it
already has that dtype and device.
"""

import torch
from torch import nn
from torch.nn import functional as F


def pgd(model, images, labels, steps, alpha):
    adv = images.clone()
    for _ in range(steps):
        adv.requires_grad = True  # expect: GG401
        loss = F.cross_entropy(model(adv), labels)
        grad = torch.autograd.grad(loss, adv)[0]
        adv = adv + alpha * grad.sign()
    return adv


def pgd_detached(model, images, labels, steps, alpha):
    adv = images.clone()
    for _ in range(steps):
        adv.requires_grad = True
        loss = F.cross_entropy(model(adv), labels)
        grad = torch.autograd.grad(loss, adv)[0]
        adv = (adv + alpha * grad.sign()).detach()
    return adv


def pgd_stepped_without_grad(model, images, labels, steps, alpha):
    adv = images.clone()
    for _ in range(steps):
        adv.requires_grad = True
        loss = F.cross_entropy(model(adv), labels)
        grad = torch.autograd.grad(loss, adv)[0]
        with torch.no_grad():
            adv = adv + alpha * grad.sign()
    return adv


def fresh_copy_each_step(model, images, steps):
    for _ in range(steps):
        copy = images.clone()
        copy.requires_grad = True
        model(copy).sum().backward()
    return images


def stepped_through_data(model, images, steps, alpha):
    for _ in range(steps):
        images.requires_grad = True
        model(images).sum().backward()
        images.data = images.data + alpha * images.grad.sign()
        images.grad = None
    return images


def moved_each_step(model, images, steps, device):
    for _ in range(steps):
        images.requires_grad = True
        model(images).sum().backward()
        images = images.to(device)
    return images


def cast_each_step(model, images, steps):
    for _ in range(steps):
        images.requires_grad = True
        model(images).sum().backward()
        images = images.float()
    return images


if __name__ == "__main__":
    net = nn.Linear(4, 3)
    x, y = torch.rand(2, 4), torch.tensor([0, 1])
    pgd_detached(net, x, y, 3, 0.01)
    pgd_stepped_without_grad(net, x, y, 3, 0.01)
    fresh_copy_each_step(net, x, 3)
    stepped_through_data(net, x.clone(), 3, 0.01)
    moved_each_step(net, x.clone(), 3, "cpu")
    cast_each_step(net, x.clone(), 3)
    try:
        pgd(net, x, y, 3, 0.01)
    except RuntimeError as error:
        assert "leaf variables" in str(error)
    else:
        raise AssertionError("pgd should raise")
