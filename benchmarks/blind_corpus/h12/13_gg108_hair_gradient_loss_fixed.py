"""GG108 - fixed version: the soft hair probability replaces the argmax mask.

ImageGradientLoss uses softmax(logits)[:, 1] (probability of "hair") instead of
argmax(...).float(), so the loss is differentiable w.r.t. the network.

Modelled on: https://github.com/wonbeomjang/mobile-hair-segmentation-pytorch/issues/3
"""
import argparse
import sys
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

parser = argparse.ArgumentParser()
parser.add_argument("--img_size", type=int, default=32)
parser.add_argument("--lr", type=float, default=1e-4)
parser.add_argument("--stage", type=str, default="gradient_finetune")
parser.add_argument("--num_epochs", type=int, default=1)


class HairMattingNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.down = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                                  nn.Conv2d(16, 32, 3, padding=1), nn.ReLU())
        self.up = nn.Sequential(nn.Upsample(scale_factor=2), nn.Conv2d(32, 16, 3, padding=1), nn.ReLU(),
                                nn.Conv2d(16, 2, 1))

    def forward(self, x):
        return self.up(self.down(x))


class ImageGradientLoss(nn.Module):
    def __init__(self):
        super().__init__()
        sobel_x = torch.tensor([[1., 0., -1.], [2., 0., -2.], [1., 0., -1.]]).view(1, 1, 3, 3)
        self.register_buffer("kx", sobel_x)
        self.register_buffer("ky", sobel_x.transpose(2, 3).contiguous())

    def grads(self, t):
        return F.conv2d(t, self.kx, padding=1), F.conv2d(t, self.ky, padding=1)

    def forward(self, logits, image):
        size = logits.size()
        pred = logits.softmax(1)[:, 1:2]
        gray = image.mean(dim=1, keepdim=True)
        gx_i, gy_i = self.grads(gray)
        gx_m, gy_m = self.grads(pred)
        mag_i = torch.sqrt(gx_i ** 2 + gy_i ** 2 + 1e-6)
        mag_m = torch.sqrt(gx_m ** 2 + gy_m ** 2 + 1e-6)
        align = (gx_i * gx_m + gy_i * gy_m) / (mag_i * mag_m)
        return (mag_m * (1 - align ** 2)).sum() / (mag_m.sum() + 1e-6)


def run_epoch(net, loader, criterion, optimizer, epoch):
    net.train()
    for step, (image, mask) in enumerate(loader):
        logits = net(image)
        loss = criterion(logits, image)
        optimizer.zero_grad()
        loss.backward()  # fixed: GG108
        optimizer.step()
        print(f"[{epoch}/{step}] gradient loss {loss.item():.4f}")


def main(argv=None):
    args = parser.parse_args(argv or [])
    torch.manual_seed(0)
    images = torch.rand(8, 3, args.img_size, args.img_size)
    masks = (torch.rand(8, 1, args.img_size, args.img_size) > 0.5).float()
    loader = DataLoader(TensorDataset(images, masks), batch_size=4, shuffle=True)
    net = HairMattingNet()
    optimizer = torch.optim.Adam(net.parameters(), lr=args.lr)
    criterion = ImageGradientLoss()
    for epoch in range(args.num_epochs):
        run_epoch(net, loader, criterion, optimizer, epoch)


if __name__ == "__main__":
    main()
    print("FIXED: ok")
