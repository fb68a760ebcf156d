"""FIXED version. LaMa-style feature refinement: requires_grad forced on a loss with no history.

Modelled on: https://github.com/advimman/lama/issues/141

During prediction with feature refinement, the refinement loss is meant to
compare the downscaled prediction with the known (unmasked) pixels and
optimise the intermediate features.  In this version `_pyramid_loss()`
compares two versions of the *input image* (the prediction argument is
never used), so the loss has no autograd history.  `loss.backward()` raised
"element 0 of tensors does not require grad", and the user "fixed" it with
`loss.requires_grad = True`: backward now runs, the features never receive a
gradient and the loss stays constant - exactly what the report describes.
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


class Encoder(nn.Module):
    def __init__(self, ch=4):
        super().__init__()
        self.conv = nn.Conv2d(4, ch, 3, padding=1)

    def forward(self, x):
        return F.relu(self.conv(x))


class Decoder(nn.Module):
    def __init__(self, ch=4):
        super().__init__()
        self.conv = nn.Conv2d(ch, 3, 3, padding=1)

    def forward(self, z):
        return torch.sigmoid(self.conv(z))


class InpaintingModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder, self.decoder = Encoder(), Decoder()
        for p in self.parameters():
            p.requires_grad_(False)


def _pyramid_loss(pred, image, mask, scales=(1, 2)):
    loss = 0.0
    for s in scales:
        pred_s = F.avg_pool2d(pred, s) if s > 1 else pred
        img_s = F.avg_pool2d(image, s) if s > 1 else image
        known = 1 - (F.max_pool2d(mask, s) if s > 1 else mask)
        loss = loss + F.l1_loss(pred_s * known, img_s * known)
    return loss


def refine_predict(model, image, mask, n_iters, lr):
    with torch.no_grad():
        z = model.encoder(torch.cat([image * (1 - mask), mask], dim=1))
    z = z.clone().requires_grad_(True)
    opt = torch.optim.Adam([z], lr=lr)
    history = []
    for _ in range(n_iters):
        opt.zero_grad()
        pred = model.decoder(z)
        loss = _pyramid_loss(pred, image, mask)
        loss.backward()
        opt.step()
        history.append(loss.item())
    return model.decoder(z).detach(), z, history


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--n-iters", type=int, default=5)
    p.add_argument("--lr", type=float, default=0.05)
    args = p.parse_args(argv)
    torch.manual_seed(0)
    model = InpaintingModel()
    image = torch.rand(1, 3, 8, 8)
    mask = (torch.rand(1, 1, 8, 8) > 0.7).float()
    out, z, history = refine_predict(model, image, mask, args.n_iters, args.lr)
    if z.grad is None or history[-1] >= history[0]:
        print(f"BUGGY: backward ran but the refined features got no gradient (loss stuck at {history[0]:.4f})")
    else:
        print("FIXED: ok")


if __name__ == "__main__":
    main([])
