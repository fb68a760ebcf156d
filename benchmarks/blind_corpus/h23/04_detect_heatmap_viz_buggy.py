"""GG502 - .numpy() on a tensor that still requires grad.

A detection-layer visualisation script registers forward hooks on the heads of
a small YOLO-like network, runs one image through it in the normal (grad
enabled) mode, and hands the captured feature maps to a plotting helper.  The
helper converts each map with ``array.cpu().numpy()``; the maps are outputs of
conv layers whose weights require grad, so torch refuses:
    RuntimeError: Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.

Modelled on: https://github.com/XiaMooo/Yolo-Detect-Layer-Visualization/issues/1
"""
import os
import sys
import tempfile

import numpy as np
import torch
import torch.nn as nn

CFG = {"img_size": 64, "num_classes": 3, "anchors": 2, "out_dir": tempfile.mkdtemp(prefix="heatmaps_")}


def conv_bn(c_in, c_out, stride=1):
    return nn.Sequential(nn.Conv2d(c_in, c_out, 3, stride, 1, bias=False),
                         nn.BatchNorm2d(c_out), nn.SiLU())


class TinyYolo(nn.Module):
    def __init__(self, num_classes, anchors):
        super().__init__()
        self.no = num_classes + 5
        self.backbone = nn.Sequential(conv_bn(3, 8, 2), conv_bn(8, 16, 2), conv_bn(16, 32, 2))
        self.neck = conv_bn(32, 32)
        self.detect = nn.ModuleList([nn.Conv2d(32, self.no * anchors, 1),
                                     nn.Conv2d(16, self.no * anchors, 1)])
        self.reduce = nn.Conv2d(32, 16, 1)

    def forward(self, x):
        p5 = self.neck(self.backbone(x))
        p4 = self.reduce(nn.functional.interpolate(p5, scale_factor=2.0))
        return [self.detect[0](p5), self.detect[1](p4)]


class FeatureGrabber:
    def __init__(self, layers):
        self.maps = {}
        self.handles = [l.register_forward_hook(self._hook(name)) for name, l in layers.items()]

    def _hook(self, name):
        def fn(module, inp, out):
            self.maps[name] = out
        return fn

    def remove(self):
        for h in self.handles:
            h.remove()


def objectness_maps(pred, anchors, no):
    b, _, h, w = pred.shape
    pred = pred.view(b, anchors, no, h, w)
    return pred[:, :, 4].sigmoid().max(dim=1).values[0]   # (h, w)


def to_heat_image(array):
    array = (array - array.min()) / (array.max() - array.min() + 1e-8)
    return (array * 255).astype(np.uint8)


def plot_multi_heatmap(*arrays, out_dir, prefix="head"):
    saved = []
    for i, array in enumerate(arrays):
        if isinstance(array, torch.Tensor):
            array = array.cpu().numpy()  # bug: GG502
        img = to_heat_image(array)
        path = os.path.join(out_dir, f"{prefix}_{i}.npy")
        np.save(path, img)
        saved.append(path)
    return saved


def visualize(model, image, cfg):
    model.eval()
    grab = FeatureGrabber({"p5": model.detect[0], "p4": model.detect[1]})
    model(image)
    grab.remove()
    no = cfg["num_classes"] + 5
    heat = [objectness_maps(grab.maps[k], cfg["anchors"], no) for k in ("p5", "p4")]
    return plot_multi_heatmap(*heat, out_dir=cfg["out_dir"])


def main():
    torch.manual_seed(0)
    model = TinyYolo(CFG["num_classes"], CFG["anchors"])
    image = torch.rand(1, 3, CFG["img_size"], CFG["img_size"])
    paths = visualize(model, image, CFG)
    print("saved", paths)


if __name__ == "__main__":
    try:
        main()
    except RuntimeError as e:
        print(f"BUGGY: {str(e).splitlines()[0]}")
        sys.exit(0)
    raise SystemExit("NO BUG")
