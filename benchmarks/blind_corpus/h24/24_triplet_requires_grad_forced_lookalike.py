"""GG109 look-alike - requires_grad=True set by hand, on a real leaf.

A learnable temperature for an InfoNCE-style keyword loss is created as
torch.tensor(..., requires_grad=True) and added to the optimizer; the input
spectrogram also gets requires_grad_() for a saliency map.  Neither is a loss
without history: the loss is built from the encoder outputs and trains it.

Modelled on: https://github.com/roman-vygon/triplet_loss_kws/issues/6 (legitimate requires_grad use)
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

N_MELS, FRAMES, EMB, KEYWORDS, STEPS = 20, 32, 16, 4, 15


class KWSEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv1d(N_MELS, 32, 5, padding=2), nn.ReLU())
        self.fc = nn.Linear(32, EMB)

    def forward(self, mel):
        return F.normalize(self.fc(self.conv(mel).mean(-1)), dim=1)


def info_nce(anchor, positive, log_temp):
    logits = anchor @ positive.t() / log_temp.exp()
    return F.cross_entropy(logits, torch.arange(anchor.size(0)))


def saliency(model, mel):
    mel = mel.clone().requires_grad_(True)
    model(mel).norm(dim=1).sum().backward()
    return mel.grad.abs().mean(1)


def main():
    torch.manual_seed(0)
    model = KWSEncoder()
    log_temp = torch.tensor(math.log(0.1), requires_grad=True)
    opt = torch.optim.Adam(list(model.parameters()) + [log_temp], lr=1e-2)
    base = torch.randn(KEYWORDS, N_MELS, FRAMES)
    w0 = model.fc.weight.detach().clone()
    for step in range(STEPS):
        a = base + 0.1 * torch.randn_like(base)
        p = base + 0.1 * torch.randn_like(base)
        loss = info_nce(model(a), model(p), log_temp)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 5 == 0:
            print(f"step {step}: loss {loss.item():.4f} temp {log_temp.exp().item():.3f}")
    sal = saliency(model, base[:1])
    assert sal.shape == (1, FRAMES)
    assert not torch.equal(w0, model.fc.weight)


if __name__ == "__main__":
    main()
    print("OK")
