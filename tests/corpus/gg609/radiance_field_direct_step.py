"""A radiance-field trainer that scales its loss but steps the optimizer directly.

Modelled on the training example discussed in
https://github.com/nerfstudio-project/nerfacc/issues/307 (a GradScaler built with an initial
scale of 2**10, `grad_scaler.scale(loss).backward()` followed by `optimizer.step()`: the
maintainer agreed it amounts to `(loss * 1024).backward()`), and on the pattern removed by
https://github.com/IAHispano/Applio/pull/860. Written from scratch.
"""

import torch
import torch.nn.functional as F
from torch import nn

device = "cuda" if torch.cuda.is_available() else "cpu"


class RadianceField(nn.Module):
    def __init__(self, width=32):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(3, width), nn.ReLU(), nn.Linear(width, 4))

    def forward(self, points):
        return self.mlp(points)


radiance_field = RadianceField().to(device)
optimizer = torch.optim.Adam(radiance_field.parameters(), lr=1e-2, eps=1e-15)
scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[50, 80], gamma=0.33)
grad_scaler = torch.cuda.amp.GradScaler(2**10)

for step in range(100):
    points = torch.rand(256, 3, device=device)
    target = torch.rand(256, 3, device=device)
    rgb_sigma = radiance_field(points)
    loss = F.smooth_l1_loss(torch.sigmoid(rgb_sigma[:, :3]), target)
    optimizer.zero_grad()
    grad_scaler.scale(loss).backward()
    optimizer.step()  # expect: GG609
    scheduler.step()
    if step % 50 == 0:
        print(step, loss.item())
