"""Zero-shot restoration network with a Selective-Kernel (SK) convolution.

Modelled on: https://github.com/aupendu/zero-restore/issues/7

Fixed version: as in the author's fix, the branch sum starts from a .clone()
of the first branch output, so the in-place accumulation no longer touches
the ReLU result autograd saved for backward.
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)


class SKConv(nn.Module):
    def __init__(self, features, M=2, G=1, r=2, L=8):
        super().__init__()
        d = max(features // r, L)
        self.M = M
        self.convs = nn.ModuleList()
        for i in range(M):
            self.convs.append(nn.Sequential(
                nn.Conv2d(features, features, 3, 1, padding=1 + i, dilation=1 + i, groups=G),
                nn.BatchNorm2d(features),
                nn.ReLU(inplace=False)))
        self.fc = nn.Linear(features, d)
        self.fcs = nn.ModuleList(nn.Linear(d, features) for _ in range(M))
        self.softmax = nn.Softmax(dim=1)

    def forward(self, x):
        branch_outs = [conv(x) for conv in self.convs]
        feas = torch.stack(branch_outs, dim=1)
        fea_U = branch_outs[0].clone()
        for fea in branch_outs[1:]:
            fea_U += fea
        fea_s = fea_U.mean(-1).mean(-1)
        fea_z = self.fc(fea_s)
        attention = torch.stack([fc(fea_z) for fc in self.fcs], dim=1)
        attention = self.softmax(attention).unsqueeze(-1).unsqueeze(-1)
        return (feas * attention).sum(dim=1)


class RestorationNet(nn.Module):
    def __init__(self, ch=8):
        super().__init__()
        self.head = nn.Conv2d(3, ch, 3, 1, 1)
        self.sk = SKConv(ch)
        self.tail = nn.Conv2d(ch, 3, 3, 1, 1)

    def forward(self, x):
        return torch.sigmoid(self.tail(self.sk(F.relu(self.head(x)))))


def dark_channel_loss(restored, hazy):
    return F.l1_loss(restored, hazy) + restored.min(dim=1)[0].mean()


def restore(image, iters, lr):
    net = RestorationNet()
    optimizer = torch.optim.Adam(net.parameters(), lr=lr)
    for _ in range(iters):
        optimizer.zero_grad()
        loss = dark_channel_loss(net(image), image)
        loss.backward()
        optimizer.step()
    return net(image).detach()


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--iters", type=int, default=3)
    p.add_argument("--lr", type=float, default=1e-3)
    args = p.parse_args([])
    torch.manual_seed(0)
    hazy = torch.rand(1, 3, 16, 16)
    try:
        out = restore(hazy, args.iters, args.lr)
        assert out.shape == hazy.shape
        print("FIXED: ok")
    except RuntimeError as e:
        print(f"FAILED: {e}")
