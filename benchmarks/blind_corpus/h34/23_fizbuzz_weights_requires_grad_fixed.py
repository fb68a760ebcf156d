"""NumPy-like FizzBuzz network written with raw tensors (numpy_like_fizbuzz.py).

Modelled on: https://github.com/hhsecond/HandsOnDeepLearningWithPytorch/issues/2

Fixed version (as in the author's fix): the weights are created without
requires_grad, converted to the configured dtype, and only then flagged as
trainable, so they are leaves when ``requires_grad`` is set.
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
    w1 = torch.randn(input_size, hidden_size).type(dtype)
    w2 = torch.randn(hidden_size, output_size).type(dtype)
    b1 = torch.zeros(1, hidden_size).type(dtype)
    b2 = torch.zeros(1, output_size).type(dtype)
    w1.requires_grad = True
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
        print("FIXED: ok")
    except RuntimeError as e:
        print("FIXED broke:", e)


if __name__ == "__main__":
    main()
