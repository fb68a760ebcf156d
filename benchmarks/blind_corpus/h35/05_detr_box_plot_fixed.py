"""Attention/box visualisation helper for a DETR-style detector.

Modelled on: https://github.com/NielsRogge/Transformers-Tutorials/pull/178

In the DETR attention-visualisation notebook the predicted boxes were
rescaled to image coordinates and unpacked into xmin/ymin/xmax/ymax for
matplotlib. The forward pass ran with autograd on, so the boxes still
required grad and converting them to NumPy raised
"Can't call numpy() on Tensor that requires grad". The fix detached the
coordinates first.

Fixed version: the boxes are detached before .numpy().
"""
import torch
import torch.nn as nn


class TinyDetr(nn.Module):
    def __init__(self, num_queries=5, num_classes=3, dim=16):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, dim, 3, stride=2, padding=1), nn.ReLU())
        self.query_embed = nn.Parameter(torch.randn(num_queries, dim))
        self.class_head = nn.Linear(dim, num_classes + 1)
        self.box_head = nn.Linear(dim, 4)

    def forward(self, pixel_values):
        feats = self.backbone(pixel_values).flatten(2).mean(-1)  # [B, dim]
        hs = self.query_embed.unsqueeze(0) + feats.unsqueeze(1)  # [B, Q, dim]
        return {"logits": self.class_head(hs), "pred_boxes": self.box_head(hs).sigmoid()}


def box_cxcywh_to_xyxy(x):
    cx, cy, w, h = x.unbind(-1)
    return torch.stack([cx - 0.5 * w, cy - 0.5 * h, cx + 0.5 * w, cy + 0.5 * h], dim=-1)


def rescale_bboxes(out_bbox, size):
    img_w, img_h = size
    return box_cxcywh_to_xyxy(out_bbox) * torch.tensor([img_w, img_h, img_w, img_h])


class FakeAxes:
    """Stand-in for a matplotlib Axes: stores rectangles as floats."""

    def __init__(self):
        self.patches = []

    def add_rect(self, xy, w, h):
        self.patches.append((float(xy[0]), float(xy[1]), float(w), float(h)))


def plot_results(ax, probs, boxes):
    for p, (xmin, ymin, xmax, ymax) in zip(probs, boxes.detach().numpy()):
        ax.add_rect((xmin, ymin), xmax - xmin, ymax - ymin)
    return ax


def visualise(model, image, threshold=0.0):
    outputs = model(image)
    probas = outputs["logits"].softmax(-1)[0, :, :-1]
    keep = probas.max(-1).values > threshold
    boxes = rescale_bboxes(outputs["pred_boxes"][0, keep], (64, 48))
    return plot_results(FakeAxes(), probas[keep], boxes)


if __name__ == "__main__":
    torch.manual_seed(0)
    detector = TinyDetr()
    img = torch.randn(1, 3, 48, 64)
    ax = visualise(detector, img)
    assert len(ax.patches) == 5
    print("FIXED: ok")
