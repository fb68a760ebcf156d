"""GG606 - gradient accumulation without dividing the loss by the accumulation steps.

A fine-tuning Trainer emulates a large batch by calling backward() on
`accum_steps` micro-batches before one optimizer step.  Each micro-batch loss
is a *mean* over its samples, but it is not divided by accum_steps, so the
accumulated gradient is accum_steps times the gradient of the large-batch
mean loss: the effective learning rate (and the gradient norm seen by
logging/clipping) silently grows with accum_steps.

Modelled on: https://github.com/fredzzhang/atlas/pull/26
"""
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

CONFIG = {
    "patch": 4, "img": 8, "dim": 16, "classes": 5,
    "micro_batch": 8, "accum_steps": 4, "lr": 1e-3, "epochs": 1,
}


class TinyViT(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        n_patches = (cfg["img"] // cfg["patch"]) ** 2
        self.patchify = nn.Conv2d(3, cfg["dim"], cfg["patch"], stride=cfg["patch"])
        self.pos = nn.Parameter(torch.zeros(1, n_patches, cfg["dim"]))
        self.attn = nn.MultiheadAttention(cfg["dim"], 2, batch_first=True)
        self.norm = nn.LayerNorm(cfg["dim"])
        self.head = nn.Linear(cfg["dim"], cfg["classes"])

    def forward(self, x):
        tokens = self.patchify(x).flatten(2).transpose(1, 2) + self.pos
        h, _ = self.attn(tokens, tokens, tokens)
        return self.head(self.norm(tokens + h).mean(1))


def grad_norm(params):
    return torch.norm(torch.stack([p.grad.norm() for p in params if p.grad is not None])).item()


class FinetuneTrainer:
    def __init__(self, model, cfg):
        self.model = model
        self.cfg = cfg
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=cfg["lr"], weight_decay=0.01)
        self.step_grad_norms = []

    def compute_loss(self, images, labels):
        return F.cross_entropy(self.model(images), labels)

    def train_epoch(self, loader):
        self.model.train()
        self.optimizer.zero_grad()
        for i, (images, labels) in enumerate(loader):
            loss = self.compute_loss(images, labels)
            loss.backward()  # bug: GG606
            if (i + 1) % self.cfg["accum_steps"] == 0:
                self.step_grad_norms.append(grad_norm(self.model.parameters()))
                self.optimizer.step()
                self.optimizer.zero_grad()


def reference_grad_norm(model, images, labels):
    m = copy.deepcopy(model)
    m.zero_grad()
    F.cross_entropy(m(images), labels).backward()
    return grad_norm(m.parameters())


def main():
    torch.manual_seed(0)
    cfg = CONFIG
    n = cfg["micro_batch"] * cfg["accum_steps"] * 2
    images, labels = torch.randn(n, 3, cfg["img"], cfg["img"]), torch.randint(0, cfg["classes"], (n,))
    loader = DataLoader(TensorDataset(images, labels), batch_size=cfg["micro_batch"], shuffle=False)
    model = TinyViT(cfg)
    big = cfg["micro_batch"] * cfg["accum_steps"]
    ref = reference_grad_norm(model, images[:big], labels[:big])
    trainer = FinetuneTrainer(model, cfg)
    for epoch in range(cfg["epochs"]):
        trainer.train_epoch(loader)
    ratio = trainer.step_grad_norms[0] / ref
    print(f"accumulated grad norm / large-batch grad norm = {ratio:.3f}")
    return ratio


if __name__ == "__main__":
    ratio = main()
    if abs(ratio - CONFIG["accum_steps"]) < 1e-3:
        print(f"BUGGY: accumulated gradient is {CONFIG['accum_steps']}x the large-batch gradient")
        raise SystemExit(0)
    raise SystemExit("NO BUG")
