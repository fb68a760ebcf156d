"""Two-layer network, hand-written SGD, gradients reset before each backward.

Modelled on: https://github.com/pytorch/tutorials/issues/51 (counterpart)

Looks like the crashing example: the gradients are zeroed manually BEFORE the
backward pass, and `.grad` is read to compute a gradient norm.  But the reset
skips tensors whose `.grad` is still None (the first iteration), and the norm
is only read after `loss.backward()` has filled every `.grad`.
"""
import argparse

import torch


def get_args(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--N", type=int, default=64)
    p.add_argument("--D_in", type=int, default=100)
    p.add_argument("--H", type=int, default=32)
    p.add_argument("--D_out", type=int, default=10)
    p.add_argument("--lr", type=float, default=1e-6)
    p.add_argument("--iters", type=int, default=20)
    return p.parse_args(argv)


class TwoLayerNet:
    def __init__(self, D_in, H, D_out):
        self.w1 = torch.randn(D_in, H, requires_grad=True)
        self.w2 = torch.randn(H, D_out, requires_grad=True)

    def params(self):
        return [self.w1, self.w2]

    def forward(self, x):
        return x.mm(self.w1).clamp(min=0).mm(self.w2)


def squared_error(y_pred, y):
    return (y_pred - y).pow(2).sum()


def make_data(args):
    g = torch.Generator().manual_seed(0)
    return (torch.randn(args.N, args.D_in, generator=g),
            torch.randn(args.N, args.D_out, generator=g))


def grad_norm(params):
    return sum(p.grad.pow(2).sum() for p in params).sqrt().item()


def train(net, x, y, lr, iters):
    history, norms = [], []
    for t in range(iters):
        y_pred = net.forward(x)
        loss = squared_error(y_pred, y)
        history.append(loss.item())

        # Manually zero the gradients before running the backward pass
        for p in net.params():
            if p.grad is not None:
                p.grad.zero_()

        loss.backward()
        norms.append(grad_norm(net.params()))

        with torch.no_grad():
            net.w1 -= lr * net.w1.grad
            net.w2 -= lr * net.w2.grad
    return history


def main(argv=None):
    torch.manual_seed(0)
    args = get_args(argv)
    x, y = make_data(args)
    net = TwoLayerNet(args.D_in, args.H, args.D_out)
    return train(net, x, y, args.lr, args.iters)


if __name__ == "__main__":
    hist = main([])
    assert hist[-1] < hist[0]
    print("OK")
