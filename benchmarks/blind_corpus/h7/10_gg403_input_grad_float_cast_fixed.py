"""GG403 - .grad of a non-leaf tensor read (it is None without retain_grad()).

FIXED version. Original mistake: an input-attribution script.  The image arrives as a float64 NumPy
array; the user calls ``requires_grad_()`` on ``torch.from_numpy(img)`` and only
*then* converts it with ``.float().unsqueeze(0).to(device)``.  The converted
tensor is the output of a cast, a non-leaf, so after ``backward()`` its
``.grad`` is None (torch only emits a UserWarning) and the attribution code
crashes when it uses it.

Effect / error (buggy version): UserWarning "The .grad attribute of a Tensor that is not a leaf
Tensor is being accessed", then AttributeError: 'NoneType' object has no
attribute 'abs'.
Fix: convert first, then call ``requires_grad_()`` on the final tensor (a leaf).

Modelled on: https://github.com/Maghoumi/pytorch-softdtw-cuda/issues/25
"""
import argparse
import warnings

import numpy as np
import torch
import torch.nn as nn


def cli():
    ap = argparse.ArgumentParser(description="gradient x input attribution")
    ap.add_argument("--size", type=int, default=20)
    ap.add_argument("--classes", type=int, default=6)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--topk", type=int, default=5)
    return ap.parse_args([])


class SpectrogramCNN(nn.Module):
    def __init__(self, classes):
        super().__init__()
        self.conv = nn.Sequential(
            nn.Conv2d(1, 6, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(6, 12, 3, padding=1), nn.ReLU(), nn.AdaptiveMaxPool2d(1),
        )
        self.fc = nn.Linear(12, classes)

    def forward(self, x):
        return self.fc(self.conv(x).flatten(1))


def load_example(size, seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(1, size, size))  # float64, like most NumPy pipelines


def input_gradient(model, image_np, device, target=None):
    x = torch.from_numpy(image_np).float().unsqueeze(0).to(device)
    x.requires_grad_()
    logits = model(x)
    cls = int(logits.argmax()) if target is None else target
    logits[0, cls].backward()
    return x.grad.abs().squeeze(0)  # fixed: GG403


def top_pixels(attr, k):
    flat = attr.flatten()
    vals, idx = flat.topk(k)
    return [(int(i), float(v)) for i, v in zip(idx, vals)]


def main():
    args = cli()
    torch.manual_seed(0)
    device = torch.device(args.device)
    model = SpectrogramCNN(args.classes).to(device).eval()
    img = load_example(args.size)
    attr = input_gradient(model, img, device)
    print("most influential pixels:", top_pixels(attr, args.topk))


if __name__ == "__main__":
    warnings.simplefilter("error", UserWarning)
    main()
    print("FIXED: ok")
