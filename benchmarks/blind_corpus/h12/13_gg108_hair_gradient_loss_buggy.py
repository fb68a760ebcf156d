"""GG108 - loss computed from argmax of the logits only.

A hair-matting network is fine-tuned in a second stage with an image-gradient
consistency loss (the mask edges should follow the image edges). The loss module
turns the 2-class logits into a mask with argmax(...).float() before applying
Sobel filters. argmax has no gradient, so the loss is a constant w.r.t. the
network and backward() raises:
    RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn

Modelled on: https://github.com/wonbeomjang/mobile-hair-segmentation-pytorch/issues/3
(ImageGradientLoss built pred with argmax(1).float(), which is not differentiable).
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
        pred = logits.argmax(1).view(size[0], 1, size[2], size[3]).float()
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
        loss.backward()  # bug: GG108
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
    try:
        main()
    except RuntimeError as err:
        print(f"BUGGY: {str(err).splitlines()[0]}")
        sys.exit(0)
    raise SystemExit("NO BUG")
