"""Helpers that thaw the layers their callers name, where some layer is thawed after all.

Look-alikes of `unfreeze_prefixes_passed_by_the_caller.py`, each of which trains (torch
2.13.0): a caller that extends its list of names before the call; a helper that adds the
head to the list it is given; a call passing the names through `**options`; a caller whose
own local settings shadow the module's; a name test that also reads a flag of the
environment; and a model given a new layer from outside under the name the settings list.
"""

import os

import torch
from torch import nn
import torch.nn.functional as F

SETTINGS = {"thaw": ["decoder"], "letters": 12}


class SpeechModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.frontend = nn.Conv1d(8, 16, 3, padding=1)
        self.readout = nn.Linear(16, 30)

    def forward(self, frames):
        return self.readout(torch.relu(self.frontend(frames)).transpose(1, 2))


class StackedModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(8, 16), nn.ReLU())

    def forward(self, frames):
        return self.body(frames.transpose(1, 2))


def thaw_listed(model, prefixes):
    model.requires_grad_(False)
    for name, weight in model.named_parameters():
        if any(name.startswith(prefix) for prefix in prefixes):
            weight.requires_grad = True


def thaw_with_readout(model, prefixes):
    prefixes.append("readout")
    model.requires_grad_(False)
    for name, weight in model.named_parameters():
        if any(name.startswith(prefix) for prefix in prefixes):
            weight.requires_grad = True


def thaw_named(model, keys):
    model.requires_grad_(False)
    for name, weight in model.named_parameters():
        if any(name.startswith(key) for key in keys):
            weight.requires_grad = True


def thaw_unless_told(model, wanted):
    model.requires_grad_(False)
    for name, weight in model.named_parameters():
        if any(name.startswith(w) for w in wanted) or os.environ.get("THAW_ALL", "1") == "1":
            weight.requires_grad = True


def thaw_given(model, chosen):
    model.requires_grad_(False)
    for name, weight in model.named_parameters():
        if any(name.startswith(c) for c in chosen):
            weight.requires_grad = True


def thaw_from_settings(model, picked):
    model.requires_grad_(False)
    for name, weight in model.named_parameters():
        if any(name.startswith(p) for p in picked):
            weight.requires_grad = True


def step(model):
    frames = torch.randn(4, 8, 20)
    letters = torch.randint(0, SETTINGS["letters"], (4, 20))
    loss = F.cross_entropy(model(frames).flatten(0, 1), letters.flatten())
    loss.backward()
    return loss.item()


def extended_before_the_call():
    model = SpeechModel()
    names = ["decoder"]
    names.append("readout")
    thaw_listed(model, names)
    return step(model)


def extended_by_the_helper():
    model = SpeechModel()
    thaw_with_readout(model, ["decoder"])
    return step(model)


def passed_through_options():
    model = SpeechModel()
    options = {"keys": ["readout"]}
    thaw_named(model, **options)
    return step(model)


def flag_of_the_environment():
    model = SpeechModel()
    thaw_unless_told(model, ["decoder"])
    return step(model)


def local_settings():
    SETTINGS = {"thaw": ["readout"]}
    model = SpeechModel()
    thaw_from_settings(model, SETTINGS["thaw"])
    return step(model)


def layer_added_from_outside():
    model = StackedModel()
    model.body.decoder = nn.Linear(16, SETTINGS["letters"])
    thaw_given(model, ["body.decoder"])
    return step(model)


if __name__ == "__main__":
    extended_before_the_call()
    extended_by_the_helper()
    passed_through_options()
    flag_of_the_environment()
    local_settings()
    layer_added_from_outside()
    print("all trained")
