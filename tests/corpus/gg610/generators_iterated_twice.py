"""Generators of parameters bound to a name and iterated a second time."""

import itertools

import torch
from torch import nn


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 8)

    def forward(self, x):
        return self.fc(x)


class AutoEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = Encoder()
        self.decoder = nn.Linear(8, 16)

    def forward(self, x):
        return self.decoder(self.encoder(x))

    def configure(self):
        params = self.parameters()
        optimizer = torch.optim.Adam(params, lr=1e-3)
        return optimizer, torch.nn.utils.parameters_to_vector(params)  # expect: GG610


def freeze_then_optimize():
    model = Encoder()
    params = model.parameters()
    for p in params:
        p.requires_grad = False
    return torch.optim.SGD(params, lr=0.1)  # expect: GG610


def list_twice():
    model = nn.Sequential(nn.Linear(4, 4), nn.ReLU())
    named = model.named_parameters()
    names = [n for n, _ in named]
    values = dict(named)  # expect: GG610
    return names, values


def chained_gan_parameters(loader):
    gen_a = nn.Linear(4, 4)
    gen_b = nn.Linear(4, 4)
    params = itertools.chain(gen_a.parameters(), gen_b.parameters())
    optimizer = torch.optim.Adam(params, lr=2e-4)
    for x in loader:
        optimizer.zero_grad()
        (gen_a(x) + gen_b(x)).pow(2).mean().backward()
        torch.nn.utils.clip_grad_norm_(params, 5.0)  # expect: GG610
        optimizer.step()


def init_twice():
    model = AutoEncoder()
    weights = (p for p in model.parameters() if p.dim() > 1)
    with torch.no_grad():
        for w in weights:
            nn.init.xavier_uniform_(w)
    print("initialised", len(list(weights)))  # expect: GG610


def clip_every_epoch(loader, epochs):
    model = Encoder()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    to_clip = model.parameters()
    for epoch in range(epochs):
        for x in loader:
            optimizer.zero_grad()
            model(x).sum().backward()
            if epoch is not None:
                torch.nn.utils.clip_grad_value_(to_clip, 0.5)  # expect: GG610
            optimizer.step()


def weight_decay_groups():
    model = Encoder()
    params = model.parameters()
    decay = [p for p in params if p.dim() > 1]
    return torch.optim.AdamW(  # a group with no parameters
        [{"params": decay}, {"params": params, "weight_decay": 0.0}],  # expect: GG610
        lr=1e-3,
    )
