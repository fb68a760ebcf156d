"""Category GG405 - optimizer given a non-leaf tensor.

Random-CNN voice style transfer optimises the spectrogram itself. The
spectrogram to optimise is created with requires_grad=True and *then* scaled
and moved to the device, so the tensor handed to the optimizer is the result
of an operation, not a leaf, and construction fails:
    ValueError: can't optimize a non-leaf Tensor
Modelled on: https://github.com/mazzzystar/randomCNN-voice-transfer/issues/16
(This file: fixed version - requires_grad is turned on after scaling and moving, so the tensor is a leaf.)
"""
import argparse

import torch
import torch.nn as nn

parser = argparse.ArgumentParser(description="random CNN voice transfer")
parser.add_argument("--n-fft-bins", type=int, default=33)
parser.add_argument("--n-frames", type=int, default=40)
parser.add_argument("--n-filters", type=int, default=32)
parser.add_argument("--style-weight", type=float, default=1.0)
parser.add_argument("--content-weight", type=float, default=1e2)
parser.add_argument("--lr", type=float, default=0.02)
parser.add_argument("--steps", type=int, default=5)
parser.add_argument("--init-scale", type=float, default=1e-3)

device = torch.device("cpu")


class RandomCNN(nn.Module):
    def __init__(self, in_ch, n_filters):
        super().__init__()
        self.conv1 = nn.Conv1d(in_ch, n_filters, kernel_size=5, padding=2)
        self.act = nn.LeakyReLU(0.2)
        for p in self.parameters():
            p.requires_grad_(False)

    def forward(self, x):
        return self.act(self.conv1(x))


def gram(x):
    b, c, t = x.shape
    f = x.view(b * c, t)
    return f @ f.t() / (c * t)


def compute_content_loss(a_C, a_G):
    return torch.mean((a_C - a_G) ** 2)


def compute_style_loss(a_S, a_G):
    return torch.sum((gram(a_S) - gram(a_G)) ** 2)


def transfer(model, content_s, style_s, args):
    a_C, a_S = model(content_s), model(style_s)
    a_G_var = (torch.randn(content_s.shape) * args.init_scale).to(device)
    a_G_var.requires_grad_(True)
    optimizer = torch.optim.Adam([a_G_var], lr=args.lr)  # fixed: GG405
    for step in range(args.steps):
        optimizer.zero_grad()
        a_G = model(a_G_var)
        content_loss = args.content_weight * compute_content_loss(a_C, a_G)
        style_loss = args.style_weight * compute_style_loss(a_S, a_G)
        loss = content_loss + style_loss
        loss.backward()
        optimizer.step()
        print(f"step {step}: content {content_loss.item():.4f} style {style_loss.item():.4f}")
    return a_G_var.detach()


def main(argv=None):
    args = parser.parse_args(argv)
    torch.manual_seed(0)
    content = torch.log1p(torch.rand(1, args.n_fft_bins, args.n_frames)).to(device)
    style = torch.log1p(torch.rand(1, args.n_fft_bins, args.n_frames) * 3).to(device)
    model = RandomCNN(args.n_fft_bins, args.n_filters).to(device)
    result = transfer(model, content, style, args)
    return result


if __name__ == "__main__":
    main([])
    print("FIXED: ok")
