"""GG405: optimizer given a non-leaf tensor.

Mistake: a dataset-distillation (gradient matching) script creates its learnable
synthetic images with ``torch.randn(..., requires_grad=True) * init_scale``.
The multiplication happens after the leaf was created, so ``image_syn`` is the
non-leaf output of a multiply, and the optimizer that should learn the
synthetic images rejects it.
torch raises: ValueError: can't optimize a non-leaf Tensor
Modelled on: https://github.com/pytorch/pytorch/issues/140469
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F

parser = argparse.ArgumentParser("gradient-matching dataset distillation")
parser.add_argument("--dlipc", type=int, default=2, help="synthetic images per class")
parser.add_argument("--dllr_img", type=float, default=0.1)
parser.add_argument("--dldevice", default="cpu")
parser.add_argument("--init_scale", type=float, default=0.01)
parser.add_argument("--iterations", type=int, default=3)
parser.add_argument("--real_batch", type=int, default=16)
parser.add_argument("--num_classes", type=int, default=3)
parser.add_argument("--channel", type=int, default=1)
parser.add_argument("--im_size", type=int, nargs=2, default=[8, 8])


class ConvNet(nn.Module):
    def __init__(self, channel, num_classes, im_size, width=16):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(channel, width, 3, padding=1), nn.GroupNorm(4, width), nn.ReLU(),
                                      nn.AvgPool2d(2))
        self.fc = nn.Linear(width * (im_size[0] // 2) * (im_size[1] // 2), num_classes)

    def forward(self, x):
        return self.fc(self.features(x).flatten(1))


def match_loss(gw_syn, gw_real):
    dist = 0.0
    for gs, gr in zip(gw_syn, gw_real):
        if gs.dim() == 1:
            continue
        gs, gr = gs.flatten(1), gr.flatten(1)
        dist = dist + (1 - F.cosine_similarity(gs, gr, dim=1)).sum()
    return dist


def get_real_batch(images_all, indices_class, c, n):
    idx = indices_class[c][torch.randperm(len(indices_class[c]))[:n]]
    return images_all[idx]


def distill(args, images_all, labels_all):
    num_classes, channel, im_size = args.num_classes, args.channel, args.im_size
    indices_class = [torch.nonzero(labels_all == c).squeeze(1) for c in range(num_classes)]
    image_syn = torch.randn(size=(num_classes * args.dlipc, channel, im_size[0], im_size[1]), dtype=torch.float,
                            requires_grad=True, device=args.dldevice) * args.init_scale
    label_syn = torch.arange(num_classes, device=args.dldevice).repeat_interleave(args.dlipc)
    optimizer_img = torch.optim.SGD([image_syn, ], lr=args.dllr_img, momentum=0.5)  # bug: GG405
    for it in range(args.iterations):
        net = ConvNet(channel, num_classes, im_size).to(args.dldevice)
        params = list(net.parameters())
        loss = 0.0
        for c in range(num_classes):
            img_real = get_real_batch(images_all, indices_class, c, args.real_batch)
            lab_real = torch.full((img_real.size(0),), c, dtype=torch.long)
            gw_real = [g.detach() for g in torch.autograd.grad(F.cross_entropy(net(img_real), lab_real), params)]
            img_syn_c = image_syn[c * args.dlipc:(c + 1) * args.dlipc]
            lab_syn_c = label_syn[c * args.dlipc:(c + 1) * args.dlipc]
            gw_syn = torch.autograd.grad(F.cross_entropy(net(img_syn_c), lab_syn_c), params, create_graph=True)
            loss = loss + match_loss(gw_syn, gw_real)
        optimizer_img.zero_grad()
        loss.backward()
        optimizer_img.step()
        print(f"iter {it}: matching loss {loss.item():.4f}")
    return image_syn.detach(), label_syn


def main():
    args = parser.parse_args([])
    torch.manual_seed(0)
    images_all = torch.randn(60, args.channel, *args.im_size)
    labels_all = torch.arange(60) % args.num_classes
    distill(args, images_all, labels_all)


if __name__ == "__main__":
    try:
        main()
    except ValueError as err:
        print("BUGGY:", str(err).splitlines()[0])
    else:
        raise SystemExit("NO BUG")
