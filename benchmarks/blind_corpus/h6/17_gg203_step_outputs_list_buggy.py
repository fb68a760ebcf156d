"""GG203 (buggy): per-step output dicts, loss tensor included, collected for the epoch.

Mistake: a small Lightning-like loop for a depth-estimation model: training_step()
returns {"loss": loss, "metrics": ...} and the trainer appends each returned dict to
`outputs` so that training_epoch_end() can average them. The stored "loss" is the live
graph-attached tensor, so the list pins every step's autograd graph for the whole
epoch (memory grows with the number of steps).
Silent effect: no error; every stored loss still has a grad_fn after the epoch and
the held graphs grow with the number of steps.
Modelled on: https://github.com/TRI-ML/packnet-sfm/pull/51
"""
import tempfile
import os

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

CONFIG = {"epochs": 2, "batch_size": 6, "lr": 2e-4, "n_images": 18, "ckpt_every": 1}


class DepthNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Sequential(nn.Conv2d(3, 8, 3, 2, 1), nn.ELU(), nn.Conv2d(8, 16, 3, 2, 1), nn.ELU())
        self.dec = nn.Sequential(nn.Upsample(scale_factor=4), nn.Conv2d(16, 1, 3, padding=1), nn.Sigmoid())

    def forward(self, rgb):
        return 0.1 + 10.0 * self.dec(self.enc(rgb))


class DepthModelWrapper(nn.Module):
    def __init__(self):
        super().__init__()
        self.depth_net = DepthNet()

    def training_step(self, batch, batch_idx):
        rgb, gt = batch
        pred = self.depth_net(rgb)
        loss = F.l1_loss(pred, gt)
        with torch.no_grad():
            abs_rel = ((pred - gt).abs() / gt).mean()
        return {"loss": loss, "metrics": {"abs_rel": abs_rel}}

    def training_epoch_end(self, outputs):
        avg_loss = torch.stack([o["loss"] for o in outputs]).mean()
        avg_rel = torch.stack([o["metrics"]["abs_rel"] for o in outputs]).mean()
        return {"avg_train-loss": avg_loss, "avg_train-abs_rel": avg_rel}


class Trainer:
    def __init__(self, config, ckpt_dir):
        self.config = config
        self.ckpt_dir = ckpt_dir
        self.last_outputs = []

    def train(self, dataloader, module, optimizer):
        module.train()
        outputs = []
        for i, batch in enumerate(dataloader):
            optimizer.zero_grad()
            output = module.training_step(batch, i)
            output["loss"].backward()
            optimizer.step()
            outputs.append(output)  # bug: GG203
        self.last_outputs = outputs
        return module.training_epoch_end(outputs)

    def fit(self, module, dataloader):
        optimizer = torch.optim.Adam(module.parameters(), lr=self.config["lr"])
        for epoch in range(self.config["epochs"]):
            logs = self.train(dataloader, module, optimizer)
            print(f"epoch {epoch}: " + ", ".join(f"{k}={v.item():.4f}" for k, v in logs.items()))
            if (epoch + 1) % self.config["ckpt_every"] == 0:
                torch.save(module.state_dict(), os.path.join(self.ckpt_dir, f"epoch{epoch}.ckpt"))


def main():
    torch.manual_seed(0)
    rgb = torch.rand(CONFIG["n_images"], 3, 16, 16)
    depth = 0.5 + 5 * torch.rand(CONFIG["n_images"], 1, 16, 16)
    loader = DataLoader(TensorDataset(rgb, depth), batch_size=CONFIG["batch_size"], shuffle=True)
    module = DepthModelWrapper()
    with tempfile.TemporaryDirectory() as tmp:
        trainer = Trainer(CONFIG, tmp)
        trainer.fit(module, loader)
    return trainer


if __name__ == "__main__":
    trainer = main()
    alive = [o["loss"] for o in trainer.last_outputs if o["loss"].grad_fn is not None]
    if len(alive) == len(trainer.last_outputs):
        print(f"BUGGY: all {len(alive)} stored step losses still carry a grad_fn; the epoch list pins their graphs")
    else:
        raise SystemExit("NO BUG")
