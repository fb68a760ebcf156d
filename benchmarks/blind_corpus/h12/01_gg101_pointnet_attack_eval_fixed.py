"""GG101 - fixed version: the FGSM probe re-enables grad mode locally.

eval_one_epoch still runs under @torch.no_grad(), but fgsm_perturb wraps its
forward pass in torch.enable_grad(), so the adversarial loss has a graph and
backward() fills points.grad.

Modelled on: https://github.com/sshaoshuai/PointRCNN/issues/216
"""
import sys
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

CFG = {
    "num_points": 64,
    "num_classes": 5,
    "batch_size": 8,
    "attack_eps": 0.02,
    "device": "cpu",
}


class TinyPointNet(nn.Module):
    """Shared per-point MLP + max pooling + classifier, PointNet style."""

    def __init__(self, num_classes):
        super().__init__()
        self.mlp = nn.Sequential(
            nn.Conv1d(3, 32, 1), nn.BatchNorm1d(32), nn.ReLU(),
            nn.Conv1d(32, 64, 1), nn.BatchNorm1d(64), nn.ReLU(),
        )
        self.head = nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, num_classes))

    def forward(self, pts):  # pts: (B, N, 3)
        feat = self.mlp(pts.transpose(1, 2))
        global_feat = feat.max(dim=2).values
        return self.head(global_feat)


def build_loader(n=32):
    pts = torch.randn(n, CFG["num_points"], 3)
    labels = torch.randint(0, CFG["num_classes"], (n,))
    return DataLoader(TensorDataset(pts, labels), batch_size=CFG["batch_size"])


def fgsm_perturb(model, points, labels, eps):
    """Return points moved one signed-gradient step against the classifier."""
    points = points.clone().requires_grad_(True)
    with torch.enable_grad():  # the caller runs under no_grad
        logits = model(points)
        adv_loss = F.cross_entropy(logits, labels)
    model.zero_grad()
    adv_loss.backward()  # fixed: GG101
    return (points + eps * points.grad.sign()).detach()


@torch.no_grad()
def eval_one_epoch(model, loader, cfg):
    model.eval()
    clean_correct, adv_correct, total = 0, 0, 0
    for it, (pts, labels) in enumerate(loader):
        pts, labels = pts.to(cfg["device"]), labels.to(cfg["device"])
        pred = model(pts).argmax(dim=1)
        clean_correct += (pred == labels).sum().item()

        adv_pts = fgsm_perturb(model, pts, labels, cfg["attack_eps"])
        adv_pred = model(adv_pts).argmax(dim=1)
        adv_correct += (adv_pred == labels).sum().item()
        total += labels.numel()
    return {"clean_acc": clean_correct / total, "adv_acc": adv_correct / total}


def main():
    torch.manual_seed(0)
    model = TinyPointNet(CFG["num_classes"]).to(CFG["device"])
    loader = build_loader()
    metrics = eval_one_epoch(model, loader, CFG)
    print(f"clean acc {metrics['clean_acc']:.3f} | adv acc {metrics['adv_acc']:.3f}")


if __name__ == "__main__":
    main()
    print("FIXED: ok")
