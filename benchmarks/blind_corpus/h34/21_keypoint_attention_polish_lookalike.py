"""RK-Net style attention with the border suppressed through a constant mask.

Modelled on: https://github.com/AggMan96/RK-Net/issues/9 (counterpart)

Look-alike: slice assignments that zero the border still appear in forward(),
but they write into a freshly created ``border`` tensor (ones_like, no grad,
saved by nothing), which is then multiplied with the ReLU output out of place.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class USAM(nn.Module):
    def __init__(self, channels, polish=True):
        super().__init__()
        self.conv = nn.Conv2d(channels, 1, kernel_size=3, padding=1)
        self.bn = nn.BatchNorm2d(1)
        self.polish = polish

    def forward(self, x):
        att = F.relu(self.bn(self.conv(x)))
        if self.polish:
            border = torch.ones_like(att)
            border[:, :, :, 0] = 0
            border[:, :, :, -1] = 0
            border[:, :, 0, :] = 0
            border[:, :, -1, :] = 0
            att = att * border
        return x * att + x


class Backbone(nn.Module):
    def __init__(self, num_classes):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU())
        self.usam = USAM(8)
        self.head = nn.Linear(8, num_classes)

    def forward(self, x):
        return self.head(self.usam(self.stem(x)).mean(dim=(2, 3)))


if __name__ == "__main__":
    torch.manual_seed(0)
    imgs = torch.randn(16, 3, 12, 12)
    labels = torch.randint(0, 4, (16,))
    model = Backbone(4)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    for i in range(0, 16, 8):
        opt.zero_grad()
        F.cross_entropy(model(imgs[i:i + 8]), labels[i:i + 8]).backward()
        opt.step()
    print("OK")
