"""Grad-CAM wrapper that back-propagates a per-image class score for a whole batch (fixed).

Modelled on: https://github.com/1Konny/gradcam_plus_plus-pytorch/issues/7

The user ran the library's GradCAM on a batch of images. ``GradCAM.forward`` picks the
logit of the requested class with ``logit[:, class_idx]`` and calls ``score.backward()``.
With a batch of more than one image that score is a vector (one entry per image), so
autograd cannot create the implicit gradient and raises "grad can be implicitly created
only for scalar outputs" before any saliency map is produced.
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


class SmallConvNet(nn.Module):
    def __init__(self, num_classes=5):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(),
            nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(),
        )
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Linear(16, num_classes)

    def forward(self, x):
        x = self.features(x)
        x = self.pool(x).flatten(1)
        return self.classifier(x)


def find_layer(model, layer_name):
    module = model
    for part in layer_name.split("_"):
        module = module._modules[part]
    return module


class GradCAM:
    def __init__(self, model_dict):
        self.model_arch = model_dict["arch"]
        self.gradients = {}
        self.activations = {}
        target_layer = find_layer(self.model_arch, model_dict["layer_name"])
        target_layer.register_forward_hook(self._save_activation)
        target_layer.register_full_backward_hook(self._save_gradient)

    def _save_activation(self, module, inputs, output):
        self.activations["value"] = output

    def _save_gradient(self, module, grad_input, grad_output):
        self.gradients["value"] = grad_output[0]

    def forward(self, images, class_idx=None, retain_graph=False):
        b, _, h, w = images.size()
        logit = self.model_arch(images)
        if class_idx is None:
            class_idx = 0
        # Each image's score depends only on that image, so summing keeps the
        # per-image gradients intact while giving autograd a scalar to start from.
        score = logit[:, class_idx].sum()
        self.model_arch.zero_grad()
        score.backward(retain_graph=retain_graph)
        gradients = self.gradients["value"]
        activations = self.activations["value"]
        weights = gradients.mean(dim=(2, 3), keepdim=True)
        saliency = F.relu((weights * activations).sum(1, keepdim=True))
        saliency = F.interpolate(saliency, size=(h, w), mode="bilinear", align_corners=False)
        flat = saliency.view(b, -1)
        lo, hi = flat.min(1, keepdim=True)[0], flat.max(1, keepdim=True)[0]
        saliency = ((flat - lo) / (hi - lo + 1e-8)).view(b, 1, h, w)
        return saliency, logit

    __call__ = forward


def parse_args(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--batch-size", type=int, default=4)
    parser.add_argument("--class-idx", type=int, default=2)
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    torch.manual_seed(0)
    model = SmallConvNet().eval()
    cam = GradCAM({"arch": model, "layer_name": "features_2"})
    inputs = torch.randn(args.batch_size, 3, 16, 16)
    mask, _ = cam(inputs, class_idx=args.class_idx)
    return mask


if __name__ == "__main__":
    mask = main([])
    assert mask.shape == (4, 1, 16, 16)
    print("FIXED: ok")
