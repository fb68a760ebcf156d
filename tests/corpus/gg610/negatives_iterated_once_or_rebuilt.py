"""Look-alikes: each generator is iterated once, re-created, turned into a list, or not
certainly a generator at all."""

import torch
from torch import nn


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 8)

    def forward(self, x):
        return self.fc(x)


class ListParams(nn.Module):
    """Overrides parameters() to return a list."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def parameters(self, recurse=True):
        return list(super().parameters(recurse))


class Value:
    """A micrograd-style scalar network: parameters() is a plain list."""

    def __init__(self):
        self.w = [torch.zeros(1, requires_grad=True)]

    def parameters(self):
        return self.w


def listed():
    model = Encoder()
    params = list(model.parameters())
    optimizer = torch.optim.SGD(params, lr=0.1)
    torch.nn.utils.clip_grad_norm_(params, 1.0)
    return optimizer


def called_again():
    model = Encoder()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    return optimizer


def rebound_before_second_use():
    model = Encoder()
    params = model.parameters()
    optimizer = torch.optim.SGD(params, lr=0.1)
    params = model.parameters()
    torch.nn.utils.clip_grad_norm_(params, 1.0)
    return optimizer


def rebound_every_step(loader):
    model = Encoder()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for x in loader:
        optimizer.zero_grad()
        model(x).sum().backward()
        params = model.parameters()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        optimizer.step()


def overriding_class():
    model = ListParams()
    params = model.parameters()
    optimizer = torch.optim.SGD(params, lr=0.1)
    torch.nn.utils.clip_grad_norm_(params, 1.0)
    return optimizer


def scalar_network():
    net = Value()
    params = net.parameters()
    for p in params:
        p.data.zero_()
    return torch.optim.SGD(params, lr=0.1)


def unknown_receiver(model):
    params = model.parameters()
    optimizer = torch.optim.SGD(params, lr=0.1)
    torch.nn.utils.clip_grad_norm_(params, 1.0)
    return optimizer


def first_use_maybe_skipped(use_adam):
    model = Encoder()
    params = model.parameters()
    if use_adam:
        print(sum(p.numel() for p in params))
    return torch.optim.SGD(params, lr=0.1)


def first_loop_breaks():
    model = Encoder()
    params = model.parameters()
    for p in params:
        first = p
        break
    print(first.shape)
    return torch.optim.SGD(params, lr=0.1)


def handed_to_unknown_code(make_optimizer):
    model = Encoder()
    params = model.parameters()
    optimizer = make_optimizer(params)
    print(params)
    return optimizer


def logged_on_first_step_only(loader):
    model = Encoder()
    params = model.parameters()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for step, x in enumerate(loader):
        if step == 0:
            print("parameters:", sum(p.numel() for p in params))
        optimizer.zero_grad()
        model(x).sum().backward()
        optimizer.step()


def clipped_once_then_stop(loader):
    model = Encoder()
    params = model.parameters()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for x in loader:
        optimizer.zero_grad()
        model(x).sum().backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        optimizer.step()
        break


def read_by_closure():
    model = Encoder()
    params = model.parameters()
    optimizer = torch.optim.LBFGS(params)

    def closure():
        optimizer.zero_grad()
        loss = model(torch.randn(2, 16)).sum()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        return loss

    optimizer.step(closure)


def single_use_generator():
    model = Encoder()
    trainable = filter(lambda p: p.requires_grad, model.parameters())
    return torch.optim.Adam(trainable, lr=1e-3)


def shadowed_filter(model_parameters):
    def filter(predicate, items):
        return [x for x in items if predicate(x)]

    model = Encoder()
    trainable = filter(lambda p: p.requires_grad, model.parameters())
    optimizer = torch.optim.Adam(trainable, lr=1e-3)
    torch.nn.utils.clip_grad_norm_(trainable, 1.0)
    return optimizer
