"""GG111 - YOLO head applies sigmoid to objectness/class, loss uses BCEWithLogitsLoss.

A YOLOv4-style detector's Yolo_head decodes the raw conv output: it applies
sigmoid to the objectness and class channels and returns the decoded tensor.
YoloV4Loss takes conf/cls from that decoded tensor and gives them to
nn.BCEWithLogitsLoss, which applies a second sigmoid.  Nothing crashes, but a
"logit" in [0, 1] can only reach probabilities in [0.5, 0.73]: the objectness
loss for a cell with no object can never drop below log(2).  The script trains on
one fixed batch and shows the objectness loss stuck above that floor.

Modelled on: https://github.com/argusswift/YOLOv4-pytorch/issues/89
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

cfg = {"NUM": 3, "STRIDE": 4, "IMG": 16, "LR": 5e-3, "ITERS": 80, "BATCH": 4}


class Yolo_head(nn.Module):
    def __init__(self, nC, stride):
        super().__init__()
        self.__nC = nC
        self.__stride = stride

    def forward(self, p):
        bs, _, g, _ = p.shape
        p = p.view(bs, 5 + self.__nC, g, g).permute(0, 2, 3, 1)
        return self.__decode(p)

    def __decode(self, p):
        g = p.shape[1]
        dxdy, dwdh = p[..., 0:2], p[..., 2:4]
        conf, prob = p[..., 4:5], p[..., 5:]
        ys, xs = torch.meshgrid(torch.arange(g), torch.arange(g), indexing="ij")
        grid = torch.stack([xs, ys], -1).float()
        pred_xy = (torch.sigmoid(dxdy) + grid) * self.__stride
        pred_wh = torch.exp(dwdh.clamp(max=4)) * self.__stride
        pred_conf = torch.sigmoid(conf)
        pred_prob = torch.sigmoid(prob)
        return torch.cat([pred_xy, pred_wh, pred_conf, pred_prob], dim=-1)


class TinyYOLO(nn.Module):
    def __init__(self, nC):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1), nn.LeakyReLU(0.1), nn.Conv2d(16, 32, 3, 2, 1), nn.LeakyReLU(0.1))
        self.head_conv = nn.Conv2d(32, 5 + nC, 1)
        self.head = Yolo_head(nC, cfg["STRIDE"])

    def forward(self, x):
        return self.head(self.head_conv(self.backbone(x)))


class YoloV4Loss(nn.Module):
    def __init__(self):
        super().__init__()
        self.__bce = nn.BCEWithLogitsLoss(reduction="none")

    def forward(self, p_d, label):
        label_xywh, label_obj, label_cls = label[..., :4], label[..., 4:5], label[..., 5:]
        p_d_conf, p_d_cls = p_d[..., 4:5], p_d[..., 5:]
        loss_conf = self.__bce(input=p_d_conf, target=label_obj).mean()  # bug: GG111
        loss_cls = (label_obj * self.__bce(input=p_d_cls, target=label_cls)).sum() / label_obj.sum().clamp(min=1)
        loss_xy = (label_obj * F.mse_loss(p_d[..., :2] / cfg["IMG"], label_xywh[..., :2] / cfg["IMG"], reduction="none")).mean()
        loss = loss_conf + loss_cls + loss_xy
        return loss, {"conf": loss_conf.item(), "cls": loss_cls.item(), "xy": loss_xy.item()}


def build_targets(bs, g, nC, generator):
    label = torch.zeros(bs, g, g, 5 + nC)
    for b in range(bs):
        i, j = torch.randint(0, g, (2,), generator=generator).tolist()
        c = int(torch.randint(0, nC, (1,), generator=generator))
        label[b, i, j, :4] = torch.tensor([(j + 0.5) * cfg["STRIDE"], (i + 0.5) * cfg["STRIDE"], 6.0, 6.0])
        label[b, i, j, 4] = 1.0
        label[b, i, j, 5 + c] = 1.0
    return label


def train():
    torch.manual_seed(0)
    gen = torch.Generator().manual_seed(0)
    model = TinyYOLO(cfg["NUM"])
    criterion = YoloV4Loss()
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg["LR"])
    imgs = torch.randn(cfg["BATCH"], 3, cfg["IMG"], cfg["IMG"])
    g = cfg["IMG"] // cfg["STRIDE"]
    label = build_targets(cfg["BATCH"], g, cfg["NUM"], gen)
    best_conf = float("inf")
    for it in range(cfg["ITERS"]):
        p_d = model(imgs)
        loss, items = criterion(p_d, label)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        best_conf = min(best_conf, items["conf"])
        if it % 50 == 0:
            print(f"iter {it}: " + " ".join(f"{k}={v:.4f}" for k, v in items.items()))
    obj_frac = label[..., 4].mean().item()
    floor = obj_frac * math.log(1 + math.exp(-1)) + (1 - obj_frac) * math.log(2)
    return best_conf, floor


if __name__ == "__main__":
    best_conf, floor = train()
    if best_conf < floor - 1e-3:
        raise SystemExit("NO BUG")
    print(f"BUGGY: objectness loss {best_conf:.6f} stays above the double-sigmoid floor {floor:.6f}")
