"""GG403 (fixed) - the gains are created as a leaf with the right shape.

Same test-time colour correction. The gains are created directly as
``torch.ones(1, 3, 1, 1, requires_grad=True)`` instead of reshaping a 1-D leaf with
``.view``, so ``gains`` is itself a leaf and backward() fills ``gains.grad``. The
buggy version read ``.grad`` of the reshaped non-leaf and got None:
  AttributeError: 'NoneType' object has no attribute 'norm'

Modelled on: https://github.com/pytorch/pytorch/issues/19778
"""
import argparse
import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F

warnings.filterwarnings("ignore", message="The .grad attribute")


def get_parser():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--img-size", type=int, default=16)
    parser.add_argument("--batch", type=int, default=8)
    return parser


class SmallCNN(nn.Module):
    def __init__(self, n_classes=4):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
        )
        self.classifier = nn.Linear(16, n_classes)

    def forward(self, x):
        return self.classifier(self.features(x).flatten(1))


def entropy(logits):
    p = F.softmax(logits, dim=1)
    return -(p * F.log_softmax(logits, dim=1)).sum(1).mean()


def load_frozen_model():
    model = SmallCNN()
    model.eval()
    for p in model.parameters():
        p.requires_grad_(False)
    return model


def make_shifted_batch(args):
    clean = torch.rand(args.batch, 3, args.img_size, args.img_size)
    cast = torch.tensor([1.4, 0.8, 0.6]).view(1, 3, 1, 1)
    return (clean * cast).clamp(0, 1)


def fit_gains(model, images, args):
    gains = torch.ones(1, 3, 1, 1, requires_grad=True)  # fixed: GG403
    history = []
    for step in range(args.steps):
        corrected = images * gains
        loss = entropy(model(corrected))
        loss.backward()
        grad_norm = gains.grad.norm().item()
        with torch.no_grad():
            gains -= args.lr * gains.grad
            gains.grad.zero_()
        history.append((loss.item(), grad_norm))
        print(f"step {step}: entropy={loss.item():.4f} |grad|={grad_norm:.4f}")
    return gains.detach().flatten(), history


def main():
    args = get_parser().parse_args([])
    torch.manual_seed(0)
    model = load_frozen_model()
    images = make_shifted_batch(args)
    gains, history = fit_gains(model, images, args)
    print("fitted gains:", [round(g, 5) for g in gains.tolist()])
    assert not torch.allclose(gains, torch.ones(3))
    return history


if __name__ == "__main__":
    main()
    print("FIXED: ok")
