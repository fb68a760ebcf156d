"""Class-model visualisation: optimise an input image to excite one class.

Modelled on: https://discuss.pytorch.org/t/how-to-define-a-leaf-tensor-in-pytorch-0-4-1/28461

The forum thread asks why setting `requires_grad = True` works in one place
and not another: once a tensor that requires grad goes through any recorded
operation (`.cuda()`, `* 2`, normalisation ...), the result is a non-leaf
with a grad_fn, and setting its requires_grad flag raises "you can only change
requires_grad flags of leaf variables".  Here the visualiser creates the random
image with requires_grad=True, normalises it with the dataset statistics, and
then tries to flag the normalised tensor as the thing to optimise.
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F

MEAN = torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1)
STD = torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1)


def get_args(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--target", type=int, default=3)
    p.add_argument("--size", type=int, default=32)
    p.add_argument("--steps", type=int, default=5)
    p.add_argument("--lr", type=float, default=0.1)
    p.add_argument("--l2", type=float, default=1e-3)
    return p.parse_args(argv)


class TinyClassifier(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1))
        self.classifier = nn.Linear(32, num_classes)

    def forward(self, x):
        return self.classifier(torch.flatten(self.features(x), 1))


def normalise(img):
    return (img - MEAN) / STD


def init_image(size, seed=0):
    g = torch.Generator().manual_seed(seed)
    raw = torch.rand(1, 3, size, size, generator=g, requires_grad=True)
    img = normalise(raw)
    img.requires_grad = True  # bug: GG401
    return img


class ClassVisualizer:
    def __init__(self, model, args):
        self.model = model.eval()
        for p in self.model.parameters():
            p.requires_grad_(False)
        self.args = args

    def objective(self, img):
        score = self.model(img)[0, self.args.target]
        return -score + self.args.l2 * img.pow(2).sum()

    def generate(self):
        img = init_image(self.args.size)
        optimizer = torch.optim.Adam([img], lr=self.args.lr)
        for _ in range(self.args.steps):
            optimizer.zero_grad()
            loss = self.objective(img)
            loss.backward()
            optimizer.step()
        return img.detach(), F.softmax(self.model(img), 1)[0, self.args.target].item()


def main(argv=None):
    torch.manual_seed(0)
    args = get_args(argv)
    return ClassVisualizer(TinyClassifier(), args).generate()


if __name__ == "__main__":
    try:
        img, prob = main([])
        print("no error", prob)
    except RuntimeError as err:
        print("BUGGY:", str(err).splitlines()[0])
