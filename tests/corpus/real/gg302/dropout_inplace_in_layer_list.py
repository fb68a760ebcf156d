"""A classifier head built from a list of layers: `Linear, ReLU, Dropout(inplace=True),
Linear`. The ReLU keeps its output for the backward, the in-place dropout then overwrites
it, and backward raises "modified by an inplace operation: [...] which is output 0 of
ReluBackward0". The answer in the thread: `nn.Dropout(dropout, inplace=False)`.

Source (rewritten in our own words, structure kept):
https://github.com/BierOne/bottom-up-attention-vqa/issues/6 (`model/classifier.py`)

The layers are listed in a local list that is only unpacked into `nn.Sequential(*layers)`:
the container runs exactly those layers in that order (see `analysis/layer_lists.py`).
"""

import torch
from torch import nn


class SimpleClassifier(nn.Module):
    def __init__(self, in_dim: int, hid_dim: int, out_dim: int, dropout: float) -> None:
        super().__init__()
        layers = [
            nn.Linear(in_dim, hid_dim),
            nn.ReLU(),
            nn.Dropout(dropout, inplace=True),  # expect: GG302
            nn.Linear(hid_dim, out_dim),
        ]
        self.main = nn.Sequential(*layers)

    def forward(self, x):
        return self.main(x)


def train(model, train_loader, num_epochs):
    optim = torch.optim.Adamax(model.parameters())
    for epoch in range(num_epochs):
        for v, a in train_loader:
            pred = model(v)
            loss = nn.functional.binary_cross_entropy_with_logits(pred, a)
            loss.backward()
            optim.step()
            optim.zero_grad()


if __name__ == "__main__":
    data = [(torch.randn(4, 8), torch.rand(4, 3))]
    try:
        train(SimpleClassifier(8, 16, 3, 0.5), data, 1)
    except RuntimeError as error:
        assert "modified by an inplace operation" in str(error)
    else:
        raise AssertionError("expected the in-place error")
