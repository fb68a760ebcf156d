"""Look-alike: softmax for top-k prediction, log of it (clamped) for nll_loss.

Modelled on: https://github.com/re9ulus/BC-ResNet/issues/1 (counterpart)

The model returns probabilities (it is used for ensembling, where averaging
probabilities is intended); the training loop takes torch.log of the
averaged probabilities before F.nll_loss, so nll_loss receives log-probs.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Member(nn.Module):
    def __init__(self, n_classes=12):
        super().__init__()
        self.conv = nn.Conv2d(1, 8, 5, stride=2, padding=2)
        self.head = nn.Linear(8, n_classes)

    def forward(self, x):
        return F.softmax(self.head(F.relu(self.conv(x)).mean(dim=(2, 3))), dim=-1)


class Ensemble(nn.Module):
    def __init__(self, k=2):
        super().__init__()
        self.members = nn.ModuleList([Member() for _ in range(k)])

    def forward(self, x):
        return torch.stack([m(x) for m in self.members]).mean(0)


if __name__ == "__main__":
    torch.manual_seed(0)
    model = Ensemble()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    spec, label = torch.randn(4, 1, 20, 20), torch.randint(0, 12, (4,))
    probs = model(spec)
    loss = F.nll_loss(torch.log(probs.clamp_min(1e-8)), label)
    opt.zero_grad()
    loss.backward()
    opt.step()
    top1 = probs.argmax(-1)
    assert loss.item() > 0 and top1.shape == (4,)
    print("OK")
