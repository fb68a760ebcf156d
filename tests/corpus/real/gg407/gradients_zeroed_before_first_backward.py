"""`.grad` used before any backward pass filled it (GG407), and a graph rebuilt with torch.as_tensor (GG105).

Sources (rewritten in our own words, structure kept):
* https://github.com/jcjohnson/pytorch-examples/pull/4 (issues #7, #14) - two_layer_net_autograd:
  the weights' gradients are zeroed at the top of the loop, before the first backward.
* https://github.com/pkmr06/pytorch-smoothgrad/issues/5 - `VanillaGrad.__call__` resets
  `x.grad` on a fresh input before its backward ran.
* https://github.com/wiseodd/generative-models/issues/26 - InfoGAN's `reset_grad()` zeroes every
  parameter's gradient and is first called before any backward.
* https://github.com/lululxvi/deepxde/pull/1318 - the backend's `as_tensor` turned a tuple of
  tensors into one new tensor: `torch.as_tensor((a, b))` dropped the history (use torch.stack).
"""

import torch
from torch import nn


# Source: pytorch-examples#4, the tensor-and-autograd two-layer network.
def two_layer_net(N=8, D_in=10, H=6, D_out=2, steps=3, learning_rate=1e-6):
    x = torch.randn(N, D_in)
    y = torch.randn(N, D_out)
    w1 = torch.randn(D_in, H, requires_grad=True)
    w2 = torch.randn(H, D_out, requires_grad=True)
    for t in range(steps):
        w1.grad.data.zero_()  # expect: GG407
        w2.grad.data.zero_()  # expect: GG407
        y_pred = x.mm(w1).clamp(min=0).mm(w2)
        loss = (y_pred - y).pow(2).sum()
        loss.backward()
        with torch.no_grad():
            w1 -= learning_rate * w1.grad
            w2 -= learning_rate * w2.grad
    return w1, w2


# Source: pytorch-smoothgrad#5, VanillaGrad on one image.
class VanillaGrad:
    def __init__(self, pretrained_model):
        self.pretrained_model = pretrained_model

    def __call__(self, x, index=None):
        output = self.pretrained_model(x)
        if index is None:
            index = output.argmax().item()
        one_hot = torch.zeros_like(output)
        one_hot[0][index] = 1
        one_hot = torch.sum(one_hot * output)
        x.grad.data.zero_()  # missed: GG407
        one_hot.backward(retain_graph=True)
        return x.grad.data


def explain(image):
    model = nn.Sequential(nn.Flatten(), nn.Linear(12, 3))
    x = image.clone().requires_grad_(True)
    return VanillaGrad(model)(x)


# Source: generative-models#26, infogan_pytorch.py: the parameters live in a module-level list.
def infogan_step(Q, D, params, z, X, steps):
    for it in range(steps):
        reset_grad(params)
        D_loss = -torch.log(torch.sigmoid(D(X))).mean()
        D_loss.backward()
        Q_loss = Q(z).pow(2).mean()
        Q_loss.backward()


def reset_grad(params):
    for p in params:
        p.grad.data.zero_()  # missed: GG407


# Source: deepxde PR #1318, the two outputs of a network gathered for a loss.
def stacked_outputs_loss(inputs):
    net = nn.Linear(3, 2)
    out = net(inputs)
    a = out[:, 0].sum()
    b = out[:, 1].sum()
    ab = torch.as_tensor((a, b))  # expect: GG105
    ab.requires_grad = True
    ab.sum().backward()
    return net.weight.grad


# The fixed deepxde#1318 twin: torch.stack keeps both outputs' history.
def stacked_outputs_loss_fixed(inputs):
    net = nn.Linear(3, 2)
    out = net(inputs)
    ab = torch.stack((out[:, 0].sum(), out[:, 1].sum()))
    ab.sum().backward()
    return net.weight.grad


# Look-alike: points given as plain numbers become a genuine input leaf.
def gradient_wrt_points(points, model):
    coords = torch.as_tensor(points, dtype=torch.float32)
    coords.requires_grad = True
    model(coords).sum().backward()
    return coords.grad


def gradient_wrt_literal_points():
    net = nn.Linear(2, 1)
    coords = torch.as_tensor([[0.5, 1.0], [2.0, -1.0]])
    coords.requires_grad_()
    net(coords).sum().backward()
    return coords.grad
