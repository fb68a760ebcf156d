"""Category GG403 - FIXED version: the image is cast first, then made a leaf that requires grad.

A saliency-map script loads an image as a float64 NumPy array, wraps it and
casts it to float32 for the model. The buggy version turned on requires_grad
before the cast and read .grad of the (non-leaf) float32 copy, which is None. The
fix casts first and calls requires_grad_() on the float32 tensor, so the tensor
whose .grad is read is the leaf that receives the gradient.

Modelled on: https://github.com/pytorch/pytorch/issues/10065
"""
import argparse
import os
import sys
import tempfile
import warnings

import numpy as np
import torch
import torch.nn as nn

parser = argparse.ArgumentParser()
parser.add_argument("--size", type=int, default=24)
parser.add_argument("--num-classes", type=int, default=6)
parser.add_argument("--target", type=int, default=2)


class TinyVGG(nn.Module):
    def __init__(self, num_classes):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2))
        self.classifier = nn.Sequential(nn.Flatten(), nn.LazyLinear(32), nn.ReLU(), nn.Linear(32, num_classes))

    def forward(self, x):
        return self.classifier(self.features(x))


def load_image(size):
    """Stand-in for skimage/PIL loading: HWC float64 in [0, 1]."""
    rng = np.random.default_rng(0)
    return rng.random((size, size, 3))


def preprocess(arr, device):
    img = torch.from_numpy(arr.transpose(2, 0, 1)).unsqueeze(0)
    img = img.float().to(device)
    img.requires_grad_(True)  # fixed: GG403
    return img


def compute_saliency(model, img, target):
    model.eval()
    scores = model(img)
    scores[0, target].backward()
    saliency = img.grad.abs().max(dim=1)[0]
    return saliency / (saliency.max() + 1e-12)


def main(args):
    device = torch.device("cpu")
    model = TinyVGG(args.num_classes).to(device)
    img = preprocess(load_image(args.size), device)
    saliency = compute_saliency(model, img, args.target)
    with tempfile.TemporaryDirectory() as tmp:
        torch.save(saliency, os.path.join(tmp, "saliency.pt"))
    return saliency


if __name__ == "__main__":
    torch.manual_seed(0)
    sal = main(parser.parse_args([]))
    assert sal.shape == (1, 24, 24) and float(sal.max()) > 0
    print("FIXED: ok")
