"""Look-alikes of features encoded once before an epoch loop whose optimizer step changes
the encoder (see features_encoded_once_before_epochs.py). Each runs under torch 2.13.0:

* the encoding is computed again at the top of every epoch;
* the encoding is computed without recording (`torch.no_grad()`);
* the optimizer trains the head only, so the encoder's weights never change;
* the encoder is a single `nn.Linear` on plain data, which keeps no weight for backward;
* the loop runs once;
* the loop stops after its first step (early stopping that always triggers here);
* the step runs once, after the loop.
"""

import torch
from torch import nn


class Encoder(nn.Module):
    def __init__(self, in_dim=6, hidden=12):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(in_dim, hidden), nn.Tanh(), nn.Linear(hidden, hidden))
        self.project = nn.Linear(in_dim, hidden)
        self.head = nn.Linear(hidden, 1)

    def encode(self, feats):
        return self.body(feats)

    def encode_linear(self, feats):
        return self.project(feats)

    def forward(self, h):
        return self.head(h).squeeze(-1)


def data():
    return torch.randn(10, 6), torch.randn(10)


def encoded_every_epoch():
    feats, target = data()
    model = Encoder()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    for epoch in range(3):
        h = model.encode(feats)
        loss = nn.functional.mse_loss(model(h), target)
        optimizer.zero_grad()
        loss.backward(retain_graph=True)
        optimizer.step()


def encoded_without_recording():
    feats, target = data()
    model = Encoder()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    with torch.no_grad():
        h = model.encode(feats)
    for epoch in range(3):
        loss = nn.functional.mse_loss(model(h), target)
        optimizer.zero_grad()
        loss.backward(retain_graph=True)
        optimizer.step()


def head_only_optimizer():
    feats, target = data()
    model = Encoder()
    optimizer = torch.optim.SGD(model.head.parameters(), lr=0.05)
    h = model.encode(feats)
    for epoch in range(3):
        loss = nn.functional.mse_loss(model(h), target)
        optimizer.zero_grad()
        loss.backward(retain_graph=True)
        optimizer.step()


def linear_encoder_on_data():
    feats, target = data()
    model = Encoder()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    h = model.encode_linear(feats)
    for epoch in range(3):
        loss = nn.functional.mse_loss(model(h), target)
        optimizer.zero_grad()
        loss.backward(retain_graph=True)
        optimizer.step()


def single_epoch():
    feats, target = data()
    model = Encoder()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    h = model.encode(feats)
    for epoch in range(1):
        loss = nn.functional.mse_loss(model(h), target)
        optimizer.zero_grad()
        loss.backward(retain_graph=True)
        optimizer.step()


def stops_early():
    feats, target = data()
    model = Encoder()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    h = model.encode(feats)
    for epoch in range(3):
        loss = nn.functional.mse_loss(model(h), target)
        optimizer.zero_grad()
        loss.backward(retain_graph=True)
        optimizer.step()
        if loss.item() < 1e6:
            break


def stepped_after_the_loop():
    feats, target = data()
    model = Encoder()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    h = model.encode(feats)
    optimizer.zero_grad()
    for epoch in range(3):
        loss = nn.functional.mse_loss(model(h), target)
        loss.backward(retain_graph=True)
    optimizer.step()


if __name__ == "__main__":
    encoded_every_epoch()
    encoded_without_recording()
    head_only_optimizer()
    linear_encoder_on_data()
    single_epoch()
    stops_early()
    stepped_after_the_loop()
    print("all ran")
