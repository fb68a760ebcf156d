"""GG104 look-alike - backward through a completely frozen perceptual-loss network.

Every parameter of the feature network used for the perceptual loss has
requires_grad=False, and the loss is backpropagated through it.  That is fine:
its input is the super-resolution model's output, which requires grad, so the
gradient flows through the frozen network into the trainable model.  Prints OK.

Modelled on: none found
"""
import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

CFG = {"scale": 2, "lr": 1e-3, "epochs": 2, "batch_size": 4, "perc_weight": 0.1, "ckpt_dir": tempfile.mkdtemp()}


class FeatureExtractor(nn.Module):
    """Pretend VGG slice: conv-relu stack whose weights are never trained."""

    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, 16, 3, padding=1), nn.ReLU())
        for p in self.parameters():
            p.requires_grad = False
        self.eval()

    def forward(self, x):
        return self.features(x)


class PerceptualLoss(nn.Module):
    def __init__(self, extractor):
        super().__init__()
        self.extractor = extractor

    def forward(self, sr, hr):
        return F.l1_loss(self.extractor(sr), self.extractor(hr))


class SRNet(nn.Module):
    def __init__(self, scale):
        super().__init__()
        self.head = nn.Conv2d(3, 16, 3, padding=1)
        self.body = nn.Sequential(nn.ReLU(), nn.Conv2d(16, 3 * scale * scale, 3, padding=1))
        self.shuffle = nn.PixelShuffle(scale)

    def forward(self, lr):
        up = F.interpolate(lr, scale_factor=self.shuffle.upscale_factor, mode="bilinear", align_corners=False)
        return up + self.shuffle(self.body(self.head(lr)))


class SRTrainer:
    def __init__(self, cfg):
        self.cfg = cfg
        self.model = SRNet(cfg["scale"])
        self.perceptual = PerceptualLoss(FeatureExtractor())
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=cfg["lr"])
        self.scheduler = torch.optim.lr_scheduler.StepLR(self.optimizer, step_size=1, gamma=0.5)

    def train_step(self, lr, hr):
        self.optimizer.zero_grad()
        sr = self.model(lr)
        losses = {"pix": F.l1_loss(sr, hr), "perc": self.perceptual(sr, hr)}
        total = losses["pix"] + self.cfg["perc_weight"] * losses["perc"]
        total.backward()
        self.optimizer.step()
        return {k: v.item() for k, v in losses.items()}

    def fit(self, loader):
        for epoch in range(self.cfg["epochs"]):
            for lr, hr in loader:
                logs = self.train_step(lr, hr)
            self.scheduler.step()
            print(f"epoch {epoch} pix={logs['pix']:.4f} perc={logs['perc']:.4f}")
        torch.save(self.model.state_dict(), os.path.join(self.cfg["ckpt_dir"], "srnet.pt"))


def main():
    torch.manual_seed(0)
    hr = torch.rand(8, 3, 16, 16)
    lr = F.avg_pool2d(hr, CFG["scale"])
    trainer = SRTrainer(CFG)
    assert not any(p.requires_grad for p in trainer.perceptual.parameters())
    w0 = trainer.model.head.weight.detach().clone()
    trainer.fit(DataLoader(TensorDataset(lr, hr), batch_size=CFG["batch_size"], shuffle=True))
    assert not torch.equal(w0, trainer.model.head.weight)


if __name__ == "__main__":
    main()
    print("OK")
