"""GG405 - optimizer given a non-leaf tensor.

Mistake: a video-saliency model with a learnable exponential-moving-average
coefficient ``alpha`` that blends the current frame's features with the
running state.  ``alpha`` is created with ``requires_grad=True`` and then
reshaped with ``.view(1, 1, 1, 1)`` so it broadcasts over feature maps; the
view is a non-leaf.  It is passed to Adam in its own parameter group (with a
larger learning rate), which raises.

torch raises: ValueError: can't optimize a non-leaf Tensor

Modelled on: https://github.com/Linardos/SalEMA/issues/7
"""
from types import SimpleNamespace

import torch
import torch.nn as nn
import torch.nn.functional as F

cfg = SimpleNamespace(alpha_init=0.25, lr=1e-3, alpha_lr=0.1, weight_decay=1e-5,
                      clip_len=4, frame=16, epochs=2, clips_per_epoch=3, device="cpu")


class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.conv2 = nn.Conv2d(8, 8, 3, padding=1)

    def forward(self, x):
        return F.relu(self.conv2(F.relu(self.conv1(x))))


class SalEMANet(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.backbone = Backbone()
        self.readout = nn.Conv2d(8, 1, 1)
        self.alpha = torch.tensor([cfg.alpha_init], requires_grad=True).view(1, 1, 1, 1)

    def forward(self, clip):
        state = None
        maps = []
        for t in range(clip.size(1)):
            feat = self.backbone(clip[:, t])
            a = torch.sigmoid(self.alpha)
            state = feat if state is None else a * feat + (1 - a) * state
            maps.append(torch.sigmoid(self.readout(state)))
        return torch.stack(maps, dim=1)


def build_optimizer(model, cfg):
    return torch.optim.Adam([  # bug: GG405
        {"params": model.backbone.parameters(), "lr": cfg.lr, "weight_decay": cfg.weight_decay},
        {"params": model.readout.parameters(), "lr": cfg.lr},
        {"params": model.alpha, "lr": cfg.alpha_lr},
    ])


def fake_clip(cfg):
    frames = torch.rand(2, cfg.clip_len, 3, cfg.frame, cfg.frame)
    fix = (torch.rand(2, cfg.clip_len, 1, cfg.frame, cfg.frame) > 0.9).float()
    return frames.to(cfg.device), fix.to(cfg.device)


def train(model, optimizer, cfg):
    model.train()
    for epoch in range(cfg.epochs):
        for _ in range(cfg.clips_per_epoch):
            clip, fixations = fake_clip(cfg)
            optimizer.zero_grad()
            pred = model(clip)
            loss = F.binary_cross_entropy(pred, fixations)
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch}: bce {loss.item():.4f} alpha {torch.sigmoid(model.alpha).item():.3f}")


def main():
    torch.manual_seed(0)
    model = SalEMANet(cfg).to(cfg.device)
    print(f"Initial alpha set to: {model.alpha.flatten()}")
    optimizer = build_optimizer(model, cfg)
    train(model, optimizer, cfg)


if __name__ == "__main__":
    try:
        main()
    except ValueError as err:
        print(f"BUGGY: {str(err).splitlines()[0]}")
        raise SystemExit(0)
    raise SystemExit("NO BUG")
