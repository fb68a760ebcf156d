"""Targets computed once, before the loop, by a model a helper function builds.

Whether the loop's second backward() finds a freed graph depends on what the helper did:
a helper that freezes every parameter before returning the model (a fixed feature
extractor for a style or perceptual loss) makes the targets plain tensors, and the loop is
correct; a helper that only builds the model leaves them with a graph the first backward()
frees. The caller cannot tell from its own lines: the analysis must not take a module a
function returned for one built with a constructor right here (a look-alike first reported
against GradGuard as a false GG202 on an image-optimisation loop).
"""

import torch
import torch.nn.functional as F
from torch import nn


def frozen_extractor():
    net = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU())
    for p in net.parameters():
        p.requires_grad_(False)
    return net.eval()


def trainable_extractor():
    return nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU())


def optimise_image(content, steps):
    extractor = frozen_extractor()
    target = extractor(content)
    image = content.clone().requires_grad_(True)
    optimizer = torch.optim.Adam([image], lr=0.05)
    for _ in range(steps):
        loss = F.mse_loss(extractor(image), target)
        optimizer.zero_grad()
        loss.backward()  # fine: the helper froze the extractor, the target has no graph
        optimizer.step()
    return image.detach()


def fit_to_fixed_features(content, steps):
    extractor = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU()).eval()
    target = extractor(content)
    image = content.clone().requires_grad_(True)
    optimizer = torch.optim.Adam([image], lr=0.05)
    for _ in range(steps):
        loss = F.mse_loss(extractor(image), target)
        optimizer.zero_grad()
        loss.backward()  # expect: GG202
        optimizer.step()
    return image.detach()


if __name__ == "__main__":
    picture = torch.rand(1, 3, 8, 8)
    optimise_image(picture, 3)
    try:
        fit_to_fixed_features(picture, 3)
    except RuntimeError as error:
        assert "backward through the graph a second time" in str(error)
    else:
        raise AssertionError("expected the second backward to fail")
