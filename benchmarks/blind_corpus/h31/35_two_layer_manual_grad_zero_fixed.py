"""Two-layer network trained with autograd and a hand-written SGD update.

Modelled on: https://github.com/pytorch/tutorials/issues/51

The "PyTorch: Variables and autograd" example zeroed the gradients manually
*before* running the backward pass (`w1.grad.data.zero_()`).  A tensor's
`.grad` is None until the first backward() has written into it, so on the very
first iteration this line fails with "AttributeError: 'NoneType' object has no
attribute 'data'".  This version keeps the weights on a small class and the
loop in a trainer function, with the same zero-before-backward ordering.

Fixed version: the gradients are zeroed after the update, once backward()
has created them.
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


def train(net, x, y, lr, iters):
    history = []
    for t in range(iters):
        y_pred = net.forward(x)
        loss = squared_error(y_pred, y)
        history.append(loss.item())

        loss.backward()

        with torch.no_grad():
            net.w1 -= lr * net.w1.grad
            net.w2 -= lr * net.w2.grad
            # Manually zero the gradients after updating the weights
            net.w1.grad.zero_()
            net.w2.grad.zero_()
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
    print("FIXED: ok")
