"""Everything frozen first, then something is made trainable again before backward."""

import torch
from torch import nn


def unfreeze_last_layer():
    model = nn.Sequential(nn.Linear(6, 12), nn.ReLU(), nn.Linear(12, 2))
    for p in model.parameters():
        p.requires_grad = False
    for p in model[-1].parameters():
        p.requires_grad = True
    model(torch.randn(4, 6)).sum().backward()


def unfreeze_with_method():
    model = nn.Sequential(nn.Linear(6, 12), nn.ReLU(), nn.Linear(12, 2))
    model.requires_grad_(False)
    model[2].requires_grad_()
    model(torch.randn(4, 6)).sum().backward()


def input_requires_grad():
    # Saliency maps: the model is frozen, the gradient is taken w.r.t. the input.
    model = nn.Linear(6, 2)
    model.requires_grad_(False)
    image = torch.randn(1, 6, requires_grad=True)
    model(image).max().backward()
    print(image.grad.abs())


unfreeze_last_layer()
unfreeze_with_method()
input_requires_grad()
