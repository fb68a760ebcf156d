"""GG501 - backward() on a non-scalar loss without a gradient argument.

A small audio-codec style training script keeps its losses in a dict and
combines them with per-term weights.  The mel/waveform reconstruction term is
built with reduction="none" so it can be masked per sample, but it is never
reduced afterwards.  The weighted sum therefore has one entry per sample and
``backward()`` without a ``gradient=`` argument refuses it:
    RuntimeError: grad can be implicitly created only for scalar outputs

Modelled on: https://github.com/descriptinc/descript-audio-codec/issues/61
"""
import argparse
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F


def get_args():
    p = argparse.ArgumentParser()
    p.add_argument("--batch-size", type=int, default=4)
    p.add_argument("--samples", type=int, default=256)
    p.add_argument("--steps", type=int, default=3)
    p.add_argument("--lr", type=float, default=1e-3)
    return p.parse_args([])


LAMBDAS = {"wave/l1": 1.0, "spec/l2": 2.0, "vq/commitment": 0.25}


class TinyCodec(nn.Module):
    def __init__(self, channels=16, codebook=32):
        super().__init__()
        self.encoder = nn.Sequential(
            nn.Conv1d(1, channels, 5, stride=2, padding=2), nn.ELU(),
            nn.Conv1d(channels, channels, 5, stride=2, padding=2))
        self.codebook = nn.Embedding(codebook, channels)
        self.decoder = nn.Sequential(
            nn.ConvTranspose1d(channels, channels, 4, stride=2, padding=1), nn.ELU(),
            nn.ConvTranspose1d(channels, 1, 4, stride=2, padding=1))

    def quantize(self, z):
        flat = z.permute(0, 2, 1)
        dist = torch.cdist(flat, self.codebook.weight.unsqueeze(0))
        codes = dist.argmin(-1)
        zq = self.codebook(codes).permute(0, 2, 1)
        commit = F.mse_loss(z, zq.detach())
        zq = z + (zq - z).detach()
        return zq, commit

    def forward(self, x):
        z = self.encoder(x)
        zq, commit = self.quantize(z)
        return {"audio": self.decoder(zq), "vq/commitment": commit}


def spectral_distance(pred, target):
    ps = torch.stft(pred.squeeze(1), 64, window=torch.hann_window(64), return_complex=True).abs()
    ts = torch.stft(target.squeeze(1), 64, window=torch.hann_window(64), return_complex=True).abs()
    # per-sample distance, reduced later (or so the author thought)
    return F.mse_loss(ps, ts, reduction="none").mean(dim=(1, 2))


class Accelerator:
    """Mimics the small wrapper object the codec repo passes around."""

    def __init__(self, use_amp=False):
        self.scaler = torch.amp.GradScaler("cpu", enabled=use_amp)

    def backward(self, loss):
        self.scaler.scale(loss).backward()  # bug: GG501

    def step(self, optimizer):
        self.scaler.step(optimizer)
        self.scaler.update()


def train_loop(state, batch, accel, lambdas):
    state["generator"].train()
    signal = batch["signal"]
    out = state["generator"](signal)
    output = {
        "wave/l1": F.l1_loss(out["audio"], signal),
        "spec/l2": spectral_distance(out["audio"], signal),
        "vq/commitment": out["vq/commitment"],
    }
    output["loss"] = sum(lambdas[k] * v for k, v in output.items() if k in lambdas)
    state["optimizer_g"].zero_grad()
    accel.backward(output["loss"])
    accel.step(state["optimizer_g"])
    return {k: v.detach().mean().item() for k, v in output.items()}


def main():
    args = get_args()
    torch.manual_seed(0)
    gen = TinyCodec()
    state = {"generator": gen, "optimizer_g": torch.optim.AdamW(gen.parameters(), lr=args.lr)}
    accel = Accelerator(use_amp=False)
    for it in range(args.steps):
        batch = {"signal": torch.randn(args.batch_size, 1, args.samples)}
        logs = train_loop(state, batch, accel, LAMBDAS)
        print(f"iter {it}: " + ", ".join(f"{k}={v:.4f}" for k, v in logs.items()))


if __name__ == "__main__":
    try:
        main()
    except RuntimeError as e:
        print(f"BUGGY: {str(e).splitlines()[0]}")
        sys.exit(0)
    raise SystemExit("NO BUG")
