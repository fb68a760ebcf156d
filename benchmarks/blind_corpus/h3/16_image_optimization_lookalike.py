"""GG405 look-alike (correct code).

A style-transfer-like loop optimises an input image plus a learnable
colour scale and a log-temperature.  Every optimised tensor is built with
arithmetic, but the arithmetic happens *before* requires_grad is switched
on (or inside nn.Parameter / from a python float), so all of them are
leaves and the optimizer accepts them.
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def gram(feat):
    b, c, h, w = feat.shape
    f = feat.view(b, c, h * w)
    return f @ f.transpose(1, 2) / (c * h * w)


def build_extractor():
    net = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 8, 3, padding=1), nn.ReLU())
    for p in net.parameters():
        p.requires_grad_(False)
    return net.eval()


def main():
    torch.manual_seed(0)
    extractor = build_extractor()
    content = torch.rand(1, 3, 16, 16)
    style = torch.rand(1, 3, 16, 16)
    target_feat = extractor(content)
    target_gram = gram(extractor(style))

    image = (content.clone() * 0.9 + 0.05).requires_grad_(True)
    colour = nn.Parameter(torch.ones(1, 3, 1, 1) * 1.0)
    log_tau = torch.tensor(math.log(0.5), requires_grad=True)
    opt = torch.optim.Adam([image, colour, log_tau], lr=0.05)

    start = image.detach().clone()
    for step in range(6):
        x = image * colour
        feat = extractor(x)
        loss = F.mse_loss(feat, target_feat) + 10 * F.mse_loss(gram(feat), target_gram)
        loss = loss * log_tau.exp()
        opt.zero_grad()
        loss.backward()
        opt.step()
        with torch.no_grad():
            image.clamp_(0, 1)
        print(f"step {step}: loss {loss.item():.5f} tau {log_tau.exp().item():.3f}")
    assert not torch.equal(start, image.detach())


if __name__ == "__main__":
    main()
    print("OK")
