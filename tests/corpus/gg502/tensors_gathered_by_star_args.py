"""Tensors gathered by a `*args` parameter and turned into arrays (GG502).

Modelled on https://github.com/fossasia/visdom/issues/366: the plotting client wrapped its
drawing calls so that every positional argument that was a torch tensor went through
`.cpu().numpy()` first; handing it images straight out of a network raised "Can't call
numpy() on Variable that requires grad" (the fix detached each tensor before the
conversion). Here a viewer takes any number of maps as `*maps` and converts each one; the
script passes it decoder outputs with history, either one by one or unpacked from a list
(`show_maps(*maps)`), so the tuple inside holds tensors that require grad.

Look-alikes that must stay silent: the same helper given detached outputs or outputs
computed under `torch.no_grad()`, a helper that detaches before converting, a helper only
handed to code the file does not show (whose callers are unknown), and a helper given
whatever a loader returns.
"""

import numpy as np
import torch
from torch import nn


class Decoder(nn.Module):
    def __init__(self, latent=4, side=5):
        super().__init__()
        self.side = side
        self.net = nn.Sequential(nn.Linear(latent, side * side), nn.Sigmoid())

    def forward(self, z):
        return self.net(z).view(-1, self.side, self.side)


def show_maps(*maps, scale=255):
    frames = []
    for index, image in enumerate(maps):
        if isinstance(image, torch.Tensor):
            image = image.cpu().numpy()  # expect: GG502
        frames.append((index, (image * scale).astype(np.uint8)))
    return frames


def first_map(*maps):
    return maps[0].numpy()  # expect: GG502


def show_maps_quiet(*maps):
    for image in maps:
        image.cpu().numpy()


def show_maps_under_no_grad(*maps):
    return [image.numpy() for image in maps]


def show_detached(*maps):
    return [image.detach().cpu().numpy() for image in maps]


def show_registered(*maps):
    return [image.numpy() for image in maps]


def show_loaded(*maps):
    return [image.numpy() for image in maps]


def reconstruct(decoder, codes):
    images = decoder(codes)
    show_maps(images[0], images[1])
    picked = [images[i] for i in range(2)]
    show_maps(*picked)
    return first_map(images[0], images[1])


def reconstruct_safely(decoder, codes, registry, load):
    images = decoder(codes)
    show_maps_quiet(images[0].detach(), images[1].detach())
    show_detached(images[0], images[1])
    with torch.no_grad():
        quiet = decoder(codes)
        show_maps_under_no_grad(quiet[0], quiet[1])
    registry.append(show_registered)
    return show_loaded(*load())


if __name__ == "__main__":
    torch.manual_seed(0)
    decoder = Decoder()
    codes = torch.randn(2, 4)
    try:
        show_maps(*decoder(codes))
    except RuntimeError as error:
        assert "Can't call numpy() on Tensor that requires grad" in str(error)
    else:
        raise AssertionError("show_maps converted tensors with history")
    try:
        reconstruct(decoder, codes)
    except RuntimeError as error:
        assert "requires grad" in str(error)
    else:
        raise AssertionError("reconstruct converted tensors with history")
    try:
        first_map(*decoder(codes))
    except RuntimeError as error:
        assert "Can't call numpy() on Tensor that requires grad" in str(error)
    else:
        raise AssertionError("first_map converted a tensor with history")
    registry = []
    shown = reconstruct_safely(decoder, codes, registry, lambda: [torch.zeros(5, 5)])
    assert len(shown) == 1 and registry == [show_registered]
    print("ok")
