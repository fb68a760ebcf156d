"""GG203 - epoch loss statistics accumulate loss tensors, keeping every graph alive.

A semantic-scene-completion style network returns a dict of losses
(`total`, `semantic`, `completion`).  The epoch bookkeeping adds the loss
*tensors* into a running dict, so `epoch_loss[key]` becomes one long autograd
expression that references every iteration's graph: memory grows with the
number of steps and nothing is released until the epoch ends.  Silent: no error
is raised; the running total still has a grad_fn after the epoch.

Modelled on: https://github.com/jokester-zzz/SSA-SC/issues/2
"""
import os
import tempfile
from collections import defaultdict

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

CFG = {"n_classes": 5, "grid": 12, "batch_size": 4, "epochs": 1, "lr": 1e-3,
       "class_weights": [0.2, 1.0, 1.0, 1.0, 1.0]}


class TinySSCNet(nn.Module):
    def __init__(self, n_classes):
        super().__init__()
        self.enc = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(),
                                 nn.Conv2d(8, 16, 3, padding=1), nn.ReLU())
        self.sem_head = nn.Conv2d(16, n_classes, 1)
        self.occ_head = nn.Conv2d(16, 1, 1)
        self.register_buffer("class_weights", torch.tensor(CFG["class_weights"]))

    def forward(self, occupancy):
        feat = self.enc(occupancy)
        return {"sem": self.sem_head(feat), "occ": self.occ_head(feat)}

    def compute_loss(self, scores, data):
        sem = F.cross_entropy(scores["sem"], data["label"], weight=self.class_weights)
        comp = F.binary_cross_entropy_with_logits(scores["occ"].squeeze(1),
                                                  (data["label"] > 0).float())
        return {"total": sem + comp, "semantic": sem, "completion": comp}


def make_loader(n=16):
    occ = (torch.rand(n, 1, CFG["grid"], CFG["grid"]) > 0.6).float()
    label = torch.randint(0, CFG["n_classes"], (n, CFG["grid"], CFG["grid"]))
    return DataLoader(TensorDataset(occ, label), batch_size=CFG["batch_size"], shuffle=True)


def train_one_epoch(model, loader, optimizer, device):
    model.train()
    epoch_loss = defaultdict(float)
    for step, (occ, label) in enumerate(loader):
        data = {"occ": occ.to(device), "label": label.to(device)}
        scores = model(data["occ"])
        loss = model.compute_loss(scores, data)
        optimizer.zero_grad()
        loss["total"].backward()
        optimizer.step()
        for key in loss:
            epoch_loss[key] += loss[key]  # bug: GG203
    n = step + 1
    return {k: v / n for k, v in epoch_loss.items()}


def save_checkpoint(model, optimizer, epoch, out_dir):
    path = os.path.join(out_dir, f"ssc_epoch{epoch}.pth")
    torch.save({"model": model.state_dict(), "optim": optimizer.state_dict(), "epoch": epoch}, path)
    return path


def main():
    torch.manual_seed(0)
    device = torch.device("cpu")
    model = TinySSCNet(CFG["n_classes"]).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=CFG["lr"])
    loader = make_loader()
    with tempfile.TemporaryDirectory() as out_dir:
        for epoch in range(CFG["epochs"]):
            stats = train_one_epoch(model, loader, optimizer, device)
            ckpt = save_checkpoint(model, optimizer, epoch, out_dir)
            print(f"epoch {epoch}: " + " ".join(f"{k}={float(v):.4f}" for k, v in stats.items())
                  + f" -> {os.path.basename(ckpt)}")
    return stats


if __name__ == "__main__":
    stats = main()
    if torch.is_tensor(stats["total"]) and stats["total"].grad_fn is not None:
        print(f"BUGGY: epoch statistics still hold an autograd graph (grad_fn={type(stats['total'].grad_fn).__name__})")
        raise SystemExit(0)
    raise SystemExit("NO BUG")
