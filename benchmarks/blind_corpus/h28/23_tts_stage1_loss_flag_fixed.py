"""First-stage acoustic-model training in the style of StyleTTS2's train_first.py.

Modelled on: https://github.com/yl4579/StyleTTS2/issues/258

Fixed version: the `g_loss.requires_grad = True` line is gone.  g_loss is
computed from the model outputs, so it already requires grad and backward()
reaches the aligner and the decoder without any flag being forced.
"""
from types import SimpleNamespace

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)


class TextAligner(nn.Module):
    def __init__(self, n_mels, n_tokens, hidden):
        super().__init__()
        self.enc = nn.GRU(n_mels, hidden, batch_first=True)
        self.ctc = nn.Linear(hidden, n_tokens)

    def forward(self, mels):
        h, _ = self.enc(mels)
        s2s_pred = self.ctc(h)
        attn = torch.softmax(h @ h.transpose(1, 2), dim=-1)
        return s2s_pred, attn


class Decoder(nn.Module):
    def __init__(self, n_mels, hidden):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(n_mels, hidden), nn.ReLU(), nn.Linear(hidden, n_mels))

    def forward(self, asr):
        return self.net(asr)


def monotonic_target(attn):
    T = attn.shape[-1]
    return torch.eye(T).expand_as(attn)


def train_first(cfg, loader):
    aligner = TextAligner(cfg.n_mels, cfg.n_tokens, cfg.hidden)
    decoder = Decoder(cfg.n_mels, cfg.hidden)
    params = list(aligner.parameters()) + list(decoder.parameters())
    optimizer = torch.optim.AdamW(params, lr=cfg.lr)
    loss_params = cfg.loss_params
    running_loss = 0.0
    for epoch in range(cfg.epochs):
        for mels, texts in loader:
            s2s_pred, s2s_attn = aligner(mels)
            y_rec = decoder(s2s_attn @ mels)
            loss_mel = F.l1_loss(y_rec, mels)
            if epoch >= cfg.TMA_epoch:
                loss_s2s = F.cross_entropy(s2s_pred.reshape(-1, cfg.n_tokens), texts.reshape(-1))
                loss_mono = F.l1_loss(s2s_attn, monotonic_target(s2s_attn)) * 10
                g_loss = (loss_params.lambda_mel * loss_mel
                          + loss_params.lambda_mono * loss_mono
                          + loss_params.lambda_s2s * loss_s2s)
            else:
                g_loss = loss_mel
            running_loss += loss_mel.item()
            optimizer.zero_grad()
            g_loss.backward()
            optimizer.step()
    return running_loss


def make_loader(n, batch, frames, n_mels, n_tokens):
    g = torch.Generator().manual_seed(0)
    return [(torch.randn(batch, frames, n_mels, generator=g),
             torch.randint(0, n_tokens, (batch, frames), generator=g)) for _ in range(n)]


if __name__ == "__main__":
    torch.manual_seed(0)
    cfg = SimpleNamespace(n_mels=8, n_tokens=6, hidden=16, lr=1e-3, epochs=2, TMA_epoch=1,
                          loss_params=SimpleNamespace(lambda_mel=5.0, lambda_mono=1.0, lambda_s2s=1.0))
    try:
        total = train_first(cfg, make_loader(2, 2, 10, cfg.n_mels, cfg.n_tokens))
        assert total == total
        print("FIXED: ok")
    except RuntimeError as e:
        print(f"FAILED: {e}")
