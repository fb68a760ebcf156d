"""First-stage TTS trainer that freezes the aligner until the TMA epoch.

Modelled on: https://github.com/yl4579/StyleTTS2/issues/258 (counterpart)

Looks like the failing `g_loss.requires_grad = True`: requires_grad is
assigned inside the training loop, next to the loss computation.  But the
assignments target leaves only: the aligner's parameters (frozen before the
TMA epoch and unfrozen after it) and a detached copy of the input mels whose
gradient is logged as a saliency statistic.
"""
from types import SimpleNamespace

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)


class TextAligner(nn.Module):
    def __init__(self, n_mels, hidden):
        super().__init__()
        self.enc = nn.GRU(n_mels, hidden, batch_first=True)

    def forward(self, mels):
        h, _ = self.enc(mels)
        return torch.softmax(h @ h.transpose(1, 2), dim=-1)


class Decoder(nn.Module):
    def __init__(self, n_mels, hidden):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(n_mels, hidden), nn.ReLU(), nn.Linear(hidden, n_mels))

    def forward(self, x):
        return self.net(x)


def set_trainable(module, flag):
    for p in module.parameters():
        p.requires_grad = flag


def train_first(cfg, loader):
    aligner, decoder = TextAligner(cfg.n_mels, cfg.hidden), Decoder(cfg.n_mels, cfg.hidden)
    optimizer = torch.optim.AdamW(list(aligner.parameters()) + list(decoder.parameters()), lr=cfg.lr)
    saliency = []
    for epoch in range(cfg.epochs):
        set_trainable(aligner, epoch >= cfg.TMA_epoch)
        for mels in loader:
            mels_in = mels.detach()
            mels_in.requires_grad = True
            attn = aligner(mels_in)
            y_rec = decoder(attn @ mels_in)
            g_loss = F.l1_loss(y_rec, mels)
            if epoch >= cfg.TMA_epoch:
                g_loss = g_loss + F.l1_loss(attn, torch.eye(attn.shape[-1]).expand_as(attn))
            optimizer.zero_grad()
            g_loss.backward()
            optimizer.step()
            saliency.append(mels_in.grad.abs().mean().item())
    return saliency


if __name__ == "__main__":
    torch.manual_seed(0)
    cfg = SimpleNamespace(n_mels=8, hidden=16, lr=1e-3, epochs=2, TMA_epoch=1)
    loader = [torch.randn(2, 10, cfg.n_mels) for _ in range(2)]
    sal = train_first(cfg, loader)
    assert len(sal) == 4
    print("OK")
