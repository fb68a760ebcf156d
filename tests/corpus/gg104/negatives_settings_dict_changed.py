"""Look-alike of `settings_dict_built_model_frozen.py`: the settings dict is changed.

`main()` stores a learnable scale (a tensor that requires grad) into the settings dict
before the model is built from it. The model keeps that tensor and multiplies by it in
`forward`, so after `requires_grad_(False)` on every registered parameter its output still
has history and `loss.backward()` runs (checked with torch 2.13.0). Since code of the file
changes the dict, nothing read from it is known: silent.
"""

import torch
from torch import nn

SETTINGS = {"dim": 8, "scale": 1.0}


class Scaled(nn.Module):
    def __init__(self, dim, scale):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.scale = scale

    def forward(self, x):
        return self.proj(x) * self.scale


def freeze(model):
    model.requires_grad_(False)


def train(model, batches):
    for x in batches:
        loss = model(x).pow(2).mean()
        loss.backward()


def main():
    c = SETTINGS
    c["scale"] = torch.ones(1, requires_grad=True)
    model = Scaled(c["dim"], c["scale"])
    freeze(model)
    train(model, [torch.randn(3, 8)])
    assert c["scale"].grad is not None


if __name__ == "__main__":
    main()
