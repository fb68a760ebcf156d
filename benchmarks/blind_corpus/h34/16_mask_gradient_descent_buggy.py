"""Source-separation tutorial: learning a time-frequency mask by gradient descent.

Modelled on: https://github.com/source-separation/tutorial/issues/18

The tutorial's "gradient descent" chapter optimises a mask tensor created with
``requires_grad=True`` by hand: after ``loss.backward()`` it updates the mask
with ``mask -= learning_rate * mask.grad``. The mask is a leaf that requires
grad, and PyTorch refuses in-place updates of such leaves outside
``torch.no_grad()``: "a leaf Variable that requires grad is being used in an
in-place operation" - every cell of the chapter crashed for the reporter.
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
        mask -= learning_rate * mask.grad  # bug: GG301
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
        print("no error")
    except RuntimeError as e:
        print("BUGGY:", e)


if __name__ == "__main__":
    main()
