"""GG108 - backward() through argmax and an integer-to-float cast only.

A keypoint detector predicts one heatmap per joint. The helper that decodes
coordinates takes the argmax of each heatmap, converts the flat index to (x, y)
and casts to float; the L1 loss on those coordinates therefore depends on the
network only through argmax, which has no gradient.
torch raises: RuntimeError: element 0 of tensors does not require grad and does
not have a grad_fn

Modelled on: https://github.com/pytorch/pytorch/issues/1339
"""
import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F

CFG = {"joints": 3, "size": 16, "batch": 4, "steps": 3, "lr": 1e-3, "clip": 1.0}


class HeatmapNet(nn.Module):
    def __init__(self, joints):
        super().__init__()
        self.stem = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
            nn.Conv2d(16, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
        )
        self.head = nn.Conv2d(16, joints, 1)

    def forward(self, img):
        return self.head(self.stem(img))


def decode_keypoints(heatmaps):
    b, j, h, w = heatmaps.shape
    flat_idx = heatmaps.reshape(b, j, -1).argmax(dim=-1)
    ys = torch.div(flat_idx, w, rounding_mode="floor")
    xs = flat_idx % w
    return torch.stack([xs, ys], dim=-1).float()


def keypoint_loss(heatmaps, target_xy):
    pred_xy = decode_keypoints(heatmaps)
    return F.smooth_l1_loss(pred_xy, target_xy)


def make_sample(cfg, gen):
    img = torch.zeros(cfg["batch"], 1, cfg["size"], cfg["size"])
    xy = torch.randint(0, cfg["size"], (cfg["batch"], cfg["joints"], 2), generator=gen)
    for b in range(cfg["batch"]):
        for j in range(cfg["joints"]):
            img[b, 0, xy[b, j, 1], xy[b, j, 0]] = 1.0
    return img + 0.05 * torch.randn(img.shape, generator=gen), xy.float()


def train(model, optimizer, cfg):
    gen = torch.Generator().manual_seed(1)
    model.train()
    for step in range(cfg["steps"]):
        img, target_xy = make_sample(cfg, gen)
        loss = keypoint_loss(model(img), target_xy)
        optimizer.zero_grad()
        loss.backward()  # bug: GG108
        nn.utils.clip_grad_norm_(model.parameters(), cfg["clip"])
        optimizer.step()
        print(f"step {step}: keypoint loss {loss.item():.3f}")


def main():
    torch.manual_seed(0)
    model = HeatmapNet(CFG["joints"])
    optimizer = torch.optim.Adam(model.parameters(), lr=CFG["lr"])
    train(model, optimizer, CFG)
    with tempfile.TemporaryDirectory() as tmp:
        torch.save({"model": model.state_dict(), "cfg": CFG}, os.path.join(tmp, "kp.pt"))


if __name__ == "__main__":
    try:
        main()
    except RuntimeError as err:
        print(f"BUGGY: {str(err).splitlines()[0]}")
        raise SystemExit(0)
    raise SystemExit("NO BUG")
