"""Two-layer ReLU network fitted with autograd and manual weight updates.

Modelled on: https://github.com/jcjohnson/pytorch-examples/issues/14

In jcjohnson's two_layer_net_autograd.py the gradients were "manually zeroed
before running the backward pass" at the top of each iteration.  In recent
PyTorch versions a leaf's .grad is None until the first backward() has run,
so the very first iteration fails with "'NoneType' object has no attribute
'data'".  The example was fixed by zeroing the gradients after the update.
"""
import argparse

import torch

torch.set_num_threads(1)


def parse(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--N", type=int, default=16, help="batch size")
    p.add_argument("--D_in", type=int, default=20)
    p.add_argument("--H", type=int, default=12)
    p.add_argument("--D_out", type=int, default=4)
    p.add_argument("--lr", type=float, default=1e-4)
    p.add_argument("--steps", type=int, default=20)
    return p.parse_args(argv)


def make_data(args):
    x = torch.randn(args.N, args.D_in)
    y = torch.randn(args.N, args.D_out)
    return x, y


def init_weights(args):
    w1 = torch.randn(args.D_in, args.H, requires_grad=True)
    w2 = torch.randn(args.H, args.D_out, requires_grad=True)
    return w1, w2


def forward(x, w1, w2):
    return x.mm(w1).clamp(min=0).mm(w2)


def train(args):
    x, y = make_data(args)
    w1, w2 = init_weights(args)
    losses = []
    for t in range(args.steps):
        y_pred = forward(x, w1, w2)
        loss = (y_pred - y).pow(2).sum()
        losses.append(loss.item())

        # Manually zero the gradients before running the backward pass
        w1.grad.data.zero_()  # bug: GG407
        w2.grad.data.zero_()

        loss.backward()
        with torch.no_grad():
            w1 -= args.lr * w1.grad
            w2 -= args.lr * w2.grad
    return losses


if __name__ == "__main__":
    torch.manual_seed(0)
    try:
        train(parse([]))
        print("no error")
    except AttributeError as e:
        print(f"BUGGY: {e}")
