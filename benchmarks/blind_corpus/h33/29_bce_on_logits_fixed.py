"""Fixed: raw score maps go to nn.BCEWithLogitsLoss, which applies the sigmoid itself.

Modelled on: https://github.com/yunlongdong/FCN-pytorch/issues/7

The reporter notes that FCN-pytorch's train script uses BCELoss while the
network has no sigmoid at the end.  BCELoss expects probabilities in [0, 1];
the unbounded logits of the last conv make it raise "all elements of input
should be between 0 and 1" (or, when they happen to fall in range, compute a
meaningless loss).
"""
import torch
import torch.nn as nn


class FCN8s(nn.Module):
    def __init__(self, n_class=2):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(),
                                      nn.MaxPool2d(2), nn.Conv2d(8, 16, 3, padding=1), nn.ReLU())
        self.score = nn.Conv2d(16, n_class, 1)
        self.up = nn.ConvTranspose2d(n_class, n_class, 2, stride=2)

    def forward(self, x):
        return self.up(self.score(self.features(x)))


def train(fcn_model, loader, epochs=1):
    criterion = nn.BCEWithLogitsLoss()
    optimizer = torch.optim.SGD(fcn_model.parameters(), lr=1e-2, momentum=0.7)
    for _ in range(epochs):
        for batch in loader:
            optimizer.zero_grad()
            output = fcn_model(batch["A"])
            loss = criterion(output, batch["B"])
            loss.backward()
            optimizer.step()
    return fcn_model


def make_loader():
    g = torch.Generator().manual_seed(0)
    out = []
    for _ in range(2):
        img = torch.randn(2, 3, 16, 16, generator=g) * 3
        mask = (torch.rand(2, 1, 16, 16, generator=g) > 0.5).float()
        out.append({"A": img, "B": torch.cat([mask, 1 - mask], 1)})
    return out


if __name__ == "__main__":
    torch.manual_seed(0)
    m = train(FCN8s(), make_loader())
    assert m.score.weight.grad is not None
    print("FIXED: ok")
