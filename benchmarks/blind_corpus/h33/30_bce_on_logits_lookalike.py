"""Look-alike: nn.BCELoss on an explicit sigmoid output.

Modelled on: https://github.com/yunlongdong/FCN-pytorch/issues/7 (counterpart)

The network's forward ends with torch.sigmoid, so BCELoss receives
probabilities as it expects; the logits are never given to BCELoss.
"""
import torch
import torch.nn as nn


class FCN(nn.Module):
    def __init__(self, n_class=2):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU())
        self.score = nn.Conv2d(8, n_class, 1)

    def forward(self, x):
        return torch.sigmoid(self.score(self.features(x)))


if __name__ == "__main__":
    g = torch.Generator().manual_seed(0)
    model = FCN()
    criterion = nn.BCELoss()
    opt = torch.optim.SGD(model.parameters(), lr=1e-2)
    for _ in range(2):
        img = torch.randn(2, 3, 16, 16, generator=g) * 3
        mask = (torch.rand(2, 2, 16, 16, generator=g) > 0.5).float()
        probs = model(img)
        loss = criterion(probs, mask)
        opt.zero_grad()
        loss.backward()
        opt.step()
    print("OK")
