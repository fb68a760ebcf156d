"""GG103 - backward() on a loss whose only input was cut off by .detach().

Mistake: the memory (class-prototype) loss detaches the embeddings because the
same tensor is also used for the EMA update of the memory bank.  During the
memory-only warm-up stage (lambda_cls = 0) the total loss is built from that
detached tensor and the buffer only, so backward() raises
RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn

Modelled on: https://github.com/haowang1992/DSN/issues/2
"""
import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

CFG = {"num_classes": 5, "feat_dim": 16, "epochs": 2, "lr": 0.01,
       "lambda_cls": 0.0, "lambda_mem": 1.0, "momentum": 0.9}


class SketchEncoder(nn.Module):
    def __init__(self, feat_dim, num_classes):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
        )
        self.embed = nn.Linear(16, feat_dim)
        self.classifier = nn.Linear(feat_dim, num_classes)

    def forward(self, x):
        f = self.embed(self.features(x).flatten(1))
        return F.normalize(f, dim=1), self.classifier(f)


class MemoryBank(nn.Module):
    def __init__(self, num_classes, feat_dim, momentum):
        super().__init__()
        self.register_buffer("centers", F.normalize(torch.randn(num_classes, feat_dim), dim=1))
        self.momentum = momentum

    def loss_and_update(self, feats, labels):
        feats = feats.detach()
        with torch.no_grad():
            for c in labels.unique():
                m = feats[labels == c].mean(0)
                self.centers[c] = F.normalize(self.momentum * self.centers[c] + (1 - self.momentum) * m, dim=0)
        sims = feats @ self.centers.t()
        return F.cross_entropy(sims / 0.1, labels)


class Trainer:
    def __init__(self, model, memory, cfg):
        self.model, self.memory, self.cfg = model, memory, cfg
        self.opt = torch.optim.SGD(model.parameters(), lr=cfg["lr"], momentum=0.9)
        self.ckpt_dir = tempfile.mkdtemp()

    def train_step(self, x, y):
        feats, logits = self.model(x)
        losses = {
            "cls": F.cross_entropy(logits, y),
            "memory": self.memory.loss_and_update(feats, y),
        }
        loss = self.cfg["lambda_mem"] * losses["memory"]
        if self.cfg["lambda_cls"] > 0:
            loss = loss + self.cfg["lambda_cls"] * losses["cls"]
        self.opt.zero_grad()
        loss.backward()  # bug: GG103
        self.opt.step()
        return {k: v.item() for k, v in losses.items()}

    def train_epoch(self, loader, epoch):
        self.model.train()
        for i, (x, y) in enumerate(loader):
            stats = self.train_step(x, y)
            if i % 2 == 0:
                print(f"[{epoch}:{i}] cls={stats['cls']:.3f} mem={stats['memory']:.3f}")
        torch.save(self.model.state_dict(), os.path.join(self.ckpt_dir, f"ep{epoch}.pt"))


def main():
    torch.manual_seed(0)
    x = torch.randn(40, 1, 16, 16)
    y = torch.randint(0, CFG["num_classes"], (40,))
    loader = DataLoader(TensorDataset(x, y), batch_size=10, shuffle=True)
    model = SketchEncoder(CFG["feat_dim"], CFG["num_classes"])
    memory = MemoryBank(CFG["num_classes"], CFG["feat_dim"], CFG["momentum"])
    trainer = Trainer(model, memory, CFG)
    for epoch in range(CFG["epochs"]):
        trainer.train_epoch(loader, epoch)


if __name__ == "__main__":
    try:
        main()
    except RuntimeError as e:
        print(f"BUGGY: {str(e).splitlines()[0]}")
        raise SystemExit(0)
    raise SystemExit("NO BUG")
