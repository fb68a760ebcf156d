"""GG405 - optimizer given a non-leaf tensor (scaled after requires_grad=True).

FIXED version. Original mistake: dataset distillation by distribution matching.  The learnable
synthetic images are created as ``torch.randn(..., requires_grad=True) * 0.01``
to start them small; the multiplication makes the result a non-leaf (it has a
``MulBackward0`` grad_fn), and the optimizer refuses it.

torch raised (buggy version): ValueError: can't optimize a non-leaf Tensor
Fix: scale first, then mark the result as requiring grad (it is then a leaf).

Modelled on: https://github.com/pytorch/pytorch/issues/140469
"""
import argparse
import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F


def parse_args():
    p = argparse.ArgumentParser("distribution-matching distillation")
    p.add_argument("--num-classes", type=int, default=3)
    p.add_argument("--ipc", type=int, default=2, help="synthetic images per class")
    p.add_argument("--iterations", type=int, default=5)
    p.add_argument("--lr-img", type=float, default=1.0)
    p.add_argument("--im-size", type=int, default=12)
    p.add_argument("--device", default="cpu")
    return p.parse_args([])


class EmbedNet(nn.Module):
    def __init__(self, channel=3, width=16):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(channel, width, 3, padding=1), nn.GroupNorm(4, width), nn.ReLU(), nn.AvgPool2d(2),
            nn.Conv2d(width, width, 3, padding=1), nn.GroupNorm(4, width), nn.ReLU(), nn.AvgPool2d(2),
        )

    def forward(self, x):
        return self.features(x).flatten(1)


def real_batch_for_class(c, n, im_size, device):
    return (torch.randn(n, 3, im_size, im_size) + 0.3 * c).to(device)


def distill(args):
    device = torch.device(args.device)
    n_syn = args.num_classes * args.ipc
    image_syn = (torch.randn(n_syn, 3, args.im_size, args.im_size,
                             device=device) * 0.01).requires_grad_(True)
    label_syn = torch.arange(args.num_classes).repeat_interleave(args.ipc)
    optimizer_img = torch.optim.SGD([image_syn], lr=args.lr_img, momentum=0.5)  # fixed: GG405
    for it in range(args.iterations):
        net = EmbedNet().to(device)
        net.requires_grad_(False)
        loss = torch.zeros((), device=device)
        for c in range(args.num_classes):
            real = real_batch_for_class(c, 16, args.im_size, device)
            syn = image_syn[label_syn == c]
            loss = loss + F.mse_loss(net(real).mean(0), net(syn).mean(0), reduction="sum")
        optimizer_img.zero_grad()
        loss.backward()
        optimizer_img.step()
        print(f"iter {it}: matching loss {loss.item():.4f}")
    return image_syn.detach(), label_syn


def main():
    args = parse_args()
    torch.manual_seed(0)
    images, labels = distill(args)
    out = os.path.join(tempfile.mkdtemp(), "syn_set.pt")
    torch.save({"images": images, "labels": labels}, out)
    print(f"saved {len(images)} synthetic images")


if __name__ == "__main__":
    main()
    print("FIXED: ok")
