"""GG102 - backward() on a loss that went through .numpy() and was re-wrapped.

A small speech-enhancement model is trained with a "perceptual" spectral
distance implemented as a loss module. The module moves prediction and target
to numpy (detach().cpu().numpy()), computes the log-spectral distance there and
wraps the result back with torch.tensor(...). The returned loss has no history.
torch raises: RuntimeError: element 0 of tensors does not require grad and does
not have a grad_fn

Modelled on: https://github.com/pranaymanocha/PerceptualAudio/issues/14
"""
import argparse

import numpy as np
import torch
import torch.nn as nn


def get_args():
    p = argparse.ArgumentParser()
    p.add_argument("--length", type=int, default=256)
    p.add_argument("--batch", type=int, default=4)
    p.add_argument("--steps", type=int, default=3)
    p.add_argument("--lr", type=float, default=1e-3)
    return p.parse_args([])


class Denoiser(nn.Module):
    """1-D conv encoder/decoder working on raw waveforms."""

    def __init__(self, channels=8):
        super().__init__()
        self.enc = nn.Sequential(
            nn.Conv1d(1, channels, 9, padding=4), nn.PReLU(),
            nn.Conv1d(channels, channels, 9, padding=4), nn.PReLU(),
        )
        self.dec = nn.Conv1d(channels, 1, 9, padding=4)

    def forward(self, wav):
        return torch.tanh(self.dec(self.enc(wav.unsqueeze(1)))).squeeze(1)


class SpectralDistance(nn.Module):
    """Log-magnitude spectral distance, computed with numpy FFTs."""

    def __init__(self, n_fft=64, eps=1e-5):
        super().__init__()
        self.n_fft = n_fft
        self.eps = eps

    def _logspec(self, wav):
        frames = wav.reshape(wav.shape[0], -1, self.n_fft)
        mag = np.abs(np.fft.rfft(frames * np.hanning(self.n_fft), axis=-1))
        return np.log(mag + self.eps)

    def forward(self, pred, target):
        p = pred.detach().cpu().numpy()
        t = target.detach().cpu().numpy()
        dist = np.mean((self._logspec(p) - self._logspec(t)) ** 2)
        return torch.tensor(dist, dtype=torch.float32, device=pred.device)


def synth_batch(batch, length, gen):
    t = torch.linspace(0, 1, length)
    freqs = torch.rand(batch, 1, generator=gen) * 40 + 5
    clean = torch.sin(2 * np.pi * freqs * t)
    noisy = clean + 0.3 * torch.randn(batch, length, generator=gen)
    return noisy, clean


def train(model, criterion, optimizer, args):
    gen = torch.Generator().manual_seed(3)
    model.train()
    for step in range(args.steps):
        noisy, clean = synth_batch(args.batch, args.length, gen)
        enhanced = model(noisy)
        loss = criterion(enhanced, clean)
        optimizer.zero_grad()
        loss.backward()  # bug: GG102
        optimizer.step()
        print(f"step {step}: spectral distance {loss.item():.4f}")


def main():
    args = get_args()
    torch.manual_seed(0)
    model = Denoiser()
    criterion = SpectralDistance()
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    train(model, criterion, optimizer, args)


if __name__ == "__main__":
    try:
        main()
    except RuntimeError as err:
        print(f"BUGGY: {str(err).splitlines()[0]}")
        raise SystemExit(0)
    raise SystemExit("NO BUG")
