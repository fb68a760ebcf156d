"""A deep copy is trained while the optimizer holds the original's parameters.

Modelled on skorch issue #317 ("module weights don't update after copy.deepcopy",
https://github.com/skorch-dev/skorch/issues/317): the net was copied after its optimizer had
been built, so fitting the copy stepped the original's parameters and the copy's weights
stayed frozen. Same shape here, written as a plain loop: `model` is copied to keep an
untouched starting point, and the copy is the one fed to the loss.
"""

import copy

import torch
from torch import nn
import torch.nn.functional as F


class Regressor(nn.Module):
    def __init__(self, features=28):
        super().__init__()
        self.hidden = nn.Linear(features, 32)
        self.out = nn.Linear(32, 1)

    def forward(self, x):
        return torch.sigmoid(self.out(torch.relu(self.hidden(x))))


def main(epochs=3):
    model = Regressor()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)  # expect: GG608
    candidate = copy.deepcopy(model)
    for epoch in range(epochs):
        for _ in range(4):
            x = torch.randn(16, 28)
            y = torch.rand(16, 1)
            loss = F.mse_loss(candidate(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch}: {loss.item():.4f}")
    return candidate


if __name__ == "__main__":
    main()
