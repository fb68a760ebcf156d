"""Detector inference helper that converts predictions to NumPy safely.

Modelled on: https://github.com/NielsRogge/Transformers-Tutorials/pull/178 (counterpart)

Look-alike: predictions are turned into NumPy arrays for drawing, but the
forward pass runs under torch.no_grad() (boxes) and the training-time
logging path detaches before .numpy(), so nothing that requires grad is
converted.
"""
import numpy as np
import torch
import torch.nn as nn


class BoxRegressor(nn.Module):
    def __init__(self, dim=16, num_queries=4):
        super().__init__()
        self.encoder = nn.Sequential(nn.Conv2d(3, dim, 3, stride=2, padding=1), nn.ReLU())
        self.queries = nn.Parameter(torch.randn(num_queries, dim))
        self.box_head = nn.Linear(dim, 4)

    def forward(self, x):
        f = self.encoder(x).flatten(2).mean(-1)
        return self.box_head(self.queries.unsqueeze(0) + f.unsqueeze(1)).sigmoid()


def to_pixels(boxes, w, h):
    return boxes * torch.tensor([w, h, w, h])


@torch.no_grad()
def predict_boxes(model, image):
    model.eval()
    return to_pixels(model(image)[0], image.shape[-1], image.shape[-2])


def log_training_boxes(model, image, target):
    model.train()
    pred = model(image)
    loss = nn.functional.l1_loss(pred, target)
    loss.backward()
    snapshot = pred.detach().cpu().numpy()
    return loss.item(), snapshot


def draw(boxes_np):
    return [(x0, y0, x1 - x0, y1 - y0) for x0, y0, x1, y1 in boxes_np]


if __name__ == "__main__":
    torch.manual_seed(0)
    model = BoxRegressor()
    img = torch.randn(1, 3, 32, 40)
    rects = draw(predict_boxes(model, img).numpy())
    assert len(rects) == 4
    loss, snap = log_training_boxes(model, img, torch.rand(1, 4, 4))
    assert isinstance(snap, np.ndarray)
    print("OK")
