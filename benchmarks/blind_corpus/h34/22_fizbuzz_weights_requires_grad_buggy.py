"""NumPy-like FizzBuzz network written with raw tensors (numpy_like_fizbuzz.py).

Modelled on: https://github.com/hhsecond/HandsOnDeepLearningWithPytorch/issues/2

The script picks a tensor type from the config and creates the weights as
``torch.randn(..., requires_grad=True).type(dtype)``. When ``dtype`` differs
from the default (the book used ``torch.cuda.FloatTensor``; here the config
asks for double precision) ``.type()`` is a recorded, differentiable copy, so
the weights are non-leaf results. Trying to (re-)flag them as trainable with
``w1.requires_grad = True`` then fails: "you can only change requires_grad
flags of leaf variables".
"""
import argparse

import numpy as np
import torch


def binary_encoder(input_size):
    def wrapper(num):
        ret = [int(i) for i in "{0:b}".format(num)]
        return [0] * (input_size - len(ret)) + ret
    return wrapper


def get_numpy_data(input_size=10, limit=1000):
    x, y = [], []
    encoder = binary_encoder(input_size)
    for i in range(limit):
        x.append(encoder(i))
        if i % 15 == 0:
            y.append([1, 0, 0, 0])
        elif i % 5 == 0:
            y.append([0, 1, 0, 0])
        elif i % 3 == 0:
            y.append([0, 0, 1, 0])
        else:
            y.append([0, 0, 0, 1])
    return np.array(x), np.array(y)


def init_weights(input_size, hidden_size, output_size, dtype):
    w1 = torch.randn(input_size, hidden_size, requires_grad=True).type(dtype)
    w2 = torch.randn(hidden_size, output_size, requires_grad=True).type(dtype)
    b1 = torch.zeros(1, hidden_size, requires_grad=True).type(dtype)
    b2 = torch.zeros(1, output_size, requires_grad=True).type(dtype)
    w1.requires_grad = True  # bug: GG401
    w2.requires_grad = True
    b1.requires_grad = True
    b2.requires_grad = True
    return w1, w2, b1, b2


def train(x, y, weights, epochs, lr, batches):
    w1, w2, b1, b2 = weights
    for epoch in range(epochs):
        for batch in range(batches):
            start, end = batch * 64, (batch + 1) * 64
            a2 = torch.sigmoid(x[start:end] @ w1 + b1)
            hyp = torch.sigmoid(a2 @ w2 + b2)
            loss = ((hyp - y[start:end]) ** 2).mean()
            loss.backward()
            with torch.no_grad():
                for w in (w1, w2, b1, b2):
                    w -= lr * w.grad
                    w.grad.zero_()
    return loss.item()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--precision", default="double")
    p.add_argument("--epochs", type=int, default=3)
    args = p.parse_args([])
    dtype = torch.DoubleTensor if args.precision == "double" else torch.FloatTensor
    trX, trY = get_numpy_data()
    x = torch.from_numpy(trX).type(dtype)
    y = torch.from_numpy(trY).type(dtype)
    torch.manual_seed(1)
    try:
        weights = init_weights(10, 32, 4, dtype)
        loss = train(x, y, weights, args.epochs, 0.5, 8)
        print("no error", loss)
    except RuntimeError as e:
        print("BUGGY:", str(e).splitlines()[0])


if __name__ == "__main__":
    main()
