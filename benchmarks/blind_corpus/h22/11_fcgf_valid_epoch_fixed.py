"""Category GG204 - FIXED version: the validation loop runs under torch.no_grad().

A fully-convolutional point-feature trainer (contrastive hardest-negative loss)
runs a validation epoch after training. In the buggy version _valid_epoch switched to eval() but never
disables autograd, and it stores every batch's feature tensors to compute the
feature-match recall at the end. Each stored tensor drags its whole forward graph
along, so validation memory grows with the number of batches (OOM on a real GPU).
The fix wraps the validation loop in torch.no_grad(), so the stored features
are plain tensors without history.

Modelled on: https://github.com/chrischoy/FCGF/issues/15
"""
import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F

CONFIG = dict(in_dim=6, feat_dim=16, n_points=40, batch=2, epochs=1, lr=1e-2,
              pos_thresh=0.1, neg_thresh=1.4, hit_ratio_thresh=0.1)


class PointFeatureNet(nn.Module):
    def __init__(self, in_dim, feat_dim):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(in_dim, 32), nn.BatchNorm1d(32), nn.ReLU(),
                                 nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, feat_dim))

    def forward(self, pts):
        b, n, d = pts.shape
        out = self.mlp(pts.reshape(b * n, d)).reshape(b, n, -1)
        return F.normalize(out, dim=-1)


def hardest_contrastive_loss(f0, f1, cfg):
    pos = (f0 - f1).pow(2).sum(-1).clamp_min(1e-8).sqrt()
    dists = torch.cdist(f0, f1)
    eye = torch.eye(dists.size(-1)).bool()
    neg = dists.masked_fill(eye, 1e3).min(dim=-1).values
    return F.relu(pos - cfg["pos_thresh"]).pow(2).mean() + F.relu(cfg["neg_thresh"] - neg).pow(2).mean()


def make_pairs(cfg, n_batches):
    for _ in range(n_batches):
        x0 = torch.randn(cfg["batch"], cfg["n_points"], cfg["in_dim"])
        x1 = x0 + 0.05 * torch.randn_like(x0)
        yield x0, x1


class AlignmentTrainer:
    def __init__(self, cfg, out_dir):
        self.cfg = cfg
        self.out_dir = out_dir
        self.model = PointFeatureNet(cfg["in_dim"], cfg["feat_dim"])
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=cfg["lr"], momentum=0.8)
        self.scheduler = torch.optim.lr_scheduler.ExponentialLR(self.optimizer, 0.99)
        self.val_feats = []

    def _train_epoch(self, epoch):
        self.model.train()
        for x0, x1 in make_pairs(self.cfg, 3):
            loss = hardest_contrastive_loss(self.model(x0), self.model(x1), self.cfg)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
        self.scheduler.step()
        print(f"epoch {epoch} train loss {loss.item():.4f}")

    def _valid_epoch(self):
        self.model.eval()
        self.val_feats = []
        hits = []
        with torch.no_grad():  # fixed: GG204
            for batch_idx, (x0, x1) in enumerate(make_pairs(self.cfg, 4)):
                F0 = self.model(x0)
                F1 = self.model(x1)
                nn_idx = torch.cdist(F0, F1).argmin(dim=-1)
                gt = torch.arange(F0.size(1)).expand_as(nn_idx)
                hits.append((nn_idx == gt).float().mean().item())
                self.val_feats.append((F0, F1))
        recall = sum(h > self.cfg["hit_ratio_thresh"] for h in hits) / len(hits)
        return {"feat_match_recall": recall}

    def _save_checkpoint(self, epoch):
        path = os.path.join(self.out_dir, f"checkpoint_{epoch}.pth")
        torch.save({"state_dict": self.model.state_dict(), "epoch": epoch}, path)

    def train(self):
        for epoch in range(self.cfg["epochs"]):
            self._train_epoch(epoch)
            stats = self._valid_epoch()
            print(f"validation: {stats}")
            self._save_checkpoint(epoch)


if __name__ == "__main__":
    torch.manual_seed(0)
    with tempfile.TemporaryDirectory() as tmp:
        trainer = AlignmentTrainer(CONFIG, tmp)
        trainer.train()
    kept = trainer.val_feats[0][0]
    assert not kept.requires_grad and kept.grad_fn is None
    print("FIXED: ok")
