"""A helper that thaws the layers its caller names, called with names no layer has.

Fine-tuning scripts often freeze the whole network in a helper and turn the layers listed in
the settings back on by name (the helper of the PyTorch docs' `requires_grad_` example). The
settings here say `decoder`, but the speech model, whose output layer the script replaced
for a new alphabet, calls it `readout`: no name starts with `decoder`, nothing is thawed,
and the first backward() raises "element 0 of tensors does not require grad and does not
have a grad_fn" (checked with torch 2.13.0). Modelled on the mistake of
https://github.com/open-mmlab/mmdetection/issues/4040 (a name test matching no parameter).
"""

import torch
from torch import nn
import torch.nn.functional as F

SETTINGS = {"thaw": ["decoder"], "letters": 12, "lr": 1e-3}


class SpeechModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.frontend = nn.Conv1d(8, 16, 3, padding=1)
        self.norm = nn.BatchNorm1d(16)
        self.readout = nn.Linear(16, 30)

    def forward(self, frames):
        hidden = torch.relu(self.norm(self.frontend(frames)))
        return self.readout(hidden.transpose(1, 2))


def thaw_only(model, prefixes):
    model.requires_grad_(False)  # expect: GG104
    for name, weight in model.named_parameters():
        if any(name.startswith(prefix) for prefix in prefixes):
            weight.requires_grad = True


def train(model, steps):
    optimizer = torch.optim.Adam(model.parameters(), lr=SETTINGS["lr"])
    for _ in range(steps):
        frames = torch.randn(4, 8, 20)
        letters = torch.randint(0, SETTINGS["letters"], (4, 20))
        loss = F.cross_entropy(model(frames).flatten(0, 1), letters.flatten())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def main():
    model = SpeechModel()
    model.readout = nn.Linear(16, SETTINGS["letters"])
    thaw_only(model, SETTINGS["thaw"])
    train(model, 2)


if __name__ == "__main__":
    main()
