"""Two-layer network trained with raw autograd tensors (two_layer_net_autograd.py).

Modelled on: https://github.com/jcjohnson/pytorch-examples/pull/11

Fixed version (the PR's fix): the gradients are zeroed after the weight
update, i.e. always after a backward() has created them.
"""
import argparse

import torch


class TwoLayerNet:
    def __init__(self, D_in, H, D_out, dtype=torch.float):
        self.w1 = torch.randn(D_in, H, dtype=dtype, requires_grad=True)
        self.w2 = torch.randn(H, D_out, dtype=dtype, requires_grad=True)

    def params(self):
        return [self.w1, self.w2]

    def forward(self, x):
        return x.mm(self.w1).clamp(min=0).mm(self.w2)


def zero_grads(params):
    for p in params:
        p.grad.zero_()


def sgd_update(params, learning_rate):
    with torch.no_grad():
        for p in params:
            p -= learning_rate * p.grad


def fit(model, x, y, steps, learning_rate, log_every=10):
    losses = []
    for t in range(steps):
        y_pred = model.forward(x)
        loss = (y_pred - y).pow(2).sum()
        if t % log_every == 0:
            losses.append(loss.item())
        loss.backward()
        sgd_update(model.params(), learning_rate)
        # Manually zero the gradients after updating weights
        zero_grads(model.params())
    return losses


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--N", type=int, default=64)
    p.add_argument("--D_in", type=int, default=100)
    p.add_argument("--H", type=int, default=50)
    p.add_argument("--D_out", type=int, default=10)
    p.add_argument("--steps", type=int, default=50)
    p.add_argument("--lr", type=float, default=1e-6)
    args = p.parse_args([])
    torch.manual_seed(0)
    x = torch.randn(args.N, args.D_in)
    y = torch.randn(args.N, args.D_out)
    model = TwoLayerNet(args.D_in, args.H, args.D_out)
    try:
        losses = fit(model, x, y, args.steps, args.lr)
        assert losses[-1] < losses[0]
        print("FIXED: ok")
    except AttributeError as e:
        print("FIXED broke:", e)


if __name__ == "__main__":
    main()
