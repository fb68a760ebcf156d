"""GG301 (buggy): hand-written gradient step applied in place to a leaf tensor.

Mistake: a layer-wise pruning script learns a per-channel scale `s_batch` for each
column chunk of a pruned weight by a few steps of manual gradient descent. The update
`s_batch -= lr * s_batch.grad` is an in-place op on a leaf that requires grad, outside
torch.no_grad(), which autograd refuses.
Error raised by torch: RuntimeError: a leaf Variable that requires grad is being used
in an in-place operation.
Modelled on: https://github.com/BaiTheBest/SparseLLM/issues/13
"""
import sys
from dataclasses import dataclass

import torch
import torch.nn as nn


@dataclass
class PruneArgs:
    sparsity: float = 0.5
    chunk: int = 8
    s_learning_rate: float = 0.05
    s_steps: int = 5
    nsamples: int = 32


def magnitude_mask(weight, sparsity):
    k = int(weight.numel() * sparsity)
    thresh = weight.abs().flatten().kthvalue(k).values
    return weight.abs() > thresh


def calibrate_layer(layer, inputs, args):
    """Prune `layer` and fit a per-output scale so pruned outputs match the dense ones."""
    W = layer.weight.detach()
    dense_out = inputs @ W.t()
    W_pruned = W * magnitude_mask(W, args.sparsity)
    s = torch.ones(W.size(0), dtype=torch.float16)
    for start in range(0, W.size(0), args.chunk):
        chunk = slice(start, start + args.chunk)
        s_batch = s[chunk].float().clone().requires_grad_(True)
        for _ in range(args.s_steps):
            pred = (inputs @ W_pruned[chunk].t()) * s_batch
            loss_s = ((pred - dense_out[:, chunk]) ** 2).mean()
            loss_s.backward()
            s_batch -= args.s_learning_rate * s_batch.grad  # bug: GG301
            s_batch.grad.zero_()
        s[chunk] = s_batch.detach().to(dtype=torch.float16)
    with torch.no_grad():
        layer.weight.copy_(W_pruned * s.float()[:, None])
    return s


def build_model():
    return nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 4))


def main():
    args = PruneArgs()
    torch.manual_seed(0)
    model = build_model()
    calib = torch.randn(args.nsamples, 16)
    x = calib
    for idx, layer in enumerate(model):
        if isinstance(layer, nn.Linear):
            s = calibrate_layer(layer, x, args)
            print(f"layer {idx}: mean scale {s.float().mean():.3f}")
        with torch.no_grad():
            x = layer(x)
    return model


if __name__ == "__main__":
    try:
        main()
    except RuntimeError as err:
        print(f"BUGGY: {str(err).splitlines()[0]}")
        sys.exit(0)
    raise SystemExit("NO BUG")
