"""Losses kept in dicts filled key by key, and models kept in plain dicts and lists (GG101).

Trainers often build `losses = {}` and store each term under its name, and keep their
networks in `self.models = {"encoder": ..., "depth": ...}` (monodepth2's layout). Values read
back by a known key keep what is known of them; a dict whose keys or contents may change is
not trusted. The look-alikes at the end are correct code and must stay silent.
"""

import torch
from torch import nn

criterion = nn.L1Loss()


class Trainer:
    def __init__(self) -> None:
        self.models = {}
        self.models["encoder"] = nn.Linear(6, 4)
        self.models["depth"] = nn.Linear(4, 1)
        self.heads = [nn.Linear(4, 2), nn.Linear(4, 3)]

    def validate_then_step(self, images, depth):
        with torch.no_grad():  # expect: GG101
            features = self.models["encoder"](images)
            losses = {"depth": criterion(self.models["depth"](features), depth)}
        losses["depth"].backward()

    def head_loss(self, images):
        with torch.no_grad():  # expect: GG101
            features = self.models["encoder"](images)
            logits = self.heads[0](features)
        logits.sum().backward()

    def training_step(self, images, depth):
        # Correct: the same layout with recording on.
        features = self.models["encoder"](images)
        losses = {"depth": criterion(self.models["depth"](features), depth)}
        losses["depth"].backward()


def terms_by_name(model, x, y):
    losses = {}
    with torch.no_grad():  # expect: GG101
        losses["l1"] = criterion(model(x), y)
    losses["l1"].backward()


# -- look-alikes ------------------------------------------------------------------------------


def replaced_before_backward(model, x, y):
    # The key is stored again, with recording on, before backward().
    losses = {}
    with torch.no_grad():
        losses["l1"] = criterion(model(x), y)
    print(float(losses["l1"]))
    losses["l1"] = criterion(model(x), y)
    losses["l1"].backward()


def keys_not_known(model, x, y, name):
    # A key computed at run time may be any key: "l1" is not known to be the no-grad one.
    losses = {"l1": criterion(model(x), y)}
    with torch.no_grad():
        losses[name] = criterion(model(x), y)
    losses["l1"].backward()


class SwappedEncoder:
    """The dict of models is changed by another method: its contents are not trusted."""

    def __init__(self) -> None:
        self.models = {"encoder": nn.Linear(6, 4)}

    def use_trainable(self, encoder):
        self.models["encoder"] = encoder

    def step(self, images):
        features = self.models["encoder"](images)
        features.sum().backward()
