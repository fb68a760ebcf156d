"""GG105 (fixed) - SimCC/RTMCC-style head moves its predictions with .to(device).

Same pose-estimation script; the head's loss() uses pre_cls.to(gt_x.device)
instead of torch.tensor(pre_cls, device=...), which keeps the autograd history,
so the KL loss trains the head and the backbone.

Modelled on: https://github.com/open-mmlab/mmpose/issues/2788
"""
from collections import OrderedDict

import torch
import torch.nn as nn
import torch.nn.functional as F


CFG = dict(num_keypoints=5, in_channels=16, input_size=(32, 32), simcc_split_ratio=2.0, sigma=2.0,
           beta=10.0, lr=1e-3, max_iters=3, batch_size=4)


class KLDiscretLoss(nn.Module):
    def __init__(self, beta=1.0, use_target_weight=True):
        super().__init__()
        self.beta = beta
        self.use_target_weight = use_target_weight

    def criterion(self, dec_outs, labels):
        log_pt = F.log_softmax(dec_outs * self.beta, dim=1)
        return torch.mean(F.kl_div(log_pt, labels, reduction="none"), dim=1)

    def forward(self, pred_simcc, gt_simcc, target_weight):
        n, k, _ = pred_simcc.shape
        loss = self.criterion(pred_simcc.reshape(n * k, -1), gt_simcc.reshape(n * k, -1))
        if self.use_target_weight:
            loss = loss * target_weight.reshape(-1)
        return loss.sum() / k


class RTMCCHeadLite(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        k, c = cfg["num_keypoints"], cfg["in_channels"]
        w, h = cfg["input_size"]
        self.final_layer = nn.Conv2d(c, k, kernel_size=3, padding=1)
        self.mlp = nn.Sequential(nn.LayerNorm(8 * 8), nn.Linear(8 * 8, 32), nn.GELU())
        self.cls_x = nn.Linear(32, int(w * cfg["simcc_split_ratio"]))
        self.cls_y = nn.Linear(32, int(h * cfg["simcc_split_ratio"]))
        self.loss_module = KLDiscretLoss(beta=cfg["beta"])

    def forward(self, feats):
        x = self.final_layer(feats).flatten(2)
        x = self.mlp(x)
        return self.cls_x(x), self.cls_y(x)

    def loss(self, feats, batch_labels):
        pred_x, pred_y = self.forward(feats)
        gt_x, gt_y, keypoint_weights = batch_labels
        pre_cls = torch.cat([pred_x, pred_y], dim=-1)
        pre_cls1 = pre_cls.to(gt_x.device)  # fixed: GG105
        gt_cls = torch.cat([gt_x, gt_y], dim=-1)
        losses = OrderedDict()
        losses["loss_kpt"] = self.loss_module(pre_cls1, gt_cls, keypoint_weights)
        with torch.no_grad():
            err = (pred_x.argmax(-1) - gt_x.argmax(-1)).abs().float().mean()
        losses["acc_pose"] = (err < 2).float()
        return losses


class Backbone(nn.Module):
    def __init__(self, out_ch):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(3, out_ch, 3, 2, 1), nn.ReLU(), nn.Conv2d(out_ch, out_ch, 3, 2, 1), nn.ReLU())

    def forward(self, x):
        return self.net(x)


class TopdownPoseEstimator(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.backbone = Backbone(cfg["in_channels"])
        self.head = RTMCCHeadLite(cfg)

    def loss(self, inputs, labels):
        return self.head.loss(self.backbone(inputs), labels)


def gaussian_simcc_labels(coords, length, sigma):
    grid = torch.arange(length).float()
    lab = torch.exp(-((grid[None, None] - coords[..., None]) ** 2) / (2 * sigma ** 2))
    return lab / lab.sum(-1, keepdim=True)


def parse_losses(losses):
    log_vars = OrderedDict((k, v.mean()) for k, v in losses.items())
    loss = sum(v for k, v in log_vars.items() if "loss" in k)
    return loss, {k: v.item() for k, v in log_vars.items()}


def train(cfg):
    torch.manual_seed(0)
    model = TopdownPoseEstimator(cfg)
    optim = torch.optim.AdamW(model.parameters(), lr=cfg["lr"], weight_decay=0.05)
    n, k = cfg["batch_size"], cfg["num_keypoints"]
    wx = int(cfg["input_size"][0] * cfg["simcc_split_ratio"])
    wy = int(cfg["input_size"][1] * cfg["simcc_split_ratio"])
    for it in range(cfg["max_iters"]):
        imgs = torch.randn(n, 3, *cfg["input_size"])
        kpts = torch.rand(n, k, 2) * torch.tensor([wx - 1, wy - 1])
        labels = (gaussian_simcc_labels(kpts[..., 0], wx, cfg["sigma"]),
                  gaussian_simcc_labels(kpts[..., 1], wy, cfg["sigma"]),
                  torch.ones(n, k))
        losses = model.loss(imgs, labels)
        loss, log_vars = parse_losses(losses)
        optim.zero_grad()
        loss.backward()
        optim.step()
        print(f"iter {it}: {log_vars}")


if __name__ == "__main__":
    train(CFG)
    print("FIXED: ok")
