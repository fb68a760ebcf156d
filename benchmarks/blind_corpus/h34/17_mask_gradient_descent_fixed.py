"""Source-separation tutorial: learning a time-frequency mask by gradient descent.

Modelled on: https://github.com/source-separation/tutorial/issues/18

Fixed version (the fix merged for the issue): the hand-written update of the
leaf mask runs inside ``torch.no_grad()``.
"""
import argparse

import torch


def make_spectrograms(n_freq, n_frames, seed=0):
    gen = torch.Generator().manual_seed(seed)
    t = torch.arange(n_frames).float()
    f = torch.arange(n_freq).float()[:, None]
    vocals = torch.relu(torch.sin(0.3 * t) * torch.exp(-((f - 8) ** 2) / 10))
    accomp = torch.rand(n_freq, n_frames, generator=gen) * (f < 5).float()
    return vocals + accomp, vocals


def apply_mask(mix_spec, mask):
    return mix_spec * torch.sigmoid(mask)


def l1_loss(estimate, target):
    return (estimate - target).abs().mean()


def learn_mask(mix_spec, source_spec, n_iter, learning_rate):
    mask = torch.zeros_like(mix_spec, requires_grad=True)
    history = []
    for i in range(n_iter):
        estimate = apply_mask(mix_spec, mask)
        loss = l1_loss(estimate, source_spec)
        loss.backward()
        with torch.no_grad():
            mask -= learning_rate * mask.grad
        mask.grad.zero_()
        history.append(loss.item())
    return mask, history


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--n_freq", type=int, default=16)
    p.add_argument("--n_frames", type=int, default=40)
    p.add_argument("--n_iter", type=int, default=50)
    p.add_argument("--lr", type=float, default=50.0)
    args = p.parse_args([])
    mix_spec, vocals_spec = make_spectrograms(args.n_freq, args.n_frames)
    try:
        mask, history = learn_mask(mix_spec, vocals_spec, args.n_iter, args.lr)
        print("loss", history[0], "->", history[-1])
        assert history[-1] < history[0]
        print("FIXED: ok")
    except RuntimeError as e:
        print("FIXED broke:", e)


if __name__ == "__main__":
    main()
