"""GG403 (fixed version): .grad read on a non-leaf tensor (it stays None without retain_grad()).

Mistake: a Grad-CAM helper stores the last convolutional feature map on the
model during ``forward`` and, after backpropagating the class score, reads
``model.feature_maps.grad`` to weight the channels.  The feature map is an
intermediate result (non-leaf), so autograd never fills its ``.grad``: the
value is None (torch only emits a UserWarning) and the heat-map code then
fails on it.
torch raises (in user code): AttributeError: 'NoneType' object has no attribute
'mean'
Fix: call ``retain_grad()`` on the stored feature map in ``forward``.
Modelled on: https://github.com/pytorch/pytorch/issues/2677
"""
import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F

CAM_CFG = {"num_classes": 6, "img_size": 32, "target_layer": "block3", "out_dir": None}


class VGGish(nn.Module):
    def __init__(self, num_classes):
        super().__init__()
        self.block1 = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2))
        self.block2 = nn.Sequential(nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2))
        self.block3 = nn.Sequential(nn.Conv2d(16, 32, 3, padding=1), nn.ReLU())
        self.classifier = nn.Linear(32, num_classes)
        self.feature_maps = None

    def forward(self, x):
        x = self.block2(self.block1(x))
        x = self.block3(x)
        x.retain_grad()
        self.feature_maps = x
        return self.classifier(F.adaptive_avg_pool2d(x, 1).flatten(1))


class GradCAM:
    def __init__(self, model):
        self.model = model.eval()

    def __call__(self, image, class_idx=None):
        logits = self.model(image)
        if class_idx is None:
            class_idx = logits.argmax(1).item()
        self.model.zero_grad()
        logits[0, class_idx].backward()
        grads = self.model.feature_maps.grad  # fixed: GG403
        weights = grads.mean(dim=(2, 3), keepdim=True)
        cam = F.relu((weights * self.model.feature_maps).sum(1, keepdim=True))
        cam = F.interpolate(cam, size=image.shape[-2:], mode="bilinear", align_corners=False)
        cam = cam - cam.min()
        return (cam / (cam.max() + 1e-8)).detach(), class_idx


def save_overlay(image, cam, path):
    overlay = 0.5 * image + 0.5 * cam.expand_as(image)
    torch.save({"image": image, "cam": cam, "overlay": overlay}, path)


def main():
    torch.manual_seed(0)
    cfg = CAM_CFG
    model = VGGish(cfg["num_classes"])
    image = torch.rand(1, 3, cfg["img_size"], cfg["img_size"])
    cam, cls = GradCAM(model)(image)
    print(f"class {cls}: cam shape {tuple(cam.shape)}, mean {cam.mean().item():.3f}")
    with tempfile.TemporaryDirectory() as tmp:
        save_overlay(image, cam, os.path.join(tmp, "cam.pt"))


if __name__ == "__main__":
    main()
    print("FIXED: ok")
