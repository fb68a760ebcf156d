"""GG111 - lane-existence head ends in sigmoid, loss is BCEWithLogitsLoss.

Category: GG111 (sigmoid output given to BCEWithLogitsLoss).
The mistake: ExistHead returns torch.sigmoid(fc10(x)), and the detector's
loss() feeds that to nn.BCEWithLogitsLoss, which applies a second sigmoid.
The effective probability lives in [0.5, 0.73], so the existence loss for a
lane that is absent can never fall below ln 2 (about 0.693), whatever the
network learns.  Silent: training runs, the existence branch just cannot
learn "no lane".
This file: BUGGY version.
Modelled on: https://github.com/Turoad/lanedet/issues/32
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

cfg = {"num_lanes": 4, "img_h": 32, "img_w": 64, "featuremap_out_channel": 16,
       "batch": 4, "iters": 4, "lr": 0.01, "exist_weight": 0.1, "bg_weight": 0.4}


class Backbone(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(3, c, 3, 2, 1), nn.BatchNorm2d(c), nn.ReLU(),
                                  nn.Conv2d(c, c, 3, 2, 1), nn.BatchNorm2d(c), nn.ReLU())

    def forward(self, x):
        return self.body(x)


class PlainDecoder(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.conv8 = nn.Conv2d(cfg["featuremap_out_channel"], cfg["num_lanes"] + 1, 1)
        self.cfg = cfg

    def forward(self, x):
        x = self.conv8(F.dropout2d(x, 0.1, self.training))
        return F.interpolate(x, size=(self.cfg["img_h"], self.cfg["img_w"]), mode="bilinear",
                             align_corners=False)


class ExistHead(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        c = cfg["featuremap_out_channel"]
        self.conv = nn.Conv2d(c, cfg["num_lanes"] + 1, 1)
        self.fc9 = nn.Linear((cfg["num_lanes"] + 1) * 4 * 8, 32)
        self.fc10 = nn.Linear(32, cfg["num_lanes"])

    def forward(self, x):
        x = F.softmax(self.conv(x), dim=1)
        x = F.avg_pool2d(x, 2).flatten(1)
        x = F.relu(self.fc9(x))
        return torch.sigmoid(self.fc10(x))


class LaneSeg(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        self.backbone = Backbone(cfg["featuremap_out_channel"])
        self.decoder = PlainDecoder(cfg)
        self.heads = ExistHead(cfg)
        weights = torch.ones(cfg["num_lanes"] + 1)
        weights[0] = cfg["bg_weight"]
        self.criterion = nn.NLLLoss(weight=weights)
        self.criterion_exist = nn.BCEWithLogitsLoss()

    def forward(self, img):
        feat = self.backbone(img)
        return {"seg": self.decoder(feat), "exist": self.heads(feat)}

    def loss(self, output, batch):
        seg_loss = self.criterion(F.log_softmax(output["seg"], dim=1), batch["label"])
        exist_loss = self.criterion_exist(output["exist"], batch["exist"].float())  # bug: GG111
        loss = seg_loss + self.cfg["exist_weight"] * exist_loss
        return {"loss": loss, "loss_stats": {"seg_loss": seg_loss, "exist_loss": exist_loss}}


def make_batch(cfg):
    label = torch.randint(0, cfg["num_lanes"] + 1, (cfg["batch"], cfg["img_h"], cfg["img_w"]))
    exist = torch.zeros(cfg["batch"], cfg["num_lanes"], dtype=torch.long)
    return {"img": torch.randn(cfg["batch"], 3, cfg["img_h"], cfg["img_w"]), "label": label, "exist": exist}


class Runner:
    def __init__(self, cfg):
        self.cfg = cfg
        self.net = LaneSeg(cfg)
        self.optimizer = torch.optim.SGD(self.net.parameters(), lr=cfg["lr"], momentum=0.9)
        self.scheduler = torch.optim.lr_scheduler.StepLR(self.optimizer, step_size=2, gamma=0.5)

    def train(self):
        self.net.train()
        for it in range(self.cfg["iters"]):
            batch = make_batch(self.cfg)
            out = self.net.loss(self.net(batch["img"]), batch)
            self.optimizer.zero_grad()
            out["loss"].backward()
            self.optimizer.step()
            self.scheduler.step()
            stats = {k: round(v.item(), 4) for k, v in out["loss_stats"].items()}
            print(f"iter {it}: {stats}")

    def validate(self):
        self.net.eval()
        with torch.no_grad():
            batch = make_batch(self.cfg)  # images with no lanes present
            return self.net.loss(self.net(batch["img"]), batch)["loss_stats"]["exist_loss"].item()


def main():
    torch.manual_seed(0)
    runner = Runner(cfg)
    runner.train()
    return runner


if __name__ == "__main__":
    runner = main()
    # even a network that is certain no lane exists cannot get the loss below ln 2
    with torch.no_grad():
        runner.net.heads.fc10.bias.fill_(-50.0)
    exist_loss = runner.validate()
    if exist_loss >= math.log(2) - 1e-4:
        print(f"BUGGY: exist loss on lane-free images stuck at {exist_loss:.4f} >= ln2 "
              f"even with the head forced to 'no lane' (double sigmoid)")
    else:
        raise SystemExit("NO BUG")
